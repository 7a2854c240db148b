"""3 Minute Crazy Café rules: rounds, orders, the round deadline and Double Trouble.

Pure: time enters as clock readings inside actions (``"at"``) and dice faces as readings
(box roll or sensor) inside ``roll`` actions, so a replay is exact. The action vocabulary is
documented in docs/crazy_cafe.md. This module applies actions; the state and its queries are
in :mod:`.state`, the words for the table in :mod:`.words`.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from companion.contract.rules import Action, RuleError, check_game, flag, number, setting, whole_value

from .state import (
    DEFAULT_ROUND_S,
    DICE_MODES,
    EPSILON_S,
    FACE_NAMES,
    FACES_OF,
    KINDS,
    ORDERS_PER_ROUND,
    ROUND_S_RANGE,
    ROUND_SECONDS,
    ROUNDS,
    SIDES,
    STANDING_DOUBLE,
    CafeState,
    RoundLog,
    Setup,
    doubles,
    has_double,
    initial_state,
    is_finished,
    noted_reroll,
    orders_for_round,
    time_left,
)
from .words import ACTION_WORDS, ROLL_WORDS, describe, describe_action, follow_up, is_undoable, summary

# What the screens, the spec and the tests take from here, besides apply.
__all__ = [
    "ACTION_WORDS",
    "DEFAULT_ROUND_S",
    "DICE_MODES",
    "EPSILON_S",
    "FACES_OF",
    "FACE_NAMES",
    "KEY",
    "KINDS",
    "ORDERS_PER_ROUND",
    "ROLL_WORDS",
    "ROUNDS",
    "ROUND_SECONDS",
    "ROUND_S_RANGE",
    "SIDES",
    "STANDING_DOUBLE",
    "CafeState",
    "RoundLog",
    "Setup",
    "apply",
    "describe",
    "describe_action",
    "follow_up",
    "has_double",
    "initial_state",
    "is_finished",
    "is_undoable",
    "orders_for_round",
    "summary",
    "time_left",
]


KEY = "cafe"  # the game's key, named by its setup action (see check_game)


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
        if state.phase == "running" and kind not in _AFTER_THE_DEADLINE \
                and at >= deadline_of(state) - EPSILON_S:
            # "Or the three minutes have expired": nothing the table does counts any more.
            raise RuleError("Time is already up")
    new = handler(replace(state, trouble=""), action)
    if at is not None:
        # A round start or a resume begins a clock epoch (after a restart the clock reads
        # anything); within one, a reading before the last accepted one is a damaged record.
        if kind not in _EPOCH_STARTS and state.last_at is not None and at < state.last_at:
            raise RuleError("Clock reads earlier\nthan the last reading")
        new = replace(new, last_at=at)
    return new


def _setup(state: CafeState, action: Action) -> CafeState:
    if state.phase != "setup":
        raise RuleError("Game already set up")
    check_game(action, KEY)
    # The length the config file may set, and no other (1e-6 s is no round).
    seconds = setting(action, "round_seconds", ROUND_SECONDS, "Round length")
    dice = action.get("dice", "box")
    if not isinstance(dice, str) or dice not in DICE_MODES:
        raise RuleError("Dice: box, sensor\nor manual")
    standing = action.get("standing_double", "once")
    if not isinstance(standing, str) or standing not in STANDING_DOUBLE:
        raise RuleError("Standing double is\nonce or every")
    setup = Setup(float(seconds), flag(action, "double_trouble", False, "Double Trouble"),
                  flag(action, "special_menus", False, "Special menus"), dice, standing)
    new = replace(state, setup=setup, round=1, phase="ready", remaining=setup.round_seconds)
    if action.get("faces") is not None:
        # "Roll all 4 dice once": the setup roll never triggers Double Trouble.
        new = replace(new, faces=_read_faces(action["faces"], range(4)))
    return new


def _roll(state: CafeState, action: Action) -> CafeState:
    """A roll of the box or a sensor reading: the setup roll, a reroll, or freed dice."""
    setup = setup_of(state)
    if setup.dice == "manual":
        raise RuleError("Manual dice: the box\nknows no faces")
    kind = action.get("kind")
    if kind == "setup":
        if state.phase != "ready":
            raise RuleError("Setup roll only\nbefore the round")
        return replace(state, faces=_read_faces(action.get("faces"), range(4)),
                       placed=(False,) * 4, to_roll=(), counted=())
    _require_running(state)
    if kind == "freed":
        if not state.to_roll:
            raise RuleError("No freed dice\nto roll")
        return replace(state, faces=_read_faces(action.get("faces"), state.to_roll, state.faces),
                       to_roll=(), counted=_standing(state, state.to_roll))
    if kind != "reroll":
        raise RuleError("Roll kind: setup,\nreroll or freed")
    if state.to_roll:
        raise RuleError("Roll the dice of the\nfulfilled order first")
    unused = tuple(i for i in range(4) if not state.placed[i])
    if not unused:
        raise RuleError("Every die is on\nan order")
    faces = _read_faces(action.get("faces"), unused, state.faces)
    found = now = doubles(faces)
    new = replace(state, faces=faces, counted=now)
    # "To determine whether there are doubles, you must consider all dice (both those just
    # rolled and those currently placed on an order)." A double of two dice that both stayed
    # on orders since it was counted flips again only with standing_double = "every".
    if setup.standing_double == "once":
        seen = _standing(state, unused)
        now = tuple(pair for pair in now if pair not in seen)
    new = _double_trouble(new) if setup.double_trouble and now else new
    return noted_reroll(new, unused, found, now)


def _standing(state: CafeState, rolled: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The counted doubles none of whose dice were just rolled."""
    return tuple(pair for pair in state.counted if not set(pair) & set(rolled))


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
    setup = setup_of(state)
    if not setup.double_trouble:
        raise RuleError("Double Trouble\nis off")
    _require_running(state)
    return noted_reroll(_double_trouble(state), (), (), ())


def _double_trouble(state: CafeState) -> CafeState:
    """Flip one light order dark; when every open order is dark, draw a new light one."""
    log = _current_log(state)
    if state.light > 0:
        return replace(state, light=state.light - 1, dark=state.dark + 1, trouble="flip",
                       rounds=_log(state, dark_flips=log.dark_flips + 1))
    return replace(state, light=state.light + 1, trouble="draw",
                   rounds=_log(state, extra_drawn=log.extra_drawn + 1))


def _place(state: CafeState, action: Action) -> CafeState:
    if setup_of(state).dice == "manual":
        raise RuleError("Manual dice: the box\ndoes not track dice")
    if state.phase not in ("running", "paused"):
        raise RuleError("Start the round first")
    die = _die(action.get("die"))
    on = flag(action, "placed", True, "Placed")
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
    # "You prepare the subsequent round ... as described in the game setup": a new round
    # starts from a fresh roll, so the doubles an earlier round saw are forgotten even when
    # the journal holds no preparation roll (sensor dice read late, or none read at all).
    return replace(state, phase="running", light=laid_out, dark=0,
                   deadline=at + setup_of(state).round_seconds, remaining=0.0,
                   placed=(False,) * 4, to_roll=(), counted=(), rounds=(*state.rounds, log))


def _pause(state: CafeState, action: Action) -> CafeState:
    if "left" in action:
        return _pause_at_power_up(state, action)
    _require_running(state)  # a reading at or past the deadline is refused by apply()
    at = _at(action)
    return replace(state, phase="paused", remaining=deadline_of(state) - at, deadline=None)


def _pause_at_power_up(state: CafeState, action: Action) -> CafeState:
    """A round found running or paused at power-up: paused with the time left at its last
    reading, given explicitly since the deadline and the readings belong to the clock of the
    boot before; the clock epoch ends."""
    _require_round(state)
    if "at" in action:
        raise RuleError("Pause needs 'left' > 0\nand no 'at'")
    left = number(action, "left", "Pause's 'left'")
    if left <= 0:
        raise RuleError("Pause needs 'left' > 0\nand no 'at'")
    most = state.remaining if state.phase == "paused" else (
        deadline_of(state) - state.last_at if state.last_at is not None else 0.0)
    if left > most + EPSILON_S:
        raise RuleError("More time left than\nat the last reading")
    return replace(state, phase="paused", remaining=float(left), deadline=None, last_at=None)


def _clock(state: CafeState, action: Action) -> CafeState:
    """A reading of the round clock, journaled every few seconds so that a power cut loses
    little of the time used (apply() keeps it as the latest reading)."""
    _require_running(state)
    _at(action)  # a reading at or past the deadline is refused by apply()
    return state


def after_undo(state: CafeState, now: float) -> list[Action]:
    """What the box journals with an undo that leaves the round running: the clock as it reads
    now (``now``, the loop's reading), so the readings the undo took back with the action
    never give time back after a power cut; a round whose time ran out meanwhile (an undone
    pause) is over now."""
    if state.phase != "running":
        return []
    if now < deadline_of(state) - EPSILON_S:
        return [{"type": "clock", "at": now}]
    return [{"type": "time_up", "at": now}]


def _resume(state: CafeState, action: Action) -> CafeState:
    if state.phase != "paused":
        raise RuleError("The round is\nnot paused")
    # Pausing moves the deadline: the round ends ``remaining`` seconds after the resume.
    return replace(state, phase="running", deadline=_at(action) + state.remaining, remaining=0.0)


def _order_done(state: CafeState, action: Action) -> CafeState:
    _require_running(state)
    side = action.get("side", "light")
    _check_side(state, side, "fulfilled")
    mode = setup_of(state).dice
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
    log = _current_log(state)
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
    log = _current_log(state)
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
    log = _current_log(state)
    return replace(state, light=light, dark=dark, rounds=_log(state, corrections=log.corrections + 1))


def _time_up(state: CafeState, action: Action) -> CafeState:
    _require_running(state)
    at = _at(action)
    deadline = deadline_of(state)
    if at < deadline - EPSILON_S:
        left = math.ceil(deadline - at)
        # More than a round left: a reading from before the round started (a damaged journal).
        raise RuleError(f"Time is not up:\n{left} s left" if left <= setup_of(state).round_seconds
                        else "Time is not up:\nclock reads early")
    return _end_round(state, "time up", 0.0)


def _end_round(state: CafeState, how: str, left_s: float | None) -> CafeState:
    """Close the round; open orders go to round 3's pile, or decide the game after round 3."""
    open_orders = state.open_orders
    final = state.round == ROUNDS
    log = replace(_current_log(state), ended=how, time_left=left_s,
                  carried=0 if final else open_orders, left=open_orders if final else 0)
    closed = replace(state, light=0, dark=0, deadline=None, placed=(False,) * 4, to_roll=(),
                     rounds=(*state.rounds[:-1], log))
    if final:
        # "You win together if you have fulfilled all orders at the end of round 3."
        return replace(closed, phase="finished", remaining=0.0,
                       result="won" if open_orders == 0 else "lost")
    return replace(closed, phase="ready", round=state.round + 1, carried=state.carried + open_orders,
                   remaining=setup_of(state).round_seconds)


# ----- small checks ----------------------------------------------------------------------------

def setup_of(state: CafeState) -> Setup:
    """The game's setup, which every state but the first has (apply() refuses all but the
    setup before it)."""
    assert state.setup is not None
    return state.setup


def deadline_of(state: CafeState) -> float:
    """The running round's deadline (round_start and resume set it); without one, refused."""
    if state.deadline is None:
        raise RuleError("No round running")
    return state.deadline


def _current_log(state: CafeState) -> RoundLog:
    """The log of the round being played, which round_start opens; without one, refused."""
    log = state.current
    if log is None:
        raise RuleError("No round running")
    return log


def _at(action: Action) -> float:
    """The clock reading of an action (a finite number; true is not one)."""
    return float(number(action, "at", "Time 'at'"))


def _die(value: Any) -> int:
    """A die index 0..3 (1.0 or True are not die numbers)."""
    return whole_value(value, 0, 3, "Die")


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


# Actions whose reading begins a clock epoch (see CafeState.last_at).
_EPOCH_STARTS = ("round_start", "resume")
# The one timed action that may come at or after the round's deadline.
_AFTER_THE_DEADLINE = ("time_up",)

_HANDLERS = {
    "setup": _setup,
    "roll": _roll,
    "clock": _clock,
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
