"""Configuration: TOML, every key optional, validated against one schema at load.

The box's own sections are :data:`SCHEMA`; the ``[games.<key>]`` sections are given by the
caller (:mod:`companion.games.box_config` composes them from the registered games), so this module
knows no game. A bad file stops the box with one message naming the file, the key and the fix.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.files import textfiles

DEFAULT_PATH = Path("/etc/companion/config.toml")
DEVICE_STATE_DIR = Path("/var/lib/companion")


class ConfigError(Exception):
    """An installer's mistake in the config file: the message names file, key and fix."""

    def __init__(self, path: Path | str, key: str, problem: str, fix: str) -> None:
        self.path, self.key, self.problem, self.fix = str(path), key, problem, fix
        super().__init__(f"{path}: {key}: {problem}. Fix: {fix}")


class ConfigErrors(ConfigError):
    """Every problem of one config file: the first is this error's own (a caller that shows one
    problem shows it), all are in ``problems`` and in the message, one a line."""

    def __init__(self, problems: list[ConfigError]) -> None:
        first = problems[0]
        super().__init__(first.path, first.key, first.problem, first.fix)
        self.problems = problems
        self.args = ("\n".join(str(problem) for problem in problems),)


@dataclass(frozen=True)
class Field:
    default: Any
    kind: type | tuple[type, ...]
    doc: str
    check: Callable[[Any], str | None] | None = None  # returns a problem, or None
    shown: str = ""  # how the example file writes the default, when repr is unhelpful


def one_of(*choices: str) -> Callable[[Any], str | None]:
    """A check for :class:`Field`: the value is one of ``choices``."""
    def check(value: Any) -> str | None:
        return None if value in choices else f"must be one of {', '.join(choices)}"

    return check


def between(low: float, high: float) -> Callable[[Any], str | None]:
    """A check for :class:`Field`: ``low <= value <= high``."""
    def check(value: Any) -> str | None:
        return None if low <= value <= high else f"must be between {low} and {high}"

    return check


_BCM = between(0, 27)


def _pairings(value: Any) -> str | None:
    """Each paired die's line reads (``firmware_bridge.smart_link.parse_pairing`` says how)."""
    from firmware_bridge.smart_link import parse_pairing

    for entry in value:
        try:
            parse_pairing(entry if isinstance(entry, str) else repr(entry))
        except ValueError as exc:
            return f"has {exc}"
    return None

SCHEMA: dict[str, dict[str, Field]] = {
    "buttons": {
        "up": Field(5, int, "BCM pin of UP", _BCM),
        "down": Field(6, int, "BCM pin of DOWN", _BCM),
        "ok": Field(13, int, "BCM pin of OK", _BCM),
        "back": Field(19, int, "BCM pin of BACK", _BCM),
        "action": Field(26, int, "BCM pin of the big ACTION button", _BCM),
        "bounce_ms": Field(20, int, "switch debounce in milliseconds", between(0, 200)),
        "long_press_s": Field(0.8, (int, float), "hold time of a long press", between(0.3, 3.0)),
    },
    "buzzer": {
        "kind": Field("tonal", str, "tonal (passive), active, or none", one_of("tonal", "active", "none")),
        "pin": Field(18, int, "BCM pin of the buzzer", _BCM),
        "volume": Field(2, int, "0 mute, 1 quiet .. 3 loud", between(0, 3)),
    },
    "display": {
        "driver": Field("ssd1306", str, "OLED controller", one_of("ssd1306", "sh1106")),
        "interface": Field("i2c", str, "bus to the OLED", one_of("i2c", "spi")),
        "i2c_bus": Field(1, int, "I2C bus number", between(0, 20)),
        "i2c_address": Field(0x3C, int, "I2C address (0x3C or 0x3D)", between(0x03, 0x77), "0x3C"),
        "spi_port": Field(0, int, "SPI port", between(0, 1)),
        "spi_device": Field(0, int, "SPI chip select", between(0, 1)),
        "dc_pin": Field(24, int, "BCM pin of D/C (SPI only)", _BCM),
        "reset_pin": Field(25, int, "BCM pin of RES (SPI only)", _BCM),
        "rotate": Field(0, int, "0, 1, 2 or 3 quarter turns", between(0, 3)),
        "contrast": Field(200, int, "0..255", between(0, 255)),
        "dim_after_min": Field(3.0, (int, float), "minutes idle before dimming", between(0.1, 600)),
        "blank_after_min": Field(15.0, (int, float), "minutes idle before blanking", between(0.2, 1440)),
    },
    "sensor": {
        "port": Field("", str, "serial URL or device of the dice sensor; empty for none"),
        "baud": Field(115200, int, "serial speed", between(1200, 4_000_000)),
        "protocol": Field(2, int, "2; 1 also reads an old v1 sensor (its check misses 2-bit errors)",
                          between(1, 2)),
    },
    "dice": {
        "smart": Field([], list, "paired Bluetooth dice in die order, one 'MAKE ADDRESS KIND' each "
                       "(make pixels or godice; kind yellow, blue, white or red)", _pairings),
    },
    "state": {
        "dir": Field(str(DEVICE_STATE_DIR), str, "where the game journal lives"),
    },
    "web": {
        "listen": Field("0.0.0.0", str, "address the phone page listens on (companion web)"),
        "port": Field(8080, int, "port of `companion web` run by hand (the service gets 80 and "
                      "8080 from companion-web.socket)", between(1, 65535)),
    },
}

# The [games.<key>] sections' schemas, by game key, as the caller composes them.
GameSchemas = Mapping[str, Mapping[str, Field]]


class Section(dict[str, Any]):
    """A validated config table; keys read as attributes."""

    def __getattr__(self, key: str) -> Any:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


@dataclass(frozen=True)
class Config:
    path: str
    sections: Mapping[str, Section]
    games: Mapping[str, Section]

    def __getattr__(self, name: str) -> Section:
        try:
            return self.sections[name]
        except KeyError:
            raise AttributeError(name) from None

    def button_pins(self) -> dict[str, int]:
        return {name.upper(): self.buttons[name] for name in ("up", "down", "ok", "back", "action")}


def _check_table(path: Path | str, where: str, raw: Any, schema: Mapping[str, Field]) -> Section:
    section, problems = _table_problems(path, where, raw, schema)
    if problems:
        raise problems[0]
    return section


def _table_problems(path: Path | str, where: str, raw: Any,
                    schema: Mapping[str, Field]) -> tuple[Section, list[ConfigError]]:
    """The table's valid values (a wrong one replaced by its default, so the checks after it
    still run) and a problem for each wrong key."""
    if not isinstance(raw, dict):
        problem = ConfigError(path, where, "must be a table", f"write it as [{where}] with keys below")
        return _table_problems(path, where, {}, schema)[0], [problem]
    known = ", ".join(schema) or "none"
    problems = [ConfigError(path, f"{where}.{key}", "unknown key", f"remove it; known keys: {known}")
                for key in sorted(set(raw) - set(schema))]
    out = Section()
    for key, field in schema.items():
        value = raw.get(key, field.default)
        out[key] = field.default
        kinds = field.kind if isinstance(field.kind, tuple) else (field.kind,)
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            expected = " or ".join(k.__name__ for k in kinds)
            problems.append(ConfigError(
                path, f"{where}.{key}", f"expected {expected}, got {value!r}",
                f"set {key} = <{expected}> ({field.doc}), or remove it for {field.default!r}",
            ))
            continue
        wrong = field.check(value) if field.check else None
        if wrong:
            problems.append(ConfigError(path, f"{where}.{key}", f"{value!r} {wrong}",
                                        f"set a valid {field.doc}"))
            continue
        out[key] = value
    return out, problems


check_table = _check_table     # one table (or one field of it), as the loader checks it


def _check_pins(path: Path | str, sections: Mapping[str, Section]) -> None:
    used: dict[int, str] = {}
    display = sections["display"]
    # Fixed-function pins first, so a clash is reported on the key the user can change.
    if display["interface"] == "i2c":
        claims = [("display (I2C SDA)", 2), ("display (I2C SCL)", 3)]
    else:
        claims = [("display.dc_pin", display["dc_pin"]), ("display.reset_pin", display["reset_pin"])]
    claims += [(f"buttons.{k}", sections["buttons"][k]) for k in ("up", "down", "ok", "back", "action")]
    if sections["buzzer"]["kind"] != "none":
        claims.append(("buzzer.pin", sections["buzzer"]["pin"]))
    for key, pin in claims:
        if pin in used:
            raise ConfigError(
                path, key, f"BCM pin {pin} is already used by {used[pin]}",
                "give every part its own pin (see the wiring table in README.md)",
            )
        used[pin] = key


def load(
    path: Path | str | None = None, *, required: bool = False, games: GameSchemas | None = None
) -> Config:
    """Load and validate a config file; a missing default file means all defaults."""
    path = Path(path) if path is not None else DEFAULT_PATH
    raw: dict[str, Any] = {}
    if path.exists():
        raw = read_toml(path)
    elif required:
        raise ConfigError(path, "(file)", "no such file", "check the --config path, or leave it out")
    return parse(raw, path, games=games)


def read_toml(path: Path | str) -> dict[str, Any]:
    """Read any TOML file of the box (config, printed-component data); errors are ConfigErrors."""
    try:
        return tomllib.loads(textfiles.read_text(path, encoding="utf-8-sig"))  # a BOM is allowed
    except textfiles.TooLarge as exc:  # e.g. a path set to /dev/zero
        raise ConfigError(exc.where, "(file)", exc.problem.removesuffix("; not read"),
                          "point the setting at the right file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "(syntax)", str(exc), "correct the TOML syntax at that line") from None
    except UnicodeDecodeError:  # a ValueError too: caught before the clause below
        raise ConfigError(path, "(file)", "not UTF-8 text",
                          "save the file as UTF-8 (any text editor can)") from None
    except (ValueError, RecursionError):  # tomllib's int() over 4,300 digits; deep nesting
        raise ConfigError(path, "(syntax)", "a number too long or values nested too deep",
                          "correct the file (docs/ shows each file's keys)") from None
    except FileNotFoundError:
        raise ConfigError(path, "(file)", "no such file", "check the path in the config") from None
    except OSError as exc:
        raise ConfigError(
            path, "(file)", f"cannot read: {exc}", "check the path and its permissions"
        ) from None


def shown(value: Any) -> str:
    """A file's value as a message quotes it: its repr, cut to a few words."""
    text = repr(value)
    return text if len(text) <= 24 else text[:20] + "…"


def whole_number(value: Any, path: Path | str, key: str, low: int, high: int, *,
                 in_text: bool = False) -> int:
    """A data file's whole number in low..high, else a ConfigError naming file, key and limit.
    ``in_text``: ``value`` may be ASCII digits cut from a text ("²".isdigit(), not int("²"))."""
    if in_text and isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 19:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(path, key, f"{shown(value)} is not a whole number from {low} to {high}",
                          f"write {key.rpartition('.')[2]} as a number from {low} to {high}")
    return value


def parse(
    raw: Mapping[str, Any], path: Path | str = "<config>", *, games: GameSchemas | None = None
) -> Config:
    """Validate an already-parsed TOML document; ``games`` are the known game sections."""
    game_schemas = games or {}
    known = [*SCHEMA, "games"]
    problems = [ConfigError(path, name, "unknown section", f"remove it; sections are {', '.join(known)}")
                for name in raw if name not in known]
    sections: dict[str, Section] = {}
    for name, schema in SCHEMA.items():
        sections[name], found = _table_problems(path, name, raw.get(name, {}), schema)
        problems += found
    games_raw = raw.get("games", {})
    if not isinstance(games_raw, dict):
        problems.append(ConfigError(path, "games", "must be a table",
                                    "write game settings as [games.<name>]"))
        games_raw = {}
    known_games = ", ".join(sorted(game_schemas)) or "none"
    problems += [ConfigError(path, f"games.{name}", "unknown game", f"use one of: {known_games}")
                 for name in games_raw if name not in game_schemas]
    game_sections: dict[str, Section] = {}
    for name, game_schema in game_schemas.items():
        game_sections[name], found = _table_problems(path, f"games.{name}", games_raw.get(name, {}),
                                                     game_schema)
        problems += found
    try:
        _check_pins(path, sections)
    except ConfigError as exc:
        problems.append(exc)
    if sections["display"]["blank_after_min"] <= sections["display"]["dim_after_min"]:
        problems.append(ConfigError(
            path, "display.blank_after_min", "must be later than dim_after_min",
            "blank the screen after it has dimmed, e.g. dim 3, blank 15",
        ))
    if len(problems) > 1:
        raise ConfigErrors(problems)
    if problems:
        raise problems[0]
    return Config(str(path), sections, game_sections)


def example_toml(games: GameSchemas | None = None) -> str:
    """The example config file: every key, commented out, with its default and meaning."""
    lines = ["# Table Companion configuration. Every key is optional; shown are the defaults.", ""]
    for name, schema in SCHEMA.items():
        lines.append(f"[{name}]")
        lines += _example_lines(schema)
    for name, game_schema in sorted((games or {}).items()):
        lines.append(f"[games.{name}]")
        lines += _example_lines(game_schema)
    return "\n".join(lines)


def _example_lines(schema: Mapping[str, Field]) -> list[str]:
    lines = [f"# {key} = {f.shown or _toml_value(f.default)}  # {f.doc}" for key, f in schema.items()]
    return [*lines, ""]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
