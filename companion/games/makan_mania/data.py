"""Printed components of Makan Mania (trays, drinks), loaded from TOML and validated at load.

A mistake in a data file stops the box with a message naming the file, the key and the problem.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ABILITIES = ("private_drink", "jump_88", "jump_1", "double", "face_bonus", "drink_bonus")
EFFECTS = ("faces", "discount", "coins", "pair")


class DataError(Exception):
    """A bad data file: the message names the file, the key and the problem."""


@dataclass(frozen=True)
class Tray:
    colour: str
    name: str
    ability: str
    printed: bool  # False: the colour-to-ability link is a stand-in


@dataclass(frozen=True)
class Drink:
    key: str
    name: str
    dice: int | None    # cost when paid with dice; None: cannot be paid with dice
    coins: int | None   # cost when paid with coins; None: cannot be paid with coins
    effect: str
    amount: int
    faces: tuple[int, ...]
    pairs_with: str     # "snack", "meal" or ""
    copies: int


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{path}: cannot read: {exc}") from None


def _get(path: Path, where: str, table: dict[str, Any], key: str, kind: type, default: Any = ...) -> Any:
    if key not in table:
        if default is ...:
            raise DataError(f"{path}: {where}.{key}: missing")
        return default
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise DataError(f"{path}: {where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def load_trays(path: Path = HERE / "trays.toml") -> tuple[Tray, ...]:
    """The six trays; each ability exactly once, colours unique."""
    raw = _read(path).get("tray", [])
    trays = []
    for i, table in enumerate(raw):
        where = f"tray[{i}]"
        ability = _get(path, where, table, "ability", str)
        if ability not in ABILITIES:
            raise DataError(f"{path}: {where}.ability: {ability!r} is not one of {', '.join(ABILITIES)}")
        trays.append(Tray(_get(path, where, table, "colour", str), _get(path, where, table, "name", str),
                          ability, _get(path, where, table, "printed", bool, False)))
    if sorted(t.ability for t in trays) != sorted(ABILITIES):
        raise DataError(f"{path}: tray: each of the six abilities must appear exactly once")
    if len({t.colour for t in trays}) != len(trays):
        raise DataError(f"{path}: tray: colours must be unique")
    return tuple(trays)


def load_drinks(path: Path = HERE / "drinks.toml") -> tuple[Drink, ...]:
    """The ten drinks with costs, effects and deck copies."""
    raw = _read(path).get("drink", [])
    drinks = []
    for i, table in enumerate(raw):
        where = f"drink[{i}]"
        effect = _get(path, where, table, "effect", str)
        if effect not in EFFECTS:
            raise DataError(f"{path}: {where}.effect: {effect!r} is not one of {', '.join(EFFECTS)}")
        dice = _get(path, where, table, "dice", int, None)
        coins = _get(path, where, table, "coins", int, None)
        if dice is None and coins is None:
            raise DataError(f"{path}: {where}: needs a dice or a coins cost")
        pairs = _get(path, where, table, "with", str, "") if effect == "pair" else ""
        if effect == "pair" and pairs not in ("snack", "meal"):
            raise DataError(f"{path}: {where}.with: must be snack or meal")
        faces = tuple(_get(path, where, table, "faces", list, [])) if effect == "faces" else ()
        if effect == "faces" and (not faces or any(f not in range(1, 7) for f in faces)):
            raise DataError(f"{path}: {where}.faces: must list die faces 1..6")
        amount = 1 if effect == "faces" else _get(path, where, table, "amount", int)
        key, name = _get(path, where, table, "key", str), _get(path, where, table, "name", str)
        copies = _get(path, where, table, "copies", int)
        drinks.append(Drink(key, name, dice, coins, effect, amount, faces, pairs, copies))
    if len({d.key for d in drinks}) != len(drinks):
        raise DataError(f"{path}: drink: keys must be unique")
    return tuple(drinks)


TRAYS: tuple[Tray, ...] = load_trays()
DRINKS: tuple[Drink, ...] = load_drinks()
TRAY_BY_COLOUR: dict[str, Tray] = {t.colour: t for t in TRAYS}
DRINK_BY_KEY: dict[str, Drink] = {d.key: d for d in DRINKS}
