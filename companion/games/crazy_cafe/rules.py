"""3 Minute Crazy Café rules: rounds, orders, the round deadline and Double Trouble.

Pure: time enters as clock readings inside actions (``"at"``) and dice faces as readings
(box roll or sensor) inside ``roll`` actions, so a replay is exact. The action vocabulary is
documented in docs/crazy_cafe.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from companion.games.base import Action, RuleError
from firmware_bridge.faces import BLUE, YELLOW

ROUNDS = 3
# "Round 1: Five orders - Round 2: Six orders - Round 3: Four orders, and also any orders
# not fulfilled from round 1 and round 2"
ORDERS_PER_ROUND = {1: 5, 2: 6, 3: 4}
DEFAULT_ROUND_S = 180
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


@dataclass(frozen=True)
class CafeState:
    setup: Setup | None = None
    round: int = 0                    # the round being prepared or played (1..3)
    phase: str = "setup"              # setup, ready, running, paused, finished
    light: int = 0                    # open orders, light side up
    dark: int = 0                     # open orders, dark side up
    deadline: float | None = None     # clock reading when the running round ends
    remaining: float = 0.0            # seconds left while paused or before the start
    last_at: float | None = None      # latest clock reading seen in an action
    faces: tuple[str | None, ...] = (None, None, None, None)
    placed: tuple[bool, ...] = (False, False, False, False)
    to_roll: tuple[int, ...] = ()     # dice freed by a fulfilled order, waiting for their roll
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


def has_double(faces: tuple[str | None, ...]) -> bool:
    """True when two dice show the same face ("the same drink, dish or bill")."""
    known = [face for face in faces if face is not None]
    return len(known) != len(set(known))


def is_finished(state: CafeState) -> bool:
    return state.phase == "finished"


# ----- apply -----------------------------------------------------------------------------------

def apply(state: CafeState, action: Action) -> CafeState:
    """The state after ``action``, or RuleError (nothing half-applied: states are immutable)."""
    if not isinstance(action, dict):
        raise RuleError("An action is a\nJSON object")
    kind = action.get("type")
    # Checked as text first: a list or table as "type" must be refused, not crash the lookup.
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RuleError("Unknown action" if not isinstance(kind, str) or len(kind) > 12
                        else f"Unknown action {kind!r}")
    if state.phase == "setup" and kind != "setup":
        raise RuleError("Set up the game first")
    if state.phase == "finished":
        raise RuleError("The game is over")
    at = action.get("at")
    if at is not None:
        at = _at(action)
    new = handler(replace(state, trouble=""), action)
    if at is not None:
        new = replace(new, last_at=at)
    return new


def _setup(state: CafeState, action: Action) -> CafeState:
    if state.phase != "setup":
        raise RuleError("Game already set up")
    seconds = action.get("round_seconds", DEFAULT_ROUND_S)
    if not _is_number(seconds) or seconds <= 0:
        raise RuleError("Round length must be\na positive number")
    dice = action.get("dice", "box")
    if not isinstance(dice, str) or dice not in DICE_MODES:
        raise RuleError("Dice: box, sensor\nor manual")
    setup = Setup(float(seconds), _flag(action, "double_trouble", False),
                  _flag(action, "special_menus", False), dice)
    new = replace(state, setup=setup, round=1, phase="ready", remaining=setup.round_seconds)
    if action.get("faces") is not None:
        # "Roll all 4 dice once": the setup roll never triggers Double Trouble.
        new = replace(new, faces=_read_faces(action["faces"], range(4)))
    return new


def _roll(state: CafeState, action: Action) -> CafeState:
    """A roll of the box or a sensor reading: the setup roll, a reroll, or freed dice."""
    setup = _setup_of(state)
    if setup.dice == "manual":
        raise RuleError("Manual dice: the box\nknows no faces")
    kind = action.get("kind")
    if kind == "setup":
        if state.phase != "ready":
            raise RuleError("Setup roll only\nbefore the round")
        return replace(state, faces=_read_faces(action.get("faces"), range(4)),
                       placed=(False,) * 4, to_roll=())
    _require_running(state)
    if kind == "freed":
        if not state.to_roll:
            raise RuleError("No freed dice\nto roll")
        return replace(state, faces=_read_faces(action.get("faces"), state.to_roll, state.faces),
                       to_roll=())
    if kind != "reroll":
        raise RuleError("Roll kind: setup,\nreroll or freed")
    if state.to_roll:
        raise RuleError("Roll the dice of the\nfulfilled order first")
    unused = tuple(i for i in range(4) if not state.placed[i])
    if not unused:
        raise RuleError("Every die is on\nan order")
    faces = _read_faces(action.get("faces"), unused, state.faces)
    new = replace(state, faces=faces)
    # "To determine whether there are doubles, you must consider all dice (both those just
    # rolled and those currently placed on an order)."
    if setup.double_trouble and has_double(faces):
        new = _double_trouble(new)
    return new


def _read_faces(
    raw: Any, rolled: Any, known: tuple[str | None, ...] = (None,) * 4
) -> tuple[str | None, ...]:
    """New faces for the ``rolled`` dice; the others keep what the box knows."""
    if not isinstance(raw, list | tuple) or len(raw) != 4:
        raise RuleError("A roll needs four\nfaces (null if unread)")
    faces = list(known)
    for index in rolled:
        face = raw[index]
        if face is None:
            raise RuleError(f"Die {index + 1} unreadable:\nroll it again")
        if not isinstance(face, str) or face not in FACE_NAMES:
            raise RuleError(f"Die {index + 1}: unknown face")
        if face not in FACES_OF[KINDS[index]]:
            raise RuleError(f"Die {index + 1} ({KINDS[index]})\nhas no {face!r}")
        faces[index] = face
    return tuple(faces)


def _double(state: CafeState, action: Action) -> CafeState:
    """Manual dice: the table rerolled the unused dice and reports a double."""
    setup = _setup_of(state)
    if not setup.double_trouble:
        raise RuleError("Double Trouble\nis off")
    _require_running(state)
    return _double_trouble(state)


def _double_trouble(state: CafeState) -> CafeState:
    """Flip one light order dark; when every open order is dark, draw a new light one."""
    log = state.current
    if state.light > 0:
        return replace(state, light=state.light - 1, dark=state.dark + 1, trouble="flip",
                       rounds=_log(state, dark_flips=log.dark_flips + 1))
    return replace(state, light=state.light + 1, trouble="draw",
                   rounds=_log(state, extra_drawn=log.extra_drawn + 1))


def _place(state: CafeState, action: Action) -> CafeState:
    if _setup_of(state).dice == "manual":
        raise RuleError("Manual dice: the box\ndoes not track dice")
    if state.phase not in ("running", "paused"):
        raise RuleError("Start the round first")
    die = _die(action.get("die"))
    on = _flag(action, "placed", True)
    if die in state.to_roll:
        raise RuleError("Roll that die first")
    placed = list(state.placed)
    placed[die] = on
    return replace(state, placed=tuple(placed))


def _round_start(state: CafeState, action: Action) -> CafeState:
    if state.phase != "ready":
        raise RuleError("The round has\nalready started")
    at = _at(action)
    laid_out = orders_for_round(state.round, state.carried)
    log = RoundLog(state.round, laid_out=laid_out)
    return replace(state, phase="running", light=laid_out, dark=0,
                   deadline=at + _setup_of(state).round_seconds, remaining=0.0,
                   placed=(False,) * 4, to_roll=(), rounds=(*state.rounds, log))


def _pause(state: CafeState, action: Action) -> CafeState:
    _require_running(state)
    at = _at(action)
    if at >= state.deadline - EPSILON_S:
        raise RuleError("Time is already up")
    return replace(state, phase="paused", remaining=state.deadline - at, deadline=None)


def _resume(state: CafeState, action: Action) -> CafeState:
    if state.phase != "paused":
        raise RuleError("The round is\nnot paused")
    # Pausing moves the deadline: the round ends ``remaining`` seconds after the resume.
    return replace(state, phase="running", deadline=_at(action) + state.remaining, remaining=0.0)


def _order_done(state: CafeState, action: Action) -> CafeState:
    _require_running(state)
    side = action.get("side", "light")
    _check_side(state, side, "fulfilled")
    mode = _setup_of(state).dice
    freed: tuple[int, ...] = ()
    if mode != "manual":
        dice = action.get("dice")
        if not isinstance(dice, list) or not dice:
            # "An order is fulfilled once all ... are covered with café cards and at least
            # one dice!"
            raise RuleError("Which dice were on it?\nAt least one")
        freed = tuple(sorted({_die(d) for d in dice}))
        if state.to_roll:
            raise RuleError("Roll the dice of the\nlast order first")
    light, dark = _minus(state, side)
    log = state.current
    new = replace(state, light=light, dark=dark, rounds=_log(state, fulfilled=log.fulfilled + 1))
    if freed:
        placed = tuple(False if i in freed else p for i, p in enumerate(state.placed))
        new = replace(new, placed=placed, to_roll=freed)
    if new.open_orders == 0:
        return _end_round(new, "all done", time_left(state, _at(action)) if "at" in action else None)
    return new


def _add_order(state: CafeState, action: Action) -> CafeState:
    """A correction: one more open order than the box counted."""
    _require_round(state)
    side = action.get("side", "light")
    if not isinstance(side, str) or side not in SIDES:
        raise RuleError("Side is light\nor dark")
    log = state.current
    light, dark = (state.light + 1, state.dark) if side == "light" else (state.light, state.dark + 1)
    return replace(state, light=light, dark=dark, rounds=_log(state, corrections=log.corrections + 1))


def _remove_order(state: CafeState, action: Action) -> CafeState:
    """A correction: one open order fewer than the box counted."""
    _require_round(state)
    side = action.get("side", "light")
    _check_side(state, side, "open")
    if state.open_orders == 1:
        raise RuleError("Last open order:\nuse order done")
    light, dark = _minus(state, side)
    log = state.current
    return replace(state, light=light, dark=dark, rounds=_log(state, corrections=log.corrections + 1))


def _time_up(state: CafeState, action: Action) -> CafeState:
    _require_running(state)
    at = _at(action)
    if at < state.deadline - EPSILON_S:
        left = math.ceil(state.deadline - at)
        # More than a round left: a reading from before the round started (a damaged journal).
        raise RuleError(f"Time is not up:\n{left} s left" if left <= state.setup.round_seconds
                        else "Time is not up:\nclock reads early")
    return _end_round(state, "time up", 0.0)


def _end_round(state: CafeState, how: str, left_s: float | None) -> CafeState:
    """Close the round; open orders go to round 3's pile, or decide the game after round 3."""
    open_orders = state.open_orders
    final = state.round == ROUNDS
    log = replace(state.current, ended=how, time_left=left_s,
                  carried=0 if final else open_orders, left=open_orders if final else 0)
    rounds = (*state.rounds[:-1], log)
    common = dict(light=0, dark=0, deadline=None, placed=(False,) * 4, to_roll=(), rounds=rounds)
    if final:
        # "You win together if you have fulfilled all orders at the end of round 3."
        return replace(state, phase="finished", remaining=0.0,
                       result="won" if open_orders == 0 else "lost", **common)
    return replace(state, phase="ready", round=state.round + 1, carried=state.carried + open_orders,
                   remaining=_setup_of(state).round_seconds, **common)


# ----- small checks ----------------------------------------------------------------------------

def _setup_of(state: CafeState) -> Setup:
    assert state.setup is not None  # apply() refuses everything but setup before it
    return state.setup


def _is_number(value: Any) -> bool:
    """A finite int or float (bool is an int to Python, never to a JSON action)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _at(action: Action) -> float:
    at = action.get("at")
    if not _is_number(at):
        raise RuleError("Needs the clock\nreading 'at'")
    return float(at)


def _die(value: Any) -> int:
    """A die index 0..3 (1.0 or True are not die numbers)."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        raise RuleError("Die is 0..3")
    return value


def _flag(action: Action, key: str, default: bool) -> bool:
    """An on/off field: true or false only (a text "false" must not read as on)."""
    value = action.get(key, default)
    if not isinstance(value, bool):
        raise RuleError(f"{key.replace('_', ' ').capitalize()}\nis true or false")
    return value


def _require_running(state: CafeState) -> None:
    if state.phase == "paused":
        raise RuleError("Paused: press OK\nto go on")
    if state.phase != "running":
        raise RuleError("No round running")


def _require_round(state: CafeState) -> None:
    if state.phase not in ("running", "paused"):
        raise RuleError("No round running")


def _check_side(state: CafeState, side: Any, what: str) -> None:
    if not isinstance(side, str) or side not in SIDES:
        raise RuleError("Side is light\nor dark")
    if (state.light if side == "light" else state.dark) == 0:
        raise RuleError(f"No {side} order\n{what}")


def _minus(state: CafeState, side: str) -> tuple[int, int]:
    return (state.light - 1, state.dark) if side == "light" else (state.light, state.dark - 1)


def _log(state: CafeState, **changes: Any) -> tuple[RoundLog, ...]:
    return (*state.rounds[:-1], replace(state.rounds[-1], **changes))


_HANDLERS = {
    "setup": _setup,
    "roll": _roll,
    "double": _double,
    "place": _place,
    "round_start": _round_start,
    "pause": _pause,
    "resume": _resume,
    "order_done": _order_done,
    "add_order": _add_order,
    "remove_order": _remove_order,
    "time_up": _time_up,
}


# ----- what the app and the replay command show -------------------------------------------------

def is_undoable(action: Action) -> bool:
    """The setup, dice the box or the sensor rolled, and time running out are not taken back.

    Undoing the setup would leave a game with no setup that no screen can show or resume.
    """
    return action.get("type") not in ("setup", "roll", "time_up")


def describe(state: CafeState) -> str:
    """A few words for the resume question."""
    if state.phase == "finished":
        return "result"
    if state.phase == "setup":
        return "setup"
    return f"round {state.round}"


ROLL_WORDS = {"setup": "roll", "reroll": "reroll", "freed": "freed roll"}
ACTION_WORDS = {
    "setup": "setup",
    "double": "the double",
    "round_start": "round start",
    "pause": "pause",
    "resume": "resume",
    "time_up": "time up",
}


def describe_action(action: Action, state: CafeState | None = None) -> str:
    """A few words for "Undone: ..." and "Can't undo: ..." (one short line); a Café action
    says all it did, so the state it was applied to is not needed."""
    kind = action.get("type")
    side = action.get("side", "light")
    side = side if side in SIDES else "light"
    if kind == "roll":
        source = "sensor" if action.get("source") == "sensor" else "box"
        roll_kind = action.get("kind")
        return f"{source} {ROLL_WORDS.get(roll_kind, 'roll') if isinstance(roll_kind, str) else 'roll'}"
    if kind == "place":
        die = action.get("die")
        number = f" {die + 1}" if isinstance(die, int) and not isinstance(die, bool) else ""
        return f"die{number} {'placed' if action.get('placed', True) is not False else 'freed'}"
    if kind == "order_done":
        return f"{side} order done"
    if kind in ("add_order", "remove_order"):
        return f"{'+' if kind == 'add_order' else '-'}1 {side} order"
    return ACTION_WORDS.get(kind, "step") if isinstance(kind, str) else "step"


def summary(state: CafeState) -> dict[str, Any]:
    """The game as JSON: per round what was laid out, fulfilled, carried, flipped, drawn."""
    rounds = []
    for log in state.rounds:
        rounds.append({
            "round": log.number,
            "orders_laid_out": log.laid_out,
            "fulfilled": log.fulfilled,
            "carried_to_round_3": log.carried,
            "left_open": log.left,
            "dark_flips": log.dark_flips,
            "extra_orders_drawn": log.extra_drawn,
            "corrections": log.corrections,
            "ended": log.ended or "playing",
            "time_left_s": None if log.time_left is None else round(log.time_left, 3),
        })
    setup = state.setup
    out: dict[str, Any] = {
        "game": "cafe",
        "phase": state.phase,
        "round": state.round,
        "rounds": rounds,
        "result": state.result or None,
        "orders_left": state.rounds[-1].left if state.result else state.open_orders,
    }
    if setup is not None:
        out["setup"] = {"round_seconds": setup.round_seconds, "double_trouble": setup.double_trouble,
                        "special_menus": setup.special_menus, "dice": setup.dice}
    return out
