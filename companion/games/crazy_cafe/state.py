"""3 Minute Crazy Café's state: the constants of the game, its records (setup, round logs, the
state) and the queries the rules, screens and replays share."""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.contract.config import Field, between
from firmware_bridge.faces import BLUE, YELLOW

ROUNDS = 3
# "Round 1: Five orders - Round 2: Six orders - Round 3: Four orders, and also any orders
# not fulfilled from round 1 and round 2"
ORDERS_PER_ROUND = {1: 5, 2: 6, 3: 4}
DEFAULT_ROUND_S = 180
# The round lengths the box offers and accepts, in seconds: 1:00 to 10:00 (the setup screen
# steps by 30 s); the config's [games.cafe] round_seconds and a setup action are held to it.
ROUND_S_RANGE = (60, 600)
ROUND_SECONDS = Field(DEFAULT_ROUND_S, int, "length of a round in seconds, 60..600 (rulebook: 180)",
                      between(*ROUND_S_RANGE))
# How a double of two dice that both lie on orders counts at later rerolls (docs/rulings.md):
# "once" flips one order per new double, "every" on every reroll while it stands.
STANDING_DOUBLE = ("once", "every")
KINDS = ("yellow", "yellow", "blue", "blue")
FACES_OF = {"yellow": YELLOW, "blue": BLUE}
FACE_NAMES = frozenset(YELLOW + BLUE)
DICE_MODES = ("box", "sensor", "manual")
SIDES = ("light", "dark")
# Readings within this much of the deadline count as "time is up" (float clock jitter).
EPSILON_S = 1e-6


@dataclass(frozen=True)
class Setup:
    """The table's choices before round 1."""

    round_seconds: float = DEFAULT_ROUND_S
    double_trouble: bool = False  # "The next level: Double Trouble"
    special_menus: bool = False   # remind the table to draw a special menu each round
    dice: str = "box"             # box rolls, sensor reads, or manual (real dice, no faces)
    standing_double: str = "once"  # see STANDING_DOUBLE


@dataclass(frozen=True)
class Reroll:
    """One reroll of the unused dice as Double Trouble judged it, for ``companion replay``."""

    rolled: tuple[int, ...]                  # the dice rerolled (0..3); () for a reported double
    faces: tuple[str | None, ...]            # the four dice after it (None: not known, manual)
    doubles: tuple[tuple[int, int], ...]     # every double among the four dice
    new: tuple[tuple[int, int], ...]         # those that count: not standing since a reroll saw them
    verdict: str                             # flip, draw, none (no double counts), off (no Double Trouble)
    light: int                               # open orders light side up after it
    dark: int                                # open orders dark side up after it


@dataclass(frozen=True)
class RoundLog:
    """What happened in one round, for the result screen and ``companion replay``."""

    number: int
    laid_out: int = 0
    fulfilled: int = 0
    carried: int = 0          # left open at the end of round 1 or 2, set aside for round 3
    left: int = 0             # left open at the end of round 3
    dark_flips: int = 0
    extra_drawn: int = 0      # new orders drawn because every open order was dark
    corrections: int = 0      # +/- order corrections the table made
    time_left: float | None = None
    ended: str = ""           # "" while playing, "all done" or "time up"
    rerolls: tuple[Reroll, ...] = ()


@dataclass(frozen=True)
class CafeState:
    setup: Setup | None = None
    round: int = 0                    # the round being prepared or played (1..3)
    phase: str = "setup"              # setup, ready, running, paused, finished
    light: int = 0                    # open orders, light side up
    dark: int = 0                     # open orders, dark side up
    deadline: float | None = None     # clock reading when the running round ends
    remaining: float = 0.0            # seconds left while paused or before the start
    # The latest clock reading accepted in this clock epoch: a round start or a resume begins
    # an epoch (the box may have restarted, so its clock reads anything), a pause at power-up
    # ends one; within an epoch readings never go back.
    last_at: float | None = None
    faces: tuple[str | None, ...] = (None, None, None, None)
    placed: tuple[bool, ...] = (False, False, False, False)
    to_roll: tuple[int, ...] = ()     # dice freed by a fulfilled order, waiting for their roll
    counted: tuple[tuple[int, int], ...] = ()  # doubles Double Trouble has seen, still standing
    carried: int = 0                  # orders set aside for round 3
    rounds: tuple[RoundLog, ...] = ()
    trouble: str = ""                 # Double Trouble outcome of the last action: flip, draw
    result: str = ""                  # won or lost

    @property
    def open_orders(self) -> int:
        return self.light + self.dark

    @property
    def current(self) -> RoundLog | None:
        """The log of the round being played (or just ended)."""
        return self.rounds[-1] if self.rounds and self.rounds[-1].number == self.round else None


def initial_state() -> CafeState:
    """A game before its setup action."""
    return CafeState()


def orders_for_round(number: int, carried: int) -> int:
    """How many orders the table lays out at the start of round ``number``."""
    return ORDERS_PER_ROUND[number] + (carried if number == ROUNDS else 0)


def time_left(state: CafeState, now: float) -> float:
    """Seconds left in the round at clock reading ``now`` (never negative)."""
    if state.phase == "running" and state.deadline is not None:
        return max(0.0, state.deadline - now)
    return max(0.0, state.remaining)


def noted_reroll(state: CafeState, rolled: tuple[int, ...], found: tuple[tuple[int, int], ...],
                 new: tuple[tuple[int, int], ...]) -> CafeState:
    """``state`` (after a reroll and its Double Trouble) with the reroll in its round's log."""
    on = state.setup is not None and state.setup.double_trouble
    verdict = (state.trouble or "none") if on else "off"
    reroll = Reroll(rolled, state.faces, found, new, verdict, state.light, state.dark)
    log = state.rounds[-1]
    return replace(state, rounds=(*state.rounds[:-1],
                                  replace(log, rerolls=(*log.rerolls, reroll))))


def has_double(faces: tuple[str | None, ...]) -> bool:
    """True when two dice show the same face ("the same drink, dish or bill")."""
    return bool(doubles(faces))


def doubles(faces: tuple[str | None, ...]) -> tuple[tuple[int, int], ...]:
    """Every pair of dice showing the same known face, as (lower, higher) die numbers."""
    return tuple((i, j) for i in range(len(faces)) for j in range(i + 1, len(faces))
                 if faces[i] is not None and faces[i] == faces[j])


def is_finished(state: CafeState) -> bool:
    return state.phase == "finished"
