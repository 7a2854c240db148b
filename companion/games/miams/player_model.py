"""Whole solo games without a box: Arthur (the real rules) against a simple player model.

The player model, kept simple on purpose so difficulties can be compared:

- Rolling: five white dice. A first roll that already makes a Full house, Straight or Yums is
  kept; otherwise the player keeps the largest group of one fruit (crosses never) and rerolls
  the rest once. Tokens and Yums cards are not used.
- Scoring: of the skewers the dice make, the one whose next space on the player's own sheet
  (same layout as Arthur's) gives the most hearts, the lower row on a tie; with no skewer,
  the leftmost free catch-up space, for its stars. Crosses left on the dice go to Arthur.
- Arthur's crossing phase: the player crosses the leftmost free space of the row whose next
  space is worth the fewest hearts (the top row on a tie) and takes its stars.
- The player says "filled my 50" as soon as their track is full.

To keep thousands of games a second, a turn's dice are not rolled one by one: the model's
outcomes (which skewers the dice make, how many crosses) are sampled once per run into a
table of ``TABLE_SIZE`` turns with the run's seed, and each turn draws one row of it.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from dataclasses import dataclass

from firmware_bridge.faces import FRUITS, RED, WHITE

from .rules import (
    CIRCLE,
    COUNT_BITS,
    COUNTS,
    CROSS,
    DIFFICULTIES,
    EMPTY_SIDE,
    HEARTS_TRACK,
    SKEWERS,
    Side,
    State,
    arthur_turn,
    mark_fields,
    player_turn,
    score,
    setup,
)
from .sheet import Sheet

Fields = tuple[int, int, int, bool]     # a Side's fields: packed marks, hearts, stars, column
_new = tuple.__new__

TABLE_BITS = 14
TABLE_SIZE = 1 << TABLE_BITS
PAIR, THREE, FULL, FOUR, STRAIGHT, YUMS = range(6)
_KEEP_FIRST = (1 << FULL) | (1 << STRAIGHT) | (1 << YUMS)


def skewers_made(dice: list[str]) -> int:
    """Bit mask (bit i = SKEWERS[i]) of the skewers five white dice make; crosses make none."""
    counts = sorted(Counter(d for d in dice if d != "cross").values(), reverse=True) or [0]
    top = counts[0]
    made = 0
    if top >= 2:
        made |= 1 << PAIR
    if top >= 3:
        made |= 1 << THREE
    if top == 3 and len(counts) > 1 and counts[1] == 2:
        made |= 1 << FULL
    if top >= 4:
        made |= 1 << FOUR
    if top == 5:
        made |= 1 << YUMS
    if len(counts) == 5:
        made |= 1 << STRAIGHT
    return made


def roll_turn(rng: random.Random) -> tuple[int, int]:
    """One turn of the model's dice: (skewers made, crosses left)."""
    dice = [rng.choice(WHITE) for _ in range(5)]
    if not skewers_made(dice) & _KEEP_FIRST:
        fruits = Counter(d for d in dice if d != "cross")
        keep = min(fruits, key=lambda f: (-fruits[f], FRUITS.index(f))) if fruits else None
        dice = [d if d == keep else rng.choice(WHITE) for d in dice]
    return skewers_made(dice), dice.count("cross")


class PlayerModel:
    """The documented simple player, on their own copy of the sheet."""

    def __init__(self, sheet: Sheet, rng: random.Random) -> None:
        self.sheet = sheet
        self.table = [roll_turn(rng) for _ in range(TABLE_SIZE)]
        # The skewer rows each mask of made skewers allows, top to bottom.
        self.choices = [tuple(r for r in range(len(SKEWERS)) if made >> r & 1) for made in range(64)]
        # the rows chosen for each count of marks (and dice), found on first use
        self._cheapest: dict[int, int] = {}
        self._richest: dict[int, int] = {}

    def cross_for_arthur(self, side: Side) -> Side:
        """Arthur's crossing phase: cross the cheapest next space (top row on a tie)."""
        return _new(Side, self.cross_fields(tuple(side)))

    def own_turn(self, side: Side, catch_up: int, made: int) -> tuple[Side, int]:
        """Score the skewer worth most hearts the dice made (lower row on a tie), else a catch-up."""
        fields, catch_up = self.own_fields(tuple(side), catch_up, made)
        return _new(Side, fields), catch_up

    # The same on a side's four fields as a plain tuple, for play_game's loop.
    def cross_fields(self, fields: Fields) -> Fields:
        packed, hearts, stars, column = fields
        # The choice depends only on how many spaces each row has marked: kept per counts.
        counts = packed & COUNTS
        try:
            row = self._cheapest[counts]
        except KeyError:
            row = self._cheapest[counts] = self._find_cheapest(counts)
        if row < 0:
            return fields
        packed, hearts, stars, column, _made = mark_fields(
            self.sheet, packed, hearts, stars, column, row, CROSS)
        return packed, hearts, stars, column

    def own_fields(self, fields: Fields, catch_up: int, made: int) -> tuple[Fields, int]:
        packed, hearts, stars, column = fields
        key = (packed & COUNTS) << 6 | made
        try:
            row = self._richest[key]
        except KeyError:
            row = self._richest[key] = self._find_richest(packed, made)
        if row >= 0:
            packed, hearts, stars, column, _made = mark_fields(
                self.sheet, packed, hearts, stars, column, row, CIRCLE)
            return (packed, hearts, stars, column), catch_up
        bonuses = self.sheet.catch_up
        if catch_up < len(bonuses):
            return (packed, hearts, stars + bonuses[catch_up].stars, column), catch_up + 1
        return fields, catch_up

    def _find_cheapest(self, packed: int) -> int:
        best, cheapest = -1, 1 << 30
        for row, (values, size) in enumerate(zip(self.sheet.values, self.sheet.sizes, strict=True)):
            done = packed >> (COUNT_BITS * row) & 15
            # a full row has no space to cross
            if done < size and values[done] < cheapest:
                best, cheapest = row, values[done]
        return best

    def _find_richest(self, packed: int, made: int) -> int:
        best, best_hearts = -1, -1
        for row in self.choices[made]:
            hearts = self.sheet.values[row][packed >> (COUNT_BITS * row) & 15]
            if hearts >= best_hearts:
                best, best_hearts = row, hearts
        return best


@dataclass
class GameResult:
    arthur: int
    player: int
    turns: int


def play_game(start: State, model: PlayerModel, rng: random.Random) -> GameResult:
    """One full game from a set-up state; Arthur's faces come from ``rng``."""
    state = start
    player = tuple(EMPTY_SIDE)   # the player's sheet, as a plain tuple of a Side's fields
    catch_up = 0
    # Bound once: this loop runs a few hundred thousand times a second.
    table, getrandbits, draw = model.table, rng.getrandbits, rng.random
    cross, own = model.cross_fields, model.own_fields
    while True:
        state = arthur_turn(state, RED[int(draw() * 6)])
        player = cross(player)
        made, crosses = table[getrandbits(TABLE_BITS)]
        player, catch_up = own(player, catch_up, made)
        state = player_turn(state, crosses, player[1] >= HEARTS_TRACK)
        if state.phase == "score":
            return GameResult(score(state.arthur), score(_new(Side, player)), state.turns)


def start_state(difficulty: str, tie: str = "top", setup_column: str = "counts") -> State:
    """Arthur's set-up sheet on the stand-in layout and tile."""
    return setup({"type": "setup", "difficulty": difficulty, "tie": tie, "setup_column": setup_column})


def simulate(games: int, difficulty: str, seed: int, tie: str = "top",
             setup_column: str = "counts") -> list[GameResult]:
    """Play ``games`` games at ``difficulty``; the same seed gives the same games."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    rng = random.Random(seed)
    start = start_state(difficulty, tie, setup_column)
    model = PlayerModel(start.options.sheet, rng)
    return [play_game(start, model, rng) for _ in range(games)]


def report(results: list[GameResult]) -> dict[str, object]:
    """Win rates and score distributions as JSON-ready numbers."""
    n = len(results)
    wins = sum(r.player > r.arthur for r in results)
    ties = sum(r.player == r.arthur for r in results)

    def spread(values: list[int]) -> dict[str, object]:
        ordered = sorted(values)
        cut = statistics.quantiles(ordered, n=10) if n > 1 else [float(ordered[0])] * 9
        return {
            "mean": round(statistics.fmean(ordered), 2), "min": ordered[0], "max": ordered[-1],
            "p10": cut[0], "p50": statistics.median(ordered), "p90": cut[-1],
            "histogram_10": {f"{k * 10}-{k * 10 + 9}": v
                             for k, v in sorted(Counter(x // 10 for x in ordered).items())},
        }

    return {
        "games": n,
        "player_win_rate": round(wins / n, 4),
        "arthur_win_rate": round((n - wins) / n, 4),
        "tie_rate": round(ties / n, 4),
        "arthur_score": spread([r.arthur for r in results]),
        "player_score": spread([r.player for r in results]),
        "turns": spread([r.turns for r in results]),
    }
