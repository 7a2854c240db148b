"""Pig's rules, pure: the die roll is drawn by the screen (or read by the sensor) and arrives
inside the ``roll`` action, so a replay never rolls.

Actions:
- ``{"type": "setup", "game": "pig", "players": ["Ana", "Ben"], "target": 100}``
- ``{"type": "roll", "face": 1..6, "source": "box" | "sensor"}``
- ``{"type": "hold"}``
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.contract.names import MAX_LETTERS
from companion.contract.rules import Action, RuleError, check_game, whole, whole_value

KEY = "pig"
PLAYERS = (2, 6)
TARGET = 100
TARGETS = (20, 200)
NAME_MAX = MAX_LETTERS   # the box's rule: a name fits beside a score on any line


@dataclass(frozen=True)
class PigState:
    players: tuple[str, ...] = ()
    scores: tuple[int, ...] = ()
    target: int = TARGET
    turn: int = 0                 # whose turn, an index into players
    pot: int = 0                  # the turn total, lost on a 1
    last: int | None = None       # the last face rolled
    winner: int | None = None

    @property
    def started(self) -> bool:
        return bool(self.players)


def initial_state() -> PigState:
    return PigState()


def is_finished(state: PigState) -> bool:
    return state.winner is not None


def apply(state: PigState, action: Action) -> PigState:
    kind = action.get("type")
    if kind == "setup":
        return _setup(state, action)
    if not state.started:
        raise RuleError("Set up the game\nfirst")
    if state.winner is not None:
        raise RuleError("The game is over")
    if kind == "roll":
        face = whole(action, "face", 1, 6, "Face")
        if face == 1:  # "If you roll a 1, you bust: your turn total is lost"
            return replace(state, pot=0, last=1, turn=_next(state))
        return replace(state, pot=state.pot + face, last=face)
    if kind == "hold":
        if state.pot == 0:
            raise RuleError("Roll at least once\nbefore holding")
        scores = list(state.scores)
        scores[state.turn] += state.pot
        won = state.turn if scores[state.turn] >= state.target else None
        return replace(state, scores=tuple(scores), pot=0, last=None, winner=won,
                       turn=state.turn if won is not None else _next(state))
    raise RuleError(f"Unknown action\n{str(kind)[:16]}")


def _setup(state: PigState, action: Action) -> PigState:
    if state.started:
        raise RuleError("The game is\nalready set up")
    check_game(action, KEY)
    names = action.get("players")
    if not isinstance(names, list):
        raise RuleError("Players must be\na list of names")
    whole_value(len(names), *PLAYERS, "Players")
    if not all(isinstance(n, str) and 0 < len(n) <= NAME_MAX for n in names):
        raise RuleError(f"A name is 1..{NAME_MAX}\nletters")
    if len(set(names)) != len(names):
        raise RuleError("Two players have\nthe same name")
    target = whole(action, "target", *TARGETS, "Target", default=TARGET)
    return PigState(players=tuple(names), scores=(0,) * len(names), target=target)


def _next(state: PigState) -> int:
    return (state.turn + 1) % len(state.players)


def summary(state: PigState) -> dict[str, Any]:
    """The state as JSON: what ``companion replay pig`` prints and the history keeps."""
    return {"players": [{"name": n, "score": s} for n, s in zip(state.players, state.scores,
                                                                strict=True)],
            "target": state.target, "turn": state.players[state.turn] if state.started else None,
            "pot": state.pot,
            "winner": None if state.winner is None else state.players[state.winner]}


def describe(state: PigState) -> str:
    """Where the game stands, for the resume question: "Ben's turn, 57-43"."""
    if not state.started:
        return "not set up"
    scores = "-".join(str(s) for s in state.scores)
    if state.winner is not None:
        return f"{state.players[state.winner]} won, {scores}"
    return f"{state.players[state.turn]}'s turn, {scores}"


def describe_action(action: Action, state: PigState) -> str:
    """The action in a few words, given the state it was applied to: "Ana rolled 4"."""
    kind = action.get("type")
    if kind == "setup":
        return "the setup"
    who = state.players[state.turn] if state.started else "?"
    if kind == "roll":
        face = action.get("face")
        return f"{who} bust on 1" if face == 1 else f"{who} rolled {face}"
    if kind == "hold":
        return f"{who} held {state.pot}"
    return str(kind)


def is_undoable(action: Action) -> bool:
    return action.get("type") != "setup"
