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
from collections.abc import Callable
from dataclasses import dataclass
from math import floor

from firmware_bridge.faces import FRUITS, RED, WHITE

from .marks import Side, mark_spot
from .odds_search import FULL, STRAIGHT, YUMS, made
from .rules import (
    DIFFICULTIES,
    State,
    arthur_turn,
    draft,
    options_of,
    player_turn,
    score,
    setup,
)
from .sheet import (
    CIRCLE,
    CROSS,
    HALF,
    HALF_BITS,
    HALF_ROWS,
    HEARTS_TRACK,
    NO_SPOT,
    SPOT,
    SPOT_BITS,
    Sheet,
    half_table,
    spot,
)

TABLE_BITS = 14
TABLE_SIZE = 1 << TABLE_BITS
_KEEP_FIRST = (1 << FULL) | (1 << STRAIGHT) | (1 << YUMS)
HALF_SKEWERS = (1 << HALF_ROWS) - 1     # the skewers made in the top three rows


def skewers_made(dice: list[str]) -> int:
    """Bit mask (bit i = SKEWERS[i]) of the skewers five white dice make; crosses make none."""
    return made([dice.count(fruit) for fruit in FRUITS])


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
        self.catch_up_stars = tuple(bonus.stars for bonus in sheet.catch_up)
        values, sizes = sheet.values, sheet.sizes

        def cheapest(row: int, marked: int) -> int:
            # the next space's hearts; a full row has no space to cross
            return values[row][marked] << SPOT_BITS | spot(row, marked) if marked < sizes[row] else NO_SPOT

        def richest(made: int) -> Callable[[int, int], int]:
            def key(row: int, marked: int) -> int:
                return values[row][marked] << SPOT_BITS | spot(row, marked) if made >> row & 1 else -1
            return key

        # Half tables (sheet.HALF_BITS) of the cheapest next space (top row on a tie), and per
        # half and skewers the dice made in that half, of the richest (lower row on a tie).
        halves = (0, HALF_ROWS)
        self._cheapest = tuple(half_table(sizes, first, cheapest, min, NO_SPOT) for first in halves)
        self._richest = tuple(
            tuple(half_table(sizes, first, richest(made << first), max, -1) for made in range(1 << HALF_ROWS))
            for first in halves)

    def cross_for_arthur(self, side: Side) -> None:
        """Arthur's crossing phase on the player's ``side``, in place: cross the cheapest next
        space (top row on a tie); nothing when every row is full."""
        counts = side.counts
        top_rows, bottom_rows = self._cheapest
        key = top_rows[counts & HALF]
        bottom = bottom_rows[counts >> HALF_BITS]
        if bottom < key:
            key = bottom
        if key != NO_SPOT:
            mark_spot(self.sheet, side, key & SPOT, CROSS)

    def own_turn(self, side: Side, catch_up: int, made: int) -> int:
        """Score, in place on the player's ``side``, the made skewer worth most hearts (lower row
        on a tie), else the next catch-up space; returns how many catch-up spaces are used."""
        counts = side.counts
        top_rows, bottom_rows = self._richest
        key = top_rows[made & HALF_SKEWERS][counts & HALF]
        bottom = bottom_rows[made >> HALF_ROWS][counts >> HALF_BITS]
        if bottom > key:
            key = bottom
        if key >= 0:
            mark_spot(self.sheet, side, key & SPOT, CIRCLE)
        elif catch_up < len(self.catch_up_stars):
            side.stars += self.catch_up_stars[catch_up]
            catch_up += 1
        return catch_up


@dataclass
class GameResult:
    arthur: int
    player: int
    turns: int


def play_game(start: State, model: PlayerModel, rng: random.Random) -> GameResult:
    """One full game from a set-up state, played on one draft of it; Arthur's faces come from
    ``rng``."""
    game = draft(start)
    own = Side()        # the player's sheet
    catch_up = 0
    # Bound once: this loop runs a few hundred thousand times a second.
    table, cross_for_arthur, own_turn = model.table, model.cross_for_arthur, model.own_turn
    getrandbits, draw = rng.getrandbits, rng.random
    while True:
        arthur_turn(game, RED[floor(draw() * 6)])
        cross_for_arthur(own)
        made, crosses = table[getrandbits(TABLE_BITS)]
        catch_up = own_turn(own, catch_up, made)
        player_turn(game, crosses, own.hearts >= HEARTS_TRACK)
        if game.phase == "score":
            return GameResult(score(game.arthur), score(own), game.turns)


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
    model = PlayerModel(options_of(start).sheet, rng)
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
