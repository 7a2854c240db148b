"""Miams score sheets and the solo tile as data: the model, TOML loading and validation.

The printed heart values, bonus icons, catch-up spaces and the solo tile are not in the
rulebook text ("the bonuses are different on each score sheet"), so they live in TOML files a
player can copy from their own sheet. A bad file raises :class:`companion.contract.config.ConfigError`
(file, key, problem and fix), as every data file of the box does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

from companion.contract.config import ConfigError, read_toml, shown, whole_number
from firmware_bridge.faces import FRUITS, RED

# The six skewer rows, top to bottom as the rulebook lists them.
SKEWERS: tuple[str, ...] = ("pair", "three", "full_house", "four", "straight", "yums")
SKEWER_NAMES: dict[str, str] = {
    "pair": "Pair", "three": "Three of a kind", "full_house": "Full house",
    "four": "Four of a kind", "straight": "Straight", "yums": "Yums",
}
# Names that fit one screen line with "space N".
SKEWER_SHORT: dict[str, str] = {
    **SKEWER_NAMES, "three": "3 of a kind", "four": "4 of a kind",
}
HEARTS_TRACK = 50        # "filled all 50 Hearts of their Hearts track"
# "You also gain 3 stars for crossing or circling all the spaces in the first column."
FIRST_COLUMN_STARS = 3
MAX_SPACES = 12          # more would not fit the grid; no printed row is that long
MAX_NAME = 12            # fruit display names are shown in one SMALL line with the skewer

DATA_DIR = Path(__file__).parent
DEFAULT_SHEET = DATA_DIR / "sheets" / "default.toml"
DEFAULT_TILE = DATA_DIR / "tiles" / "default.toml"


FIX = "correct it as docs/miams.md shows, or leave [games.miams] empty for the stand-in"


def _bad(path: str, key: str, problem: str) -> ConfigError:
    """A mistake in a sheet or tile file, as the box's shared error type (file, key, problem, fix)."""
    return ConfigError(path, key, problem, FIX)


@dataclass(frozen=True)
class Bonus:
    """The token icon printed below a space: red die tokens, reroll tokens and stars."""

    red: int = 0
    reroll: int = 0
    stars: int = 0

    @property
    def tokens(self) -> int:
        """Red die plus reroll tokens: each makes Arthur cross a space."""
        return self.red + self.reroll

    def label(self) -> str:
        """Short text for the screen, e.g. ``★★`` or ``red die``; empty for no bonus."""
        parts = []
        if self.stars:
            parts.append("★" * self.stars if self.stars <= 3 else f"{self.stars}★")
        parts += ["red die"] * self.red + ["reroll"] * self.reroll
        return " ".join(parts)

    def to_text(self) -> str:
        """The file spelling: ``""``, ``"red"``, ``"reroll"`` or ``"stars:N"``."""
        parts = ["red"] * self.red + ["reroll"] * self.reroll
        if self.stars:
            parts.append(f"stars:{self.stars}")
        return "+".join(parts)


CIRCLE, CROSS = "o", "x"
# A player's marks are two ints, so marking a space is an addition: ``counts``, the count of
# marked spaces of row r in the 4 bits from 4 * r, and ``crossed``, bit MAX_SPACES * r + s set
# when space s of row r is crossed rather than circled. Every choice of a turn reads the counts
# alone, which in 24 bits stay one digit of a Python int: cheap to shift and mask.
COUNT_BITS = 4
COUNT = (1 << COUNT_BITS) - 1
_LOW_THREE = 7 * sum(1 << (COUNT_BITS * r) for r in range(len(SKEWERS)))   # each count's low 3 bits
_TOP_BITS = 8 * sum(1 << (COUNT_BITS * r) for r in range(len(SKEWERS)))    # each count's top bit


# Where the next mark of a row goes, as one small int, its "spot": the row and how many of its
# spaces are marked. Sheet.steps is indexed by spots, and the choices below give one, so marking
# the chosen space reads no count from the marks.
SPOT_BITS = 3 + COUNT_BITS
SPOT = (1 << SPOT_BITS) - 1


def spot(row: int, marked: int) -> int:
    """The spot of the leftmost free space of ``row`` when ``marked`` of its spaces are marked."""
    return row << COUNT_BITS | marked


# A choice that depends only on the rows' counts (the least advanced row, the player model's
# cheapest or richest space) is read from two tables rather than worked out row by row: one
# indexed by the counts of the top three rows (the low HALF_BITS bits of the counts), one by
# those of the bottom three (the bits above); the answer is the better of the two entries. An
# entry is a sort key with the chosen row's spot in its low SPOT_BITS bits.
HALF_ROWS = 3
HALF_BITS = COUNT_BITS * HALF_ROWS
HALF = (1 << HALF_BITS) - 1
NO_SPOT = 1 << (2 * SPOT_BITS)  # the key of "no row" for a choice of the smallest key: above all
# Which row "the highest least advanced skewer" takes on a tie (docs/rulings.md): the highest on
# the sheet (Pair first) or the lowest.
TIES = ("top", "bottom")


def half_table(sizes: tuple[int, ...], first: int, key: Callable[[int, int], int],
               better: Callable[[int, int], int], nothing: int) -> tuple[int, ...]:
    """``better`` of ``key(row, marked)`` over rows ``first`` to ``first + 2``, for every
    combination of their counts, indexed by those counts as in ``counts``; ``nothing`` elsewhere.
    ``key`` gives ``nothing`` for a row that is not a candidate."""
    table = [nothing] * (1 << HALF_BITS)
    a, b, c = range(first, first + HALF_ROWS)
    for marked_a in range(sizes[a] + 1):
        key_a = key(a, marked_a)
        for marked_b in range(sizes[b] + 1):
            key_ab = better(key_a, key(b, marked_b))
            index_ab = marked_a | marked_b << COUNT_BITS
            for marked_c in range(sizes[c] + 1):
                table[index_ab | marked_c << 2 * COUNT_BITS] = better(key_ab, key(c, marked_c))
    return tuple(table)


def mark_bits(row: int, space: int, how: str) -> tuple[int, int]:
    """What marking ``space`` of ``row`` with ``how`` adds to the counts and to the crossed bits."""
    crossed = 1 << (MAX_SPACES * row + space) if how == CROSS else 0
    return 1 << (COUNT_BITS * row), crossed


def count(counts: int, row: int) -> int:
    """The number of marked spaces of ``row``."""
    return counts >> (COUNT_BITS * row) & COUNT


def every_row_started(counts: int) -> bool:
    """True when every row has at least one marked space (the whole first column is marked)."""
    # A count's top bit is set from 8 on; adding 7 to its low three bits sets it from 1 on,
    # without a carry into the next count.
    return ((counts & _LOW_THREE) + _LOW_THREE | counts) & _TOP_BITS == _TOP_BITS


def pack_rows(rows: tuple[str, ...]) -> tuple[int, int]:
    """The counts and crossed bits of per-row mark strings ("o" circled, "x" crossed, from the
    left)."""
    if len(rows) > len(SKEWERS):
        raise ValueError(f"at most {len(SKEWERS)} rows")
    counts = crossed = 0
    for row, marks in enumerate(rows):
        if len(marks) > MAX_SPACES or not set(marks) <= {CIRCLE, CROSS}:
            raise ValueError(f"row {row}: {marks!r} is not up to {MAX_SPACES} o/x marks")
        for space, how in enumerate(marks):
            counted, crossed_bit = mark_bits(row, space, how)
            counts += counted
            crossed |= crossed_bit
    return counts, crossed


def unpack_rows(counts: int, crossed: int) -> tuple[str, ...]:
    """The six rows' mark strings of counts and crossed bits."""
    return tuple(
        "".join(CROSS if crossed >> (MAX_SPACES * row + space) & 1 else CIRCLE
                for space in range(count(counts, row)))
        for row in range(len(SKEWERS))
    )


class Mark(NamedTuple):
    """One space marked on a sheet and what it gave."""

    row: int
    space: int      # 0-based; -1 when the row was full and the end-of-row value scored
    how: str        # CIRCLE or CROSS
    hearts: int     # hearts filled on the track
    stars: int      # stars: the bonus icon, hearts past 50, the first column
    tokens: int     # red die and reroll tokens, discarded at once: one cross each


@dataclass(frozen=True)
class Row:
    """One skewer row: spaces left to right (hearts and bonus) and the end-of-row value."""

    skewer: str
    hearts: tuple[int, ...]
    bonuses: tuple[Bonus, ...]
    end: int


# Marking the leftmost free space of a row: (the mark as it is when no heart overflows the track,
# no bonus is withheld and the first column gives nothing; what it adds to the counts and to the
# crossed bits (both 0 for the end-of-row value); the most hearts a side may have for that mark
# to be the usual one (every heart fits and the space is not in the first column, else -1); and
# the mark's hearts and stars again). A plain tuple: unpacked faster than a NamedTuple.
Step = tuple[Mark, int, int, int, int, int]


@dataclass(frozen=True)
class Sheet:
    """A whole score sheet layout."""

    name: str
    stand_in: bool
    rows: tuple[Row, ...]           # in SKEWERS order
    catch_up: tuple[Bonus, ...]
    # Flat lookups for the rules' hot path (the simulator marks millions of spaces), worked out
    # once here: plain attributes are read faster than cached properties.
    sizes: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """Spaces per row."""
    values: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    """Per row, the hearts of each space followed by the end-of-row value."""
    steps: dict[str, tuple[Step | None, ...]] = field(init=False, repr=False, compare=False)
    """``steps[how][spot(row, marked)]``: marking the leftmost free space of ``row`` with
    ``marked`` spaces marked, with a circle "o" or a cross "x"; for a full row, the end-of-row
    value with a circle and None with a cross."""
    least_advanced: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = field(
        init=False, repr=False, compare=False)
    """``least_advanced[tie]``: the half tables (see HALF_BITS) of the row with the fewest marks
    among rows with a free space, the highest or lowest on a tie; ``NO_SPOT`` for none."""

    def __post_init__(self) -> None:
        sizes = tuple(len(row.hearts) for row in self.rows)
        steps: dict[str, list[Step | None]] = {how: [None] * (len(SKEWERS) << COUNT_BITS)
                                               for how in (CIRCLE, CROSS)}
        for r, row in enumerate(self.rows):
            for space, (hearts, bonus) in enumerate(zip(row.hearts, row.bonuses, strict=True)):
                for how, value in ((CIRCLE, hearts), (CROSS, 0)):
                    made = Mark(r, space, how, value, bonus.stars, bonus.tokens)
                    most_hearts = HEARTS_TRACK - value if space else -1
                    counted, crossed = mark_bits(r, space, how)
                    steps[how][spot(r, space)] = made, counted, crossed, most_hearts, value, bonus.stars
            end = Mark(r, -1, CIRCLE, row.end, 0, 0)
            steps[CIRCLE][spot(r, sizes[r])] = end, 0, 0, HEARTS_TRACK - row.end, row.end, 0

        def fewest_marks(tie: str) -> Callable[[int, int], int]:
            def key(row: int, marked: int) -> int:
                if marked == sizes[row]:
                    return NO_SPOT
                rank = row if tie == "top" else len(SKEWERS) - 1 - row
                return (marked << 3 | rank) << SPOT_BITS | spot(row, marked)
            return key

        derived = {
            "sizes": sizes,
            "values": tuple((*row.hearts, row.end) for row in self.rows),
            "steps": {how: tuple(table) for how, table in steps.items()},
            "least_advanced": {
                tie: tuple(half_table(sizes, first, fewest_marks(tie), min, NO_SPOT)
                           for first in (0, HALF_ROWS))
                for tie in TIES
            },
        }
        for name, table in derived.items():
            object.__setattr__(self, name, table)  # frozen: set once, at construction

    def to_data(self) -> dict[str, Any]:
        """The sheet in file form (what the setup action carries, so replays never read files)."""
        return {
            "name": self.name, "stand_in": self.stand_in,
            "catch_up": [b.to_text() for b in self.catch_up],
            "rows": {
                row.skewer: {"hearts": list(row.hearts), "bonus": [b.to_text() for b in row.bonuses],
                             "end": row.end}
                for row in self.rows
            },
        }


@dataclass(frozen=True)
class Tile:
    """The solo mini-board: which skewer each red-die face scores, and the fruits' names."""

    name: str
    stand_in: bool
    skewer_of: Mapping[str, int]    # red face -> row index
    names: Mapping[str, str]        # red face -> display name

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name, "stand_in": self.stand_in,
            "faces": {face: SKEWERS[row] for face, row in self.skewer_of.items()},
            "names": dict(self.names),
        }


# ----- validation helpers ---------------------------------------------------------------------

def _table(data: Any, path: str, key: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _bad(path, key, "must be a table")
    return data


def _known(data: Mapping[str, Any], allowed: tuple[str, ...], path: str, where: str) -> None:
    for key in data:
        if key not in allowed:
            raise _bad(path, f"{where}{key}", f"unknown key; known keys: {', '.join(allowed)}")


def _text(value: Any, path: str, key: str, longest: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _bad(path, key, f"expected a non-empty string, got {shown(value)}")
    if len(value) > longest:
        raise _bad(path, key, f"{shown(value)} is longer than {longest} characters")
    return value


def _bool(value: Any, path: str, key: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(path, key, f"expected true or false, got {shown(value)}")
    return value


def parse_bonus(text: Any, path: str = "<sheet>", key: str = "bonus") -> Bonus:
    """``""``, ``"red"``, ``"reroll"``, ``"stars:N"``, or several joined with ``+``."""
    if not isinstance(text, str):
        raise _bad(path, key, f'expected "", "red", "reroll" or "stars:N", got {shown(text)}')
    red = reroll = stars = 0
    for part in filter(None, (p.strip() for p in text.split("+"))):
        if part == "red":
            red += 1
        elif part == "reroll":
            reroll += 1
        elif part.startswith("stars:"):
            stars += whole_number(part[6:], path, key, 1, 20, in_text=True)
        else:
            raise _bad(path, key, f'{shown(part)}: use "", "red", "reroll" or "stars:N" (N 1..20)')
    return Bonus(red, reroll, stars)


def _list(value: Any, path: str, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise _bad(path, key, f"expected a list, got {shown(value)}")
    return value


# ----- sheets -----------------------------------------------------------------------------------

def sheet_from_data(data: Any, path: str = "<sheet>") -> Sheet:
    """Validate a sheet document (parsed TOML or a setup action's copy)."""
    data = _table(data, path, "(top)")
    _known(data, ("name", "stand_in", "note", "catch_up", "rows"), path, "")
    if "name" not in data:
        raise _bad(path, "name", "missing; give the sheet a short name")
    name = _text(data["name"], path, "name", 20)
    stand_in = _bool(data.get("stand_in", False), path, "stand_in")
    catch_up = tuple(
        parse_bonus(b, path, f"catch_up[{i}]")
        for i, b in enumerate(_list(data.get("catch_up", []), path, "catch_up"))
    )
    if len(catch_up) > MAX_SPACES:
        raise _bad(path, "catch_up", f"at most {MAX_SPACES} catch-up spaces")
    rows_data = _table(data.get("rows"), path, "rows")
    _known(rows_data, SKEWERS, path, "rows.")
    rows = []
    for skewer in SKEWERS:
        where = f"rows.{skewer}"
        if skewer not in rows_data:
            raise _bad(path, where, "missing; every sheet has all six skewer rows")
        row = _table(rows_data[skewer], path, where)
        _known(row, ("hearts", "bonus", "end"), path, f"{where}.")
        if "hearts" not in row or "end" not in row:
            raise _bad(path, where, "needs hearts = [...] and end = N")
        hearts = _list(row["hearts"], path, f"{where}.hearts")
        if not 1 <= len(hearts) <= MAX_SPACES:
            raise _bad(path, f"{where}.hearts", f"a row has 1 to {MAX_SPACES} spaces")
        hearts_t = tuple(whole_number(h, path, f"{where}.hearts[{i}]", 0, 50) for i, h in enumerate(hearts))
        bonus = _list(row.get("bonus", [""] * len(hearts)), path, f"{where}.bonus")
        if len(bonus) != len(hearts):
            raise _bad(path, f"{where}.bonus",
                             f"has {len(bonus)} entries but hearts has {len(hearts)}; one per space")
        bonuses = tuple(parse_bonus(b, path, f"{where}.bonus[{i}]") for i, b in enumerate(bonus))
        # at least 1, so every turn of Arthur's fills a heart and the game always ends
        end = whole_number(row["end"], path, f"{where}.end", 1, 50)
        rows.append(Row(skewer, hearts_t, bonuses, end))
    return Sheet(name, stand_in, tuple(rows), catch_up)


def load_sheet(path: Path | str = DEFAULT_SHEET) -> Sheet:
    """Read and validate a sheet file."""
    with _fix_for("sheet", path):
        return sheet_from_data(read_toml(path), str(path))


# ----- the solo tile ----------------------------------------------------------------------------

def tile_from_data(data: Any, path: str = "<tile>") -> Tile:
    """Validate a tile document: every red-die face maps to one of the six skewers."""
    data = _table(data, path, "(top)")
    _known(data, ("name", "stand_in", "note", "faces", "names"), path, "")
    name = _text(data.get("name", "Solo tile"), path, "name", 20)
    stand_in = _bool(data.get("stand_in", False), path, "stand_in")
    faces = _table(data.get("faces"), path, "faces")
    _known(faces, RED, path, "faces.")
    skewer_of = {}
    for face in RED:
        if face not in faces:
            raise _bad(path, f"faces.{face}", "missing; the tile maps all six red-die faces")
        skewer = faces[face]
        if skewer not in SKEWERS:
            raise _bad(path, f"faces.{face}", f"{shown(skewer)} is not one of {', '.join(SKEWERS)}")
        skewer_of[face] = SKEWERS.index(skewer)
    names_data = _table(data.get("names", {}), path, "names")
    _known(names_data, RED, path, "names.")
    names = {face: _text(names_data.get(face, unnamed(face)), path, f"names.{face}", MAX_NAME)
             for face in RED}
    # read-only views: a Tile is shared by every state of a game, drafts included
    return Tile(name, stand_in, MappingProxyType(skewer_of), MappingProxyType(names))


def unnamed(face: str) -> str:
    """A red-die face the tile file does not name: the marshmallow by the rulebook's word, a
    fruit as a stand-in with its number ("Stand-in 3"), never as a fruit it may not be."""
    return "Marshmallow" if face == "marshmallow" else f"Stand-in {FRUITS.index(face) + 1}"


def load_tile(path: Path | str = DEFAULT_TILE) -> Tile:
    """Read and validate a tile file."""
    with _fix_for("tile", path):
        return tile_from_data(read_toml(path), str(path))


@contextmanager
def _fix_for(key: str, path: Path | str) -> Iterator[None]:
    """A file's error with the fix that names its [games.miams] key (and the stand-in); any other
    error of a bad file too, so a caller that catches ConfigError leaves the file off its list."""
    fix = f'correct the file (docs/miams.md), or set [games.miams] {key} = "" for the stand-in'
    try:
        yield
    except ConfigError as exc:
        raise ConfigError(exc.path, exc.key, exc.problem, fix) from None
    except Exception as exc:  # a check this module lacks: still the file's error, never a crash
        raise ConfigError(path, "(file)", f"not a valid {key} ({' '.join(str(exc).split())[:80]})",
                          fix) from None


def sheet_files(folder: Path | str) -> list[Path]:
    """The ``*.toml`` sheet files in a folder, sorted; none if the folder does not exist."""
    if not str(folder) or not Path(folder).is_dir():
        return []
    return sorted(Path(folder).glob("*.toml"))
