"""Miams coach's exact search, pure: the packed value of every keep for one sheet, one set of dice
and one reroll count (the odds module turns them into a table).

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
from functools import cache

from firmware_bridge.faces import FRUITS, RED, WHITE

from .sheet import SKEWERS

PAIR, THREE, FULL, FOUR, STRAIGHT, YUMS = range(len(SKEWERS))
WHITE_DICE = 5
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



# ----- multisets of white dice as ints: a DIGIT-bit count per face, so adding dice is adding ----

def code_of(counts: Sequence[int]) -> int:
    return sum(c << (DIGIT * i) for i, c in enumerate(counts))


def counts_of(code: int) -> tuple[int, ...]:
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
class Multisets:
    """Every multiset of 0 to 5 white dice, fewest dice first, with the moves between them as
    list positions: the search's arrays are indexed by these."""

    codes: tuple[int, ...]
    at: dict[int, int]                          # a code's position
    grown: tuple[tuple[int, ...], ...]          # the multiset and one die more, of each face
    less: tuple[tuple[int, ...], ...]           # the multiset less one die, of each face it holds
    rolled: tuple[int, ...]                     # white dice not in the multiset
    full: int                                   # the first multiset of all five dice


@cache
def multiset_moves() -> Multisets:
    codes = tuple(code_of(counts) for n in range(WHITE_DICE + 1) for counts in _multisets(n))
    at = {code: i for i, code in enumerate(codes)}
    sizes = [sum(counts_of(code)) for code in codes]
    return Multisets(
        codes, at,
        tuple(tuple(at[code + one] for one in FACE_CODES) if size < WHITE_DICE else ()
              for code, size in zip(codes, sizes, strict=True)),
        tuple(tuple(at[code - one] for one in FACE_CODES if code & (7 * one)) for code in codes),
        tuple(WHITE_DICE - size for size in sizes), sizes.index(WHITE_DICE))


@cache
def sub_codes(code: int) -> tuple[int, ...]:
    """Every sub-multiset of a white multiset: most dice first, then more of the first faces."""
    subs = itertools.product(*(range(c, -1, -1) for c in counts_of(code)))
    return tuple(code_of(c) for c in sorted(subs, key=lambda c: -sum(c)))   # a stable sort



class Solver:
    """The values of one sheet, one set of dice (with or without red) and one reroll count,
    worked out a whole reroll at a time, from the last up.

    ``kept(white, red, r)``: the packed ints of keeping the white multiset ``white`` and the
    red die as ``red`` (a face, rerolled, or not rolled) with ``r`` rerolls left, scaled by
    ``6 ** (D * r)``. It does not depend on the position the table is asked for.
    """

    def __init__(self, weights: Weights | None, with_red: bool, rerolls: int) -> None:
        self.dice = WHITE_DICE + with_red
        # int ** int is typed Any (a negative power is a float): this one is a whole number
        self.scale: int = 6 ** (self.dice * rerolls)
        cost = weights.cross_cost if weights else Fraction(0)
        self.cost = cost
        self.per = cost.denominator                      # goals in 1/per hearts, to stay whole
        self.hearts = weights.hearts if weights else RANKS
        # with a sheet, each skewer is worth its hearts; without, only its chance counts
        self.aims = tuple(h * self.per for h in weights.hearts) if weights else (1,) * len(SKEWERS)
        self.charge = cost.numerator                     # goal per white die that is not a cross
        most_goal = max(*self.aims, max(self.hearts) * self.per) + self.charge * WHITE_DICE
        self.base = 8 * self.scale                       # above any scaled chance or fewer-crosses
        self.width: int = ((most_goal + 1) * self.scale * self.base ** 2).bit_length() + 1
        self.mask = (1 << self.width) - 1
        # each target's top bit: always clear in a value (the width has one bit to spare)
        self.tops: int = sum(1 << (self.width * t + self.width - 1) for t in range(TARGETS))
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
            found = self.kept_list(red, rerolls)[multiset_moves().at[white]]
        return found

    def kept_list(self, red: int, rerolls: int) -> list[int]:
        """``kept`` of every multiset (in ``Multisets`` order) for one state of the red die.

        A keep's value is the sum over every ordered outcome of the dice rerolled of the value
        after them, worked out one die at a time: rolling ``n`` dice is rolling one, then the
        other ``n - 1``; so each multiset sums six others, from the five dice kept down."""
        found = self.kept_lists.get((red, rerolls))
        if found is None:
            moves = multiset_moves()
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
        """The value of each five white dice showing (in ``Multisets`` order from ``full``)
        with the red die's face ``red``: with no reroll left, the dice's own; else each
        target's best keep, the red die kept or rerolled."""
        found = self.final_lists.get((red, rerolls))
        if found is None:
            full = multiset_moves().full
            if rerolls == 0:
                found = [self.leaf(code, red) for code in multiset_moves().codes[full:]]
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
            for at, less in enumerate(multiset_moves().less):
                value = best[at]
                for smaller in less:   # self.larger, written out: the inner loop (6 % of a table)
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
    counts = list(counts_of(white))
    crosses = counts.pop(CROSS)
    if 0 <= red < WILD:
        counts[red] += 1
    return made(counts, int(red == WILD)), WHITE_DICE - crosses


@cache
def size_of(white: int) -> int:
    return sum(counts_of(white))


def red_options(red: int) -> tuple[int, ...]:
    """What may be done with the red die: keep or reroll it, or nothing when it is not rolled."""
    return (NO_RED,) if red == NO_RED else (red, ROLL_RED)
