"""The box's settings as the table changes them: the config file's values, overridden by the
rows of the journal's ``settings`` table (what the box's Settings screen and the phone page
write). One source of truth: the box reads it at start and whenever the page announces a
change (:func:`announce`), ``companion doctor`` and About list it, and every value passes the
config's own field checks, with the config loader's messages, before it is written or used.

Two kinds of key: the box's own (``volume``, ``contrast``, ``long_press_s``, as the Settings
screen has always saved them) and a game's house rules, ``games.<key>.<field>``, for the
fields of its ``[games.<key>]`` section that are choices or numbers (the data files' paths are
the installer's, in config.toml). A game's options are copied into its setup action, so a
changed house rule counts from the next setup: nothing reaches a game in progress.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.contract.config import SCHEMA, Config, ConfigError, Field, check_table

WHERE = "settings"            # how a message names the source of a value set on the phone
HANDED = "handed"  # in the state directory: what the phone page hands the box (the page may write only there)
CHANGED_MARK = "settings-changed"  # in HANDED: written after each save (announce)
# The box's own settings: key -> (config section, the screen's name of it).
BOX: dict[str, tuple[str, str]] = {
    "volume": ("buzzer", "Sound"), "contrast": ("display", "Contrast"),
    "long_press_s": ("buttons", "Long press"),
}


@dataclass(frozen=True)
class Setting:
    """One setting a form may change: its key, its config field and where it lives."""

    key: str
    section: str            # "buzzer", or "games.<key>"
    name: str               # the field's name in its section
    field: Field

    @property
    def game(self) -> str | None:
        return self.section.removeprefix("games.") if self.section.startswith("games.") else None


def settable(games: Mapping[str, Mapping[str, Field]]) -> dict[str, Setting]:
    """Every key the Settings forms may set, the box's first, then each game's house rules."""
    out = {key: Setting(key, section, key, SCHEMA[section][key]) for key, (section, _) in BOX.items()}
    for game, schema in games.items():
        for name, field in schema.items():
            if field.kind is str and field.check is None:
                continue        # a file's path or a folder: the installer's, not a form's
            out[f"games.{game}.{name}"] = Setting(f"games.{game}.{name}", f"games.{game}", name, field)
    return out


def check(setting: Setting, value: Any) -> Any:
    """``value`` as the config loader accepts it for ``setting``; ConfigError with its message."""
    return check_table(WHERE, setting.section, {setting.name: value},
                       {setting.name: setting.field})[setting.name]


def from_text(setting: Setting, text: str) -> Any:
    """A form's text as the value the field's kind wants (a number for a number), then
    checked; ConfigError with the loader's message when it is not one."""
    kinds = setting.field.kind if isinstance(setting.field.kind, tuple) else (setting.field.kind,)
    value: Any = text.strip()
    if value.isascii():         # "٣" is a digit to str.isdigit, never a number here
        for kind in (int, float):
            if kind in kinds and isinstance(value, str):
                with contextlib.suppress(ValueError):   # the check words it as the loader does
                    value = kind(value)
        if bool in kinds and isinstance(value, str):
            value = {"true": True, "false": False}.get(value.lower(), value)
    return check(setting, value)


def saved(conn: sqlite3.Connection, fields: Mapping[str, Setting]) -> dict[str, Any]:
    """The journal's settings that pass their checks (a bad row is left out, never used)."""
    out: dict[str, Any] = {}
    for key, text in conn.execute("SELECT key, value FROM settings"):
        setting = fields.get(key)
        if setting is None:
            continue
        try:
            out[key] = check(setting, json.loads(text))
        except (ValueError, ConfigError):
            continue
    return out


def save(conn: sqlite3.Connection, key: str, value: Any) -> None:
    conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                 (key, json.dumps(value)))


def announce(state_dir: Path, mark: str = CHANGED_MARK) -> bool:
    """Tell a running box that settings or card files were saved beside it: it watches for
    this file (:mod:`companion.box.watch`) and uses them at once (``mark``: another request the
    box takes from the page, e.g. a search for dice). False when it could not be written (the
    box then reads them at its next start)."""
    try:
        handed = Path(state_dir) / HANDED
        handed.mkdir(exist_ok=True)  # made by systemd-tmpfiles on the box
        (handed / mark).write_bytes(b"")
    except OSError:
        return False
    return True


def current(cfg: Config, overrides: Mapping[str, Any], fields: Mapping[str, Setting]
            ) -> dict[str, tuple[Any, bool]]:
    """Each setting's value now and whether it was set on the box or the phone (else the
    config file's, or the default)."""
    out = {}
    for key, setting in fields.items():
        if key in overrides:
            out[key] = (overrides[key], True)
        elif setting.game is not None:
            section: dict[str, Any] = cfg.games.get(setting.game, {})
            out[key] = (section.get(setting.name, setting.field.default), False)
        else:
            out[key] = (cfg.sections[setting.section][setting.name], False)
    return out


def apply_games(cfg: Config, overrides: Mapping[str, Any], fields: Mapping[str, Setting]) -> None:
    """Put the house rules set on the box or the phone into ``cfg``'s game sections, which the
    setup screens read."""
    for key, value in overrides.items():
        setting = fields.get(key)
        if setting is not None and setting.game is not None and setting.game in cfg.games:
            cfg.games[setting.game][setting.name] = value


def words(key: str, value: Any) -> str:
    """A setting as About and doctor list it: "games.<key>.round_seconds = 120"."""
    return f"{key} = {value!r}" if isinstance(value, str) else f"{key} = {value}"


def report(state_dir: str | Path) -> tuple[dict[str, Any], list[str]]:
    """What the journal in ``state_dir`` sets over config.toml, read-only: (the settings that
    pass their checks, the messages of those that do not). sqlite3.Error if it cannot be read."""
    from companion.games.catalog import config_sections
    from companion.records.history import journal_path

    path = journal_path(state_dir)
    if not path.exists():
        return {}, []
    fields = settable(config_sections())
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT key, value FROM settings").fetchall()
    finally:
        conn.close()
    used, refused = {}, []
    for key, text in rows:
        if key in fields:
            try:
                used[key] = check(fields[key], json.loads(text))
            except (ValueError, ConfigError) as exc:
                refused.append(str(exc))
    return used, refused
