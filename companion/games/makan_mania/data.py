"""Printed components of Makan Mania (trays, drinks), read from TOML when a game is set up.

A mistake in a data file raises :class:`companion.contract.config.ConfigError` naming the file, the key,
the problem and the fix; nothing is read at import, so a bad file never stops the CLI.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.contract.cards import FLAG, NUMBER, NUMBERS, TEXT, CardFile, Value
from companion.contract.config import ConfigError, read_toml, shown, whole_number
from companion.ui.words import plural

HERE = Path(__file__).parent
TRAYS_FILE = HERE / "trays.toml"
DRINKS_FILE = HERE / "drinks.toml"
ABILITIES = ("private_drink", "jump_88", "jump_1", "double", "face_bonus", "drink_bonus")
EFFECTS = ("faces", "discount", "coins", "pair")
_TRAY_KEYS = frozenset({"colour", "name", "ability", "printed"})
_DRINK_KEYS = frozenset({"key", "name", "dice", "coins", "effect", "amount", "faces", "with", "copies"})
_FIX = "correct it (docs/makan_mania.md, Checking the data files)"
_KEY = re.compile(r"[a-z0-9_]{1,24}")
_LETTERS = "use letters, digits and punctuation"
# A name is shown alone on one line of the small font: in lists, and on a line of a refusal box
# (whose frame takes a little of the screen: TOAST_LINE px). However wide its letters (up to
# U+00FF), this many always fit, and one more of the widest does not (the test measures it), so
# a name this short is never measured: a replay does not load the font, which loads Pillow and luma.
# The coin sign, wider than any letter, is not allowed in a name.
LINE_LETTERS = 19
COIN = "¤"


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

    def as_dict(self) -> dict[str, Any]:
        """The card as a drink-table entry of a setup action (the TOML keys)."""
        entry: dict[str, Any] = {"key": self.key, "name": self.name, "effect": self.effect,
                                 "amount": self.amount, "copies": self.copies}
        entry.update({k: v for k, v in (("dice", self.dice), ("coins", self.coins)) if v is not None})
        if self.faces:
            entry["faces"] = list(self.faces)
        if self.pairs_with:
            entry["with"] = self.pairs_with
        return entry


def _get(path: Path | str, where: str, table: dict[str, Any], key: str, kind: type,
         low: int = 0, high: int = 99, default: Any = ...) -> Any:
    """``table[key]`` of type ``kind`` (bool is not int), ints in low..high."""
    if key not in table:
        if default is ...:
            raise ConfigError(path, f"{where}.{key}", "missing", f"add {key} = ...")
        return default
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ConfigError(path, f"{where}.{key}", f"expected {kind.__name__}, got {shown(value)}", _FIX)
    if kind is int:
        return whole_number(value, path, f"{where}.{key}", low, high)
    return value


def _name(path: Path | str, where: str, table: dict[str, Any], key: str) -> str:
    """A name the screen can draw alone on a line: printable, letters the font has, ≤ 118 px."""
    name: str = _get(path, where, table, key, str)
    lacking = next((c for c in name if not c.isprintable()), None)
    if lacking is None and not name.strip():
        raise ConfigError(path, f"{where}.{key}", "is empty", _LETTERS)
    if COIN in name:  # the screens' coin sign: in a name it would read as a price
        raise ConfigError(path, f"{where}.{key}", f"{shown(name)} has the coin sign {COIN}", _LETTERS)
    if lacking is None and (len(name) > LINE_LETTERS or max(map(ord, name)) > 255):
        lacking = _measure(path, f"{where}.{key}", name)
    if lacking is not None:
        raise ConfigError(path, f"{where}.{key}", f"{shown(name)} has {lacking!r}, which the screen "
                          "cannot show", _LETTERS)
    return name


def _measure(path: Path | str, where: str, name: str) -> str | None:
    """The first letter of ``name`` the font lacks (beyond U+00FF it has only the box's icons);
    refuses a name wider than a screen line. Only a long name or one with such a letter is
    measured: the font loads Pillow and luma, which a replay of a usual setup does without."""
    from companion.frame.canvas import TOAST_LINE
    from companion.frame.font import ICONS, SMALL

    lacking = next((c for c in name if ord(c) > 255 and c not in ICONS), None)
    if lacking is None and SMALL.width(name) > TOAST_LINE:
        raise ConfigError(path, where, f"{shown(name)} is wider than a screen line ({TOAST_LINE} px)",
                          f"shorten it: any {LINE_LETTERS} letters fit")
    return lacking


def _tables(path: Path | str, raw: Any, name: str, known: frozenset[str]) -> list[dict[str, Any]]:
    """The ``[[name]]`` tables of a file, each with only ``known`` keys."""
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise ConfigError(path, name, "must be a list of tables", f"write each as [[{name}]]")
    for i, table in enumerate(raw):
        unknown = sorted(set(table) - known)
        if unknown:
            raise ConfigError(path, f"{name}[{i}].{unknown[0]}", "unknown key",
                              f"use only {', '.join(sorted(known))}")
    return raw


def _top(path: Path | str, raw: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ConfigError(path, unknown[0], "unknown key", f"use only {', '.join(sorted(allowed))}")


def load_trays(path: Path | str = TRAYS_FILE) -> tuple[Tray, ...]:
    """The six trays; each ability exactly once, colours unique."""
    raw = read_toml(path)
    _top(path, raw, {"tray"})
    trays = []
    for i, table in enumerate(_tables(path, raw.get("tray", []), "tray", _TRAY_KEYS)):
        where = f"tray[{i}]"
        ability = _get(path, where, table, "ability", str)
        if ability not in ABILITIES:
            raise ConfigError(path, f"{where}.ability", f"{shown(ability)} is not a tray ability",
                              f"use one of {', '.join(ABILITIES)}")
        trays.append(Tray(_name(path, where, table, "colour"), _name(path, where, table, "name"),
                          ability, _get(path, where, table, "printed", bool, default=False)))
    if sorted(t.ability for t in trays) != sorted(ABILITIES):
        raise ConfigError(path, "tray", "each of the six abilities must appear exactly once", _FIX)
    if len({t.colour for t in trays}) != len(trays):
        raise ConfigError(path, "tray", "colours must be unique", _FIX)
    return tuple(trays)


def parse_drinks(path: Path | str, raw: Any) -> tuple[Drink, ...]:
    """Drink cards from ``[[drink]]`` tables (a drinks file or a setup action's drink table)."""
    drinks = []
    for i, table in enumerate(_tables(path, raw, "drink", _DRINK_KEYS)):
        where = f"drink[{i}]"
        effect = _get(path, where, table, "effect", str)
        if effect not in EFFECTS:
            raise ConfigError(path, f"{where}.effect", f"{shown(effect)} is not an effect",
                              f"use one of {', '.join(EFFECTS)}")
        dice = _get(path, where, table, "dice", int, 0, 12, None)
        coins = _get(path, where, table, "coins", int, 0, 30, None)
        if dice is None and coins is None:
            raise ConfigError(path, where, "needs a dice or a coins cost", "add dice = or coins =")
        pairs = _get(path, where, table, "with", str, default="") if effect == "pair" else ""
        if effect == "pair" and pairs not in ("snack", "meal"):
            raise ConfigError(path, f"{where}.with", "must be snack or meal", 'write with = "snack"')
        faces = tuple(_get(path, where, table, "faces", list, default=[])) if effect == "faces" else ()
        if effect == "faces" and (not faces or any(type(f) is not int or not 1 <= f <= 6 for f in faces)):
            raise ConfigError(path, f"{where}.faces", "must list die faces 1..6", "write faces = [1, 2]")
        amount = 1 if effect == "faces" else _get(path, where, table, "amount", int, 1, 20)
        key = _get(path, where, table, "key", str)
        if not _KEY.fullmatch(key):  # keys are written into every journal action
            raise ConfigError(path, f"{where}.key", f"{shown(key)} is not a key",
                              "use 1 to 24 lower-case letters, digits or _, e.g. kopi_o")
        name = _name(path, where, table, "name")
        drinks.append(Drink(key, name, dice, coins, effect, amount, faces, pairs,
                            _get(path, where, table, "copies", int, 0, 36)))
    if not drinks or len({d.key for d in drinks}) != len(drinks):
        raise ConfigError(path, "drink", "needs drinks with unique keys", _FIX)
    return tuple(drinks)


def load_drinks(path: Path | str = DRINKS_FILE) -> tuple[Drink, ...]:
    """The ten drinks with costs, effects and deck copies."""
    raw = read_toml(path)
    _top(path, raw, {"drink", "copies_printed"})
    _get(path, "(top)", raw, "copies_printed", bool, default=False)
    return parse_drinks(path, raw.get("drink", []))


def copies_printed(path: Path | str = DRINKS_FILE) -> bool:
    """Whether the drinks file says its deck counts were checked against a printed deck."""
    return bool(read_toml(path).get("copies_printed", False))


def deck_problem(drinks: Sequence[Drink], players: int, private_drink: bool, rounds: int) -> str:
    """Why the box cannot deal every round from these drinks' copies, or "" when it can; two
    short lines for the screen, as a refusal is.

    "At the start of each round ... reveal 1 Drink card per player", and the private-drink tray's
    owner reveals "the top Drink card of the deck"; unbought cards are discarded, never reshuffled.
    """
    cards, needed = sum(d.copies for d in drinks), rounds * (players + private_drink)
    return "" if cards >= needed else f"Deck has {plural(cards, 'drink')},\n{needed} needed ({rounds} rounds)"


def _unchecked_trays(doc: Mapping[str, Any]) -> list[str]:
    trays = doc.get("tray")
    return [f"tray[{i}].ability" for i, tray in enumerate(trays if isinstance(trays, list) else [])
            if isinstance(tray, dict) and tray.get("printed") is not True]


def _uncounted_copies(doc: Mapping[str, Any]) -> list[str]:
    drinks = doc.get("drink")
    return [] if doc.get("copies_printed") is True else [
        f"drink[{i}].copies" for i in range(len(drinks) if isinstance(drinks, list) else 0)]


# The two files as the phone's Settings offer them (the drinks' keys, which every journal
# action names, are left as the file has them).
CARDS = (
    CardFile("trays", "Trays", TRAYS_FILE, load_trays, {
        "tray[].colour": Value(TEXT, doc="the tray's colour, as the setup screen lists it"),
        "tray[].name": Value(TEXT, doc="its name on the screen"),
        "tray[].ability": Value(TEXT, ABILITIES, "what the card of that colour does"),
        "tray[].printed": Value(FLAG, doc="true once the ability is checked against the card"),
    }, _unchecked_trays, "Which ability each tray colour has: only black's is in the rulebook."),
    CardFile("drinks", "Drinks", DRINKS_FILE, load_drinks, {
        "copies_printed": Value(FLAG, doc="true once the copies are counted from your deck"),
        "drink[].name": Value(TEXT),
        "drink[].dice": Value(NUMBER, doc="cost in dice (empty: not payable with dice)", optional=True),
        "drink[].coins": Value(NUMBER, doc="cost in coins (empty: not payable with coins)",
                               optional=True),
        "drink[].effect": Value(TEXT, EFFECTS),
        "drink[].amount": Value(NUMBER, doc="its discount, coins or pair points", optional=True),
        "drink[].faces": Value(NUMBERS, doc="the die faces it scores (a faces drink)", optional=True),
        "drink[].with": Value(TEXT, ("snack", "meal"), "what it pairs with (a pair drink)",
                              optional=True),
        "drink[].copies": Value(NUMBER, doc="its cards in the 36-card deck"),
    }, _uncounted_copies, "The drinks' costs and effects, from the rulebook, and the deck's "
       "make-up, which it does not give."),
)
