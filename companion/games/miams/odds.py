"""Miams coach, pure: the exact chance of every skewer for every keep of the dice showing.

Given the five white dice, the red die when its token was spent, and the rerolls left, :func:`table`
works out, for each distinct keep (a multiset of the dice showing), the chance that the final dice
allow each skewer, the chance that the best skewer they allow is that one or better (rows in
sheet order, Pair to Yums), and the expected crosses left for Arthur. Chances are exact
fractions: every ordered outcome of the rerolled dice counts once. After the keep in question,
every later reroll keeps what is best for the target in question (docs/miams.md#coach).

With ``D`` dice and ``R`` rerolls every chance is a whole number over ``6 ** (D * R)``, so the
search runs on ints. For each target it carries one int, ``(goal * B + chance) * B + fewer``
(``fewer``: white dice that are not crosses), whose largest value is the best keep, on a tie
the one with the better chance, then the fewer crosses; sums and maxima of these stay exact.
The 13 targets' ints are packed side by side into one int, so a reroll's outcomes are summed
once for all of them, and each target's larger of two is taken for all of them at once too.

A reroll is worked out whole, from the last one up, on the 462 multisets of 0 to 5 white dice:
a keep's sum over the outcomes of its ``n`` rerolled dice is the sum of six keeps with one die
more (one die rolled, then ``n - 1``), and the best keep of five dice showing is the best of
keeping all five or the best keep of five less one die of each face. Each multiset costs six
additions and a few maxima, not a sum over every outcome (docs/benchmarks.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from firmware_bridge.faces import FRUITS, RED, WHITE

from . import odds_tables
from .sheet import SKEWERS

PAIR, THREE, FULL, FOUR, STRAIGHT, YUMS = range(len(SKEWERS))
WHITE_DICE = 5
MAX_REROLLS = 4          # one reroll and three tokens
MAX_HEARTS = 50
# With no sheet entered, the overall best keep weighs the rows by their place, Pair 1 to Yums 6.
RANKS = tuple(range(1, len(SKEWERS) + 1))
CROSS = WHITE.index("cross")           # the white die's sixth face
WILD = RED.index("marshmallow")        # the red die's sixth face
NO_RED = -1                            # the red die is not in the roll
ROLL_RED = len(RED)                    # the red die is rerolled
DIGIT = 3                              # bits per face count in a white multiset code (counts 0..5)
TARGETS = 2 * len(SKEWERS) + 1         # each skewer available, each "or better", the overall value
OVERALL = TARGETS - 1
SHIPPED_REROLLS = (1, 2)               # odds_tables.bin: every keep's value, no sheet


@dataclass(frozen=True)
class Weights:
    """The player's sheet: the hearts of the next free space of each row (in SKEWERS order) and
    what one cross given to Arthur costs, in hearts."""

    hearts: tuple[int, ...]
    cross_cost: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        if len(self.hearts) != len(SKEWERS) or not all(
                type(h) is int and 0 <= h <= MAX_HEARTS for h in self.hearts):
            raise ValueError(f"hearts: one whole number 0-{MAX_HEARTS} per row, {len(SKEWERS)} rows")
        try:
            cost = Fraction(self.cross_cost)
        except (TypeError, ValueError):
            cost = Fraction(-1)
        if not 0 <= cost <= MAX_HEARTS:
            raise ValueError(f"cross cost: a number of hearts from 0 to {MAX_HEARTS}")
        object.__setattr__(self, "cross_cost", cost)


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

def made(counts: Sequence[int], wild: int = 0) -> int:
    """Bit mask (bit i = SKEWERS[i]) of the skewers allowed by ``counts`` (dice per fruit, in
    FRUITS order) and ``wild`` marshmallows; any five of the dice make a skewer."""
    top, second = sorted(counts, reverse=True)[:2]
    mask = 0
    for skewer, same in ((PAIR, 2), (THREE, 3), (FOUR, 4), (YUMS, 5)):
        if top + wild >= same:
            mask |= 1 << skewer
    # three of one fruit and two of another, the wild joining either group
    if (top + wild >= 3 and second >= 2) or (top >= 3 and second + wild >= 2):
        mask |= 1 << FULL
    if sum(c > 0 for c in counts) + wild >= len(FRUITS):
        mask |= 1 << STRAIGHT
    return mask


def skewers_of(white: Sequence[str], red: str | None = None) -> tuple[str, ...]:
    """The skewers the dice allow, in SKEWERS order; crosses count as nothing."""
    counts = [white.count(f) + (red == f) for f in FRUITS]
    mask = made(counts, int(red == "marshmallow"))
    return tuple(s for i, s in enumerate(SKEWERS) if mask >> i & 1)


# ----- multisets of white dice as ints: a DIGIT-bit count per face, so adding dice is adding ----

def _code(counts: Sequence[int]) -> int:
    return sum(c << (DIGIT * i) for i, c in enumerate(counts))


def _counts(code: int) -> tuple[int, ...]:
    return tuple(code >> (DIGIT * i) & 7 for i in range(len(WHITE)))


def _multisets(n: int, faces: int = len(WHITE)) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``n`` dice over ``faces`` faces, as counts."""
    if faces == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _multisets(n - first, faces - 1):
            yield (first, *rest)


FACE_CODES = tuple(1 << (DIGIT * face) for face in range(len(WHITE)))  # one die of each face


@dataclass(frozen=True)
class _Multisets:
    """Every multiset of 0 to 5 white dice, fewest dice first, with the moves between them as
    list positions: the search's arrays are indexed by these."""

    codes: tuple[int, ...]
    at: dict[int, int]                          # a code's position
    grown: tuple[tuple[int, ...], ...]          # the multiset and one die more, of each face
    less: tuple[tuple[int, ...], ...]           # the multiset less one die, of each face it holds
    rolled: tuple[int, ...]                     # white dice not in the multiset
    full: int                                   # the first multiset of all five dice


@cache
def _multiset_moves() -> _Multisets:
    codes = tuple(_code(counts) for n in range(WHITE_DICE + 1) for counts in _multisets(n))
    at = {code: i for i, code in enumerate(codes)}
    sizes = [sum(_counts(code)) for code in codes]
    return _Multisets(
        codes, at,
        tuple(tuple(at[code + one] for one in FACE_CODES) if size < WHITE_DICE else ()
              for code, size in zip(codes, sizes, strict=True)),
        tuple(tuple(at[code - one] for one in FACE_CODES if code & (7 * one)) for code in codes),
        tuple(WHITE_DICE - size for size in sizes), sizes.index(WHITE_DICE))


@cache
def _sub_codes(code: int) -> tuple[int, ...]:
    """Every sub-multiset of a white multiset: most dice first, then more of the first faces."""
    subs = itertools.product(*(range(c, -1, -1) for c in _counts(code)))
    return tuple(_code(c) for c in sorted(subs, key=lambda c: -sum(c)))   # a stable sort


# ----- the search -------------------------------------------------------------------------------

class _Solver:
    """The values of one sheet, one set of dice (with or without red) and one reroll count,
    worked out a whole reroll at a time, from the last up.

    ``kept(white, red, r)``: the packed ints of keeping the white multiset ``white`` and the
    red die as ``red`` (a face, rerolled, or not rolled) with ``r`` rerolls left, scaled by
    ``6 ** (D * r)``. It does not depend on the position the table is asked for.
    """

    def __init__(self, weights: Weights | None, with_red: bool, rerolls: int) -> None:
        self.dice = WHITE_DICE + with_red
        self.scale = 6 ** (self.dice * rerolls)
        cost = weights.cross_cost if weights else Fraction(0)
        self.cost = cost
        self.per = cost.denominator                      # goals in 1/per hearts, to stay whole
        self.hearts = weights.hearts if weights else RANKS
        # with a sheet, each skewer is worth its hearts; without, only its chance counts
        self.aims = tuple(h * self.per for h in weights.hearts) if weights else (1,) * len(SKEWERS)
        self.charge = cost.numerator                     # goal per white die that is not a cross
        most_goal = max(*self.aims, max(self.hearts) * self.per) + self.charge * WHITE_DICE
        self.base = 8 * self.scale                       # above any scaled chance or fewer-crosses
        self.width = ((most_goal + 1) * self.scale * self.base ** 2).bit_length() + 1
        self.mask = (1 << self.width) - 1
        # each target's top bit: always clear in a value (the width has one bit to spare)
        self.tops = sum(1 << (self.width * t + self.width - 1) for t in range(TARGETS))
        self.reds = range(len(RED)) if with_red else (NO_RED,)
        self.signatures: dict[tuple[int, int], int] = {}
        self.keeps: dict[tuple[int, int, int], int] = {}          # shipped values
        self.kept_lists: dict[tuple[int, int], list[int]] = {}
        self.final_lists: dict[tuple[int, int], list[int]] = {}
        self.best_lists: dict[tuple[int, int], list[int]] = {}

    def leaf(self, white: int, red: int) -> int:
        """The packed ints of final dice."""
        signature = _final(white, red)
        found = self.signatures.get(signature)
        if found is None:
            found = self.signatures[signature] = self.signature_leaf(*signature)
        return found

    def signature_leaf(self, mask: int, fewer: int) -> int:
        """The packed ints of final dice that allow the skewers in ``mask``, with ``fewer`` white
        dice that are not crosses (many final dice share these)."""
        best = mask.bit_length() - 1                     # -1: no skewer
        base, charge = self.base, self.charge
        goals = [((self.aims[s] * (mask >> s & 1) + charge * fewer) * base + (mask >> s & 1)) * base
                 + fewer for s in range(len(SKEWERS))]
        goals += [((best >= s) * base + (best >= s)) * base + fewer for s in range(len(SKEWERS))]
        hearts = max((self.hearts[s] for s in range(len(SKEWERS)) if mask >> s & 1), default=0)
        goals.append(((hearts * self.per + charge * fewer) * base + (mask > 0)) * base + fewer)
        return sum(g << (self.width * t) for t, g in enumerate(goals))

    def kept(self, white: int, red: int, rerolls: int) -> int:
        found = self.keeps.get((white, red, rerolls))
        if found is None:
            found = self.kept_list(red, rerolls)[_multiset_moves().at[white]]
        return found

    def kept_list(self, red: int, rerolls: int) -> list[int]:
        """``kept`` of every multiset (in ``_Multisets`` order) for one state of the red die.

        A keep's value is the sum over every ordered outcome of the dice rerolled of the value
        after them, worked out one die at a time: rolling ``n`` dice is rolling one, then the
        other ``n - 1``; so each multiset sums six others, from the five dice kept down."""
        found = self.kept_lists.get((red, rerolls))
        if found is None:
            moves = _multiset_moves()
            if red == ROLL_RED:
                ends = [sum(faces) for faces in zip(*(self.final_list(face, rerolls - 1)
                                                      for face in self.reds), strict=True)]
            else:
                ends = self.final_list(red, rerolls - 1)
            sums = [0] * moves.full + ends
            for at in range(moves.full - 1, -1, -1):   # the search's inner loop: one die each face
                a, b, c, d, e, f = moves.grown[at]
                sums[at] = sums[a] + sums[b] + sums[c] + sums[d] + sums[e] + sums[f]
            # the outcomes are 6 ** rolled of the 6 ** dice each value is scaled by
            times = [6 ** (self.dice - rolled - (red == ROLL_RED)) for rolled in range(WHITE_DICE + 1)]
            found = [total * times[rolled] for total, rolled in zip(sums, moves.rolled, strict=True)]
            self.kept_lists[red, rerolls] = found
        return found

    def final_list(self, red: int, rerolls: int) -> list[int]:
        """The value of each five white dice showing (in ``_Multisets`` order from ``full``)
        with the red die's face ``red``: with no reroll left, the dice's own; else each
        target's best keep, the red die kept or rerolled."""
        found = self.final_lists.get((red, rerolls))
        if found is None:
            full = _multiset_moves().full
            if rerolls == 0:
                found = [self.leaf(code, red) for code in _multiset_moves().codes[full:]]
            else:
                found = self.best_list(red, rerolls)[full:]
                if red != NO_RED:
                    found = list(map(self.larger, found, self.best_list(ROLL_RED, rerolls)[full:]))
            self.final_lists[red, rerolls] = found
        return found

    def best_list(self, red: int, rerolls: int) -> list[int]:
        """Each target's best ``kept`` over the sub-multisets of each multiset: its own, or the
        best of it less one die (fewest dice first, so those are known)."""
        best = self.best_lists.get((red, rerolls))
        if best is None:
            best = list(self.kept_list(red, rerolls))
            tops, shift = self.tops, self.width - 1
            for at, less in enumerate(_multiset_moves().less):
                value = best[at]
                for smaller in less:          # self.larger, inline: the search's inner loop
                    other = best[smaller]
                    wins = ((value | tops) - other) & tops
                    wins -= wins >> shift
                    value = other ^ ((value ^ other) & wins)
                best[at] = value
            self.best_lists[red, rerolls] = best
        return best

    def larger(self, a: int, b: int) -> int:
        """Each target's larger field of ``a`` and ``b``, all targets at once: with its top bit
        set in ``a``, subtracting ``b`` borrows within a field alone, and the bit survives where
        ``a``'s field is the larger or equal; it becomes that field's mask."""
        tops = self.tops
        wins = ((a | tops) - b) & tops
        wins -= wins >> (self.width - 1)
        return b ^ ((a ^ b) & wins)

    def field(self, packed: int, target: int) -> tuple[Fraction, Fraction, Fraction]:
        """(goal in hearts, chance, expected crosses) of one target of a packed value at the top."""
        goal, rest = divmod(packed >> (self.width * target) & self.mask, self.base ** 2)
        chance, fewer = divmod(rest, self.base)
        return (Fraction(goal, self.scale * self.per) - WHITE_DICE * self.cost,
                Fraction(chance, self.scale), WHITE_DICE - Fraction(fewer, self.scale))

    def chances(self, packed: int, targets: range) -> tuple[Fraction, ...]:
        """The chance alone of each of ``targets`` (a table's lines show no more of them)."""
        width, mask, base, square = self.width, self.mask, self.base, self.base ** 2
        return tuple(Fraction((packed >> (width * t) & mask) % square // base, self.scale)
                     for t in targets)


@cache
def _final(white: int, red: int) -> tuple[int, int]:
    """The skewers mask of final dice (white multiset code, red face or NO_RED) and their white
    dice that are not crosses."""
    counts = list(_counts(white))
    crosses = counts.pop(CROSS)
    if 0 <= red < WILD:
        counts[red] += 1
    return made(counts, int(red == WILD)), WHITE_DICE - crosses


@cache
def _size(white: int) -> int:
    return sum(_counts(white))


def _red_options(red: int) -> tuple[int, ...]:
    """What may be done with the red die: keep or reroll it, or nothing when it is not rolled."""
    return (NO_RED,) if red == NO_RED else (red, ROLL_RED)


@lru_cache(maxsize=8)
def _solver(weights: Weights | None, with_red: bool, rerolls: int) -> _Solver:
    solver = _Solver(weights, with_red, rerolls)
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
    return tuple((code, red, rerolls) for code in _multiset_moves().codes for red in reds)


def _packed_size(solver: _Solver) -> int:
    return -(-solver.width * TARGETS // 8)


def shipped_tables() -> bytes:
    """odds_tables.bin as the search works it out (every keep's value with no sheet)."""
    solvers = {}
    for with_red in (False, True):
        for rerolls in SHIPPED_REROLLS:
            solver = _Solver(None, with_red, rerolls)
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
    keeps = [(sub, kept) for sub in _sub_codes(code) for kept in _red_options(red)]
    return sorted(keeps, key=lambda k: -_size(k[0]) - (0 <= k[1] < ROLL_RED))


def table(white: Sequence[str], red: str | None = None, rerolls: int = 1,
          weights: Weights | None = None) -> Odds:
    """Every keep's odds for five white dice (WHITE faces), the red die's face (RED; None when it
    is not rolled) and the rerolls left; ValueError names a bad input."""
    _check(white, red, rerolls)
    solver = _solver(weights, red is not None, rerolls)
    code = _code([list(white).count(f) for f in WHITE])
    red_index = NO_RED if red is None else RED.index(red)
    lines, records = [], []
    for sub, kept in _keeps(code, red_index, rerolls):
        counts = _counts(sub)
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
