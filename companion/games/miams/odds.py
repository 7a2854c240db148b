"""Miams coach, pure: the exact chance of every skewer for every keep of the dice showing.

Given the five white dice, the red die when its token was spent, and the rerolls left, :func:`table`
works out, for each distinct keep (a multiset of the dice showing), the chance that the final dice
allow each skewer, the chance that the best skewer they allow is that one or better (rows in
sheet order, Pair to Yums), and the expected crosses left for Arthur. Chances are exact
fractions: every ordered outcome of the rerolled dice counts once. After the keep in question,
every later reroll keeps what is best for the target in question (docs/miams.md#coach). The
search itself, exact on ints, is the odds_search module's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from firmware_bridge.faces import FRUITS, RED, WHITE

from . import odds_tables
from .odds_search import (
    NO_RED,
    OVERALL,
    ROLL_RED,
    TARGETS,
    WHITE_DICE,
    Solver,
    Weights,
    code_of,
    counts_of,
    made,
    multiset_moves,
    red_options,
    size_of,
    sub_codes,
)
from .sheet import SKEWERS

MAX_REROLLS = 4          # one reroll and three tokens
SHIPPED_REROLLS = (1, 2)               # odds_tables.bin: every keep's value, no sheet


@dataclass(frozen=True)
class Keep:
    """Dice to keep, as a multiset: white faces in face order, and whether the red die is kept."""

    white: tuple[str, ...]
    red: bool = False

    def label(self, red_face: str | None = None) -> str:
        """E.g. ``fruit1 fruit1 red:marshmallow``, or ``nothing``."""
        faces = [*self.white, *([f"red:{red_face}"] if self.red and red_face else [])]
        return " ".join(faces) or "nothing"


@dataclass(frozen=True)
class Line:
    """One keep. ``available[i]``: the chance the final dice allow ``SKEWERS[i]``; ``at_least[i]``:
    that the best skewer they allow is ``SKEWERS[i]`` or a lower row; each with every later keep
    best for that chance. ``crosses`` and ``value`` (hearts minus the crosses' cost) follow the
    overall best play."""

    keep: Keep
    available: tuple[Fraction, ...]
    at_least: tuple[Fraction, ...]
    crosses: Fraction
    value: Fraction


@dataclass(frozen=True)
class Pick:
    """The best keep for a target: its chance (of the skewer; for the overall pick, of any
    skewer), expected crosses and value, with the same play afterwards."""

    keep: Keep
    chance: Fraction
    crosses: Fraction
    value: Fraction


@dataclass(frozen=True)
class Odds:
    """The whole table for one position."""

    white: tuple[str, ...]
    red: str | None
    rerolls: int
    now: tuple[str, ...]           # the skewers the dice showing allow
    lines: tuple[Line, ...]        # every distinct keep, most dice kept first
    best: dict[str, Pick]          # per skewer: the keep most likely to allow it
    overall: Pick                  # the keep with the most expected hearts less crosses

    def line(self, keep: Keep) -> Line:
        """The line of one keep (KeyError if it is not a keep of these dice)."""
        for line in self.lines:
            if line.keep == keep:
                return line
        raise KeyError(keep)


# ----- skewers ----------------------------------------------------------------------------------

def skewers_of(white: Sequence[str], red: str | None = None) -> tuple[str, ...]:
    """The skewers the dice allow, in SKEWERS order; crosses count as nothing."""
    counts = [white.count(f) + (red == f) for f in FRUITS]
    mask = made(counts, int(red == "marshmallow"))
    return tuple(s for i, s in enumerate(SKEWERS) if mask >> i & 1)



# ----- the search -------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _solver(weights: Weights | None, with_red: bool, rerolls: int) -> Solver:
    solver = Solver(weights, with_red, rerolls)
    if weights is None and rerolls in SHIPPED_REROLLS:  # the first tables a game asks for
        keys = _shipped_keys(with_red, rerolls)
        shipped = odds_tables.values(f"{with_red}/{rerolls}", solver.width, _packed_size(solver),
                                     len(keys))
        if shipped:  # else the search works them out
            solver.keeps.update(zip(keys, shipped, strict=True))
    return solver


@cache
def _shipped_keys(with_red: bool, rerolls: int) -> tuple[tuple[int, int, int], ...]:
    """The keeps shipped for one solver, in file order: every multiset of white dice kept, and
    with the red die rolled, each face kept or the die rerolled."""
    reds = (*range(len(RED)), ROLL_RED) if with_red else (NO_RED,)
    return tuple((code, red, rerolls) for code in multiset_moves().codes for red in reds)


def _packed_size(solver: Solver) -> int:
    return -(-solver.width * TARGETS // 8)


def shipped_tables() -> bytes:
    """odds_tables.bin as the search works it out (every keep's value with no sheet)."""
    solvers = {}
    for with_red in (False, True):
        for rerolls in SHIPPED_REROLLS:
            solver = Solver(None, with_red, rerolls)
            solvers[f"{with_red}/{rerolls}"] = solver.width, b"".join(
                solver.kept(*key).to_bytes(_packed_size(solver), "little")
                for key in _shipped_keys(with_red, rerolls))
    return odds_tables.pack(solvers)


def _check(white: Sequence[str], red: str | None, rerolls: int) -> None:
    if len(white) != WHITE_DICE:
        raise ValueError(f"{WHITE_DICE} white dice, not {len(white)}")
    for face in white:
        if face not in WHITE:
            raise ValueError(f"white die {face!r}: use {', '.join(WHITE)}")
    if red is not None and red not in RED:
        raise ValueError(f"red die {red!r}: use {', '.join(RED)}")
    if isinstance(rerolls, bool) or not isinstance(rerolls, int) or not 0 <= rerolls <= MAX_REROLLS:
        raise ValueError(f"rerolls left: 0 to {MAX_REROLLS}")


def _keeps(code: int, red: int, rerolls: int) -> list[tuple[int, int]]:
    """Every distinct keep (white multiset, red kept or rerolled), most dice kept first; with no
    reroll left, only all the dice."""
    if not rerolls:
        return [(code, red)]
    keeps = [(sub, kept) for sub in sub_codes(code) for kept in red_options(red)]
    return sorted(keeps, key=lambda k: -size_of(k[0]) - (0 <= k[1] < ROLL_RED))


def table(white: Sequence[str], red: str | None = None, rerolls: int = 1,
          weights: Weights | None = None) -> Odds:
    """Every keep's odds for five white dice (WHITE faces), the red die's face (RED; None when it
    is not rolled) and the rerolls left; ValueError names a bad input."""
    _check(white, red, rerolls)
    solver = _solver(weights, red is not None, rerolls)
    code = code_of([list(white).count(f) for f in WHITE])
    red_index = NO_RED if red is None else RED.index(red)
    lines, records = [], []
    for sub, kept in _keeps(code, red_index, rerolls):
        counts = counts_of(sub)
        keep = Keep(tuple(f for f, c in zip(WHITE, counts, strict=True) for _ in range(c)),
                    0 <= kept < ROLL_RED)
        packed = solver.kept(sub, kept, rerolls) if rerolls else solver.leaf(code, red_index)
        records.append(packed)
        value, _chance, crosses = solver.field(packed, OVERALL)
        lines.append(Line(keep, solver.chances(packed, range(len(SKEWERS))),
                          solver.chances(packed, range(len(SKEWERS), OVERALL)), crosses, value))
    # a target's largest int is its best keep; on an exact tie the first, with the most dice kept
    picks = []
    for t in (*range(len(SKEWERS)), OVERALL):
        shift = solver.width * t
        at = max(range(len(records)), key=lambda i: records[i] >> shift & solver.mask)
        goal, chance, crosses = solver.field(records[at], t)
        picks.append(Pick(lines[at].keep, chance, crosses, goal))
    return Odds(tuple(white), red, rerolls, skewers_of(white, red), tuple(lines),
                dict(zip(SKEWERS, picks[:-1], strict=True)), picks[-1])


def keep_marks(white: Sequence[str], keep: Keep) -> tuple[bool, ...]:
    """Which of the white dice showing to keep, in their order (the first of equal faces)."""
    wanted = list(keep.white)
    marks = []
    for face in white:
        marks.append(face in wanted)
        if face in wanted:
            wanted.remove(face)
    return tuple(marks)


def percent(chance: Fraction) -> str:
    """A chance as the screen and the command line show it: ``83.3%``, ``<0.1%`` for a sliver."""
    if 0 < chance < Fraction(1, 2000):
        return "<0.1%"
    return f"{float(chance) * 100:.1f}%"


if __name__ == "__main__":
    odds_tables.PATH.write_bytes(shipped_tables())
    print(f"wrote {odds_tables.PATH} ({odds_tables.PATH.stat().st_size:,} bytes)")
