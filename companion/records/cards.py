"""The printed-card data files as the phone page edits them: each game's declared files
(:class:`companion.contract.cards.CardFile`), the copy the phone saved of each, and which file
a game reads.

One source of truth: a file saved on the phone lives in the state directory
(``cards/<game>-<key>.toml``) and, while it is there, is the file the game's
``[games.<game>] <key>`` names for the box, ``companion doctor``, About and the page; else
config.toml's path, else the stand-in shipped with the box. A saved file has passed the game's
own loader and doctor check before it was renamed into place, and a game reads its files only
when it is set up (the setup action carries the cards), so a game in progress keeps its own.
"""

from __future__ import annotations

import copy
import re
import time
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from companion.contract.cards import FLAG, NUMBER, NUMBERS, TEXTS, CardFile, Value
from companion.contract.config import Config, ConfigError, Section, read_toml
from companion.contract.facts import FAIL
from companion.contract.spec import GameSpec
from companion.files.textfiles import write_atomic

from .settings import announce

FOLDER = "cards"
MAX_TEXT = 200           # one field as typed: a name, or a row of a dozen numbers or icons
NONE = "-"               # an empty text in a list of texts ("no bonus")
_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class CardError(ValueError):
    """A form that cannot become a file: ``key`` the value it is about ("" for the whole
    form), and the problem."""

    def __init__(self, key: str, problem: str) -> None:
        self.key, self.problem = key, problem
        super().__init__(f"{key}: {problem}" if key else problem)


def declared(games: Mapping[str, GameSpec[Any]]) -> list[tuple[GameSpec[Any], CardFile]]:
    """Every game's card files, in menu order."""
    return [(spec, card) for spec in games.values() for card in spec.cards]


def find(games: Mapping[str, GameSpec[Any]], game: str, key: str) -> tuple[GameSpec[Any], CardFile] | None:
    """The card file ``key`` of ``game`` (names from a URL: only a declared one is found)."""
    return next(((spec, card) for spec, card in declared(games)
                 if spec.key == game and card.key == key), None)


def phone_copy(state_dir: Path, game: str, card: CardFile) -> Path:
    """Where the phone's copy of a card file is kept."""
    return Path(state_dir) / FOLDER / f"{game}-{card.key}.toml"


def from_phone(state_dir: Path | None, games: Mapping[str, GameSpec[Any]]
               ) -> list[tuple[GameSpec[Any], CardFile]]:
    """The card files the phone saved a copy of; OSError when the state directory cannot be
    read (``companion doctor`` run by another user)."""
    return [] if state_dir is None else [(spec, card) for spec, card in declared(games)
                                         if phone_copy(state_dir, spec.key, card).is_file()]


def installer_paths(cfg: Config, games: Mapping[str, GameSpec[Any]]) -> dict[tuple[str, str], str]:
    """config.toml's path of each card file ("" for the stand-in), before any phone copy."""
    return {(spec.key, card.key): str(cfg.games.get(spec.key, Section()).get(card.key, ""))
            for spec, card in declared(games)}


def apply(cfg: Config, state_dir: Path | None, games: Mapping[str, GameSpec[Any]],
          installer: Mapping[tuple[str, str], str] | None = None) -> list[tuple[GameSpec[Any], CardFile]]:
    """Point ``cfg``'s game sections at the phone's copies that exist, so setups and checks read
    them; ``installer`` (from :func:`installer_paths`) puts config.toml's path back where a copy
    is gone. Returns the files the phone set."""
    used = from_phone(state_dir, games)
    for spec, card in declared(games):
        section = cfg.games.get(spec.key)
        if section is None or card.key not in section:
            continue
        if state_dir is not None and (spec, card) in used:
            section[card.key] = str(phone_copy(state_dir, spec.key, card))
        elif installer is not None:
            section[card.key] = installer.get((spec.key, card.key), "")
    return used


def in_use(cfg: Config, game: str, card: CardFile) -> Path:
    """The file the game reads now: the one its config section names, else the stand-in."""
    named = cfg.games.get(game, Section()).get(card.key, "")
    return Path(named) if named else card.stand_in


def fields(card: CardFile, doc: Mapping[str, Any]) -> list[tuple[str, Value]]:
    """The form's fields of ``doc``: each declared key, ``[]`` expanded over the tables the
    document's list has."""
    out = []
    for pattern, value in card.values.items():
        head, mark, rest = pattern.partition("[]")
        if not mark:
            out.append((pattern, value))
            continue
        tables = get(doc, head)
        out += [(f"{head}[{i}]{rest}", value) for i in range(len(tables) if isinstance(tables, list) else 0)]
    return out


def parts(key: str) -> list[str | int]:
    """``drink[2].coins`` as its names and indexes: drink, 2, coins."""
    return [name if name else int(index) for name, index in _SEGMENT.findall(key)]


def get(doc: Any, key: str) -> Any:
    """The document's value at ``key`` (``drink[2].coins``), or None."""
    for part in parts(key):
        if isinstance(part, int) and isinstance(doc, list) and part < len(doc):
            doc = doc[part]
        elif isinstance(part, str) and isinstance(doc, dict):
            doc = doc.get(part)
        else:
            return None
    return doc


def _put(doc: dict[str, Any], key: str, value: Any) -> None:
    """Set (or, with ``...``, remove) the value at ``key``, making the tables on the way."""
    path = parts(key)
    here: Any = doc
    for part, after in pairwise(path):
        # fields() expands a list's tables from this document, so an index is always there;
        # a value where the form has a table gives way to the table
        if isinstance(part, str) and isinstance(after, str) and not isinstance(here.get(part), dict):
            here[part] = {}
        here = here[part]
    if value is ...:
        here.pop(path[-1], None)
    else:
        here[path[-1]] = value


def shown(value: Any, kind: str) -> str:
    """A document's value as its form field shows it."""
    if value is None:
        return ""
    if kind == FLAG and isinstance(value, bool):
        return "true" if value else "false"
    if kind in (NUMBERS, TEXTS) and isinstance(value, list):
        return ", ".join(NONE if kind == TEXTS and item == "" else str(item) for item in value)
    return str(value)


def _typed(text: str, kind: str) -> Any:
    """A field's text as the value its kind wants; a text the kind cannot read is passed on as
    it is, so the loader says what is wrong with it, in its own words."""
    if kind == NUMBER and re.fullmatch(r"-?[0-9]{1,18}", text):
        return int(text)
    if kind == FLAG and text in ("true", "false"):
        return text == "true"
    if kind == NUMBERS:
        return [_typed(item.strip(), NUMBER) for item in text.split(",")] if text else []
    if kind == TEXTS:
        return ["" if item.strip() == NONE else item.strip() for item in text.split(",")] if text else []
    return text


def from_form(card: CardFile, base: Mapping[str, Any], form: Mapping[str, str],
              ignore: Iterable[str] = ()) -> dict[str, Any]:
    """The document the form makes of ``base`` (keys the form does not show are kept as they
    are); CardError for a field it lacks, one it does not have, or a text too long."""
    doc = copy.deepcopy(dict(base))
    shown_fields = fields(card, base)
    known = {key for key, _ in shown_fields} | set(ignore)
    unknown = sorted(set(form) - known)
    if unknown:
        raise CardError("", f"{unknown[0][:40]!r} is not a field of this form; nothing saved")
    for key, value in shown_fields:
        if key not in form:
            raise CardError(key, "missing from the form; reload the page")
        text = form[key].strip()
        if len(text) > MAX_TEXT:
            raise CardError(key, f"at most {MAX_TEXT} characters")
        _put(doc, key, ... if value.optional and not text else _typed(text, value.kind))
    return doc


def toml_text(doc: Mapping[str, Any], header: str = "") -> str:
    """``doc`` (tables, lists of tables, and texts, numbers, flags and lists of them) as TOML."""
    lines = [f"# {line}" for line in header.splitlines()]
    _table(doc, "", lines)
    text = "\n".join(lines).strip() + "\n"
    if tomllib.loads(text) != doc:      # never write what does not read back the same
        raise CardError("", "these values cannot be written as a data file")
    return text


def _table(table: Mapping[str, Any], prefix: str, lines: list[str]) -> None:
    nested = []
    for key, value in table.items():
        if isinstance(value, dict) or (isinstance(value, list) and value
                                       and all(isinstance(item, dict) for item in value)):
            nested.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in nested:
        name = f"{prefix}{_key(key)}"
        for item in value if isinstance(value, list) else [value]:
            lines += ["", f"[[{name}]]" if isinstance(value, list) else f"[{name}]"]
            _table(item, f"{name}.", lines)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _value(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04x}", text) + '"'


@dataclass(frozen=True)
class Refusal:
    """Why a form was not saved: the value it is about ("" for none) and the message."""

    key: str
    message: str


def save(cfg: Config, state_dir: Path, spec: GameSpec[Any], card: CardFile, doc: Mapping[str, Any],
         header: str) -> Refusal | None:
    """Write ``doc`` as the phone's copy, atomically, if the game's loader reads it and its
    doctor check finds nothing wrong with it (checked on the written temporary file, so
    exactly what the game will read); else the loader's or the doctor's message, and the file
    as it was."""
    target = phone_copy(state_dir, spec.key, card)
    target.parent.mkdir(parents=True, exist_ok=True)
    refused: list[Refusal] = []

    def check(part: Path) -> None:
        try:
            card.load(part)
        except ConfigError as exc:
            refused.append(Refusal(exc.key, f"{exc.problem}. Fix: {exc.fix}" if exc.fix else exc.problem))
            raise
        if spec.doctor is None:
            return
        trial = Config(cfg.path, cfg.sections, {**cfg.games, spec.key: Section(
            {**cfg.games.get(spec.key, {}), card.key: str(part)})})
        for finding in spec.doctor(trial):
            if finding.level == FAIL and str(part) in finding.detail:
                said = finding.detail.replace(f"{part}: ", "").replace(str(part), target.name)
                refused.append(Refusal("", f"{said}. Fix: {finding.fix}" if finding.fix else said))
                raise ConfigError(part, "", said, finding.fix)

    try:
        write_atomic(target, toml_text(doc, header), check)
    except ConfigError:
        return refused[0]
    announce(state_dir)  # a running box uses it at once
    return None


def header(spec: GameSpec[Any], card: CardFile, now: float) -> str:
    """The comment a saved copy starts with: what it is and where it came from."""
    day = time.strftime("%Y-%m-%d %H:%M", time.localtime(now))
    return (f"{spec.title}: {card.title}, saved on the phone page's Settings on {day}.\n"
            f"{card.doc}\nWhile this file is here the box reads it over config.toml's "
            f"[games.{spec.key}] {card.key}; the phone's Settings can put that one back.")


def field_of(key: str, keys: Iterable[str]) -> str | None:
    """The form field a loader's message about ``key`` belongs to (``rows.pair.hearts[3]``:
    the field ``rows.pair.hearts``), or None when it is about more than one field."""
    return max((k for k in keys if key == k or key.startswith((f"{k}.", f"{k}["))),
               key=len, default=None)


def reset(state_dir: Path, game: str, card: CardFile) -> bool:
    """Drop the phone's copy (config.toml's file or the stand-in is read again); whether there
    was one."""
    saved = phone_copy(state_dir, game, card)
    existed = saved.is_file()
    saved.unlink(missing_ok=True)
    announce(state_dir)
    return existed


def document(card: CardFile, path: Path) -> tuple[dict[str, Any], str]:
    """The document a form starts from: ``path``'s, or, when that is not TOML the box can read,
    the stand-in's, with the reason."""
    try:
        return read_toml(path), ""
    except ConfigError as exc:
        return read_toml(card.stand_in), str(exc)
