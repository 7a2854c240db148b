"""Pig's screens: the setup (how many players, the target) and the turn, where OK rolls the
box's die and ACTION holds. They see the box only as a Table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import SMALL
from companion.ui.widgets import InfoScreen, MenuItem, MenuScreen, Screen, StepperScreen, is_press

from . import rules

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table

TITLE = "Pig"


class SetupScreen(MenuScreen):
    """Start first, then the number of players and the target; the players are the roster's
    latest names, then "Player N"."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, f"{TITLE} · setup", [])
        section = app.config.games.get(rules.KEY)
        self.players, self.target = 2, section["target"] if section else rules.TARGET
        self.on_enter()

    def on_enter(self) -> None:
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Players", self._ask("Players", "players", *rules.PLAYERS, 1), str(self.players)),
            MenuItem("Target", self._ask("Target", "target", *rules.TARGETS, 10), str(self.target)),
        ]

    def _ask(self, prompt: str, name: str, low: int, high: int, step: int):
        def chosen(value: int) -> None:
            setattr(self, name, value)
            self.app.pop()
            self.on_enter()

        return lambda: self.app.push(StepperScreen(self.app, self.title, prompt,
                                                   getattr(self, name), low, high, chosen, step))

    def names(self) -> list[str]:
        known = [n for n in self.app.games.roster_names() if len(n) <= rules.NAME_MAX]
        spare = (f"Player {n}" for n in range(1, 7) if f"Player {n}" not in known)
        return [*known, *spare][: self.players]

    def _start(self) -> None:
        self.app.games.start(rules.KEY, {
            "type": "setup", "players": self.names(), "target": self.target})


class PlayScreen(Screen):
    """Whose turn, their last roll and the pot, and every score on one line (the player whose
    turn it is marked); OK rolls, ACTION holds, DOWN lists the scores by name."""

    title = TITLE
    hint = "OK roll ◆ hold ▼ all"

    def _state(self) -> rules.PigState:
        session = self.app.games.session
        return session.state if session is not None else rules.initial_state()

    def draw(self, canvas: Canvas) -> None:
        state = self._state()
        if not state.started:
            return
        if state.winner is not None:
            canvas.center(1, f"{state.players[state.winner]} wins!")
        else:
            last = {None: "to roll", 1: "bust!"}.get(state.last, f"rolled {state.last}")
            canvas.center(1, f"{state.players[state.turn]} {last}")
            canvas.big(LINE_H + 2, str(state.pot))
        scores = " ".join(f"{'>' if i == state.turn and state.winner is None else ''}{score}"
                          for i, score in enumerate(state.scores))
        canvas.center(canvas.height - LINE_H, SMALL.elide(scores, WIDTH))

    def on_button(self, event: ButtonEvent) -> bool:
        state = self._state()
        if is_press(event, "DOWN"):
            rows = list(zip(state.players, map(str, state.scores), strict=True))
            self.app.push(InfoScreen(self.app, f"{TITLE} · scores", lambda: rows))
        elif state.winner is not None:
            return False
        elif is_press(event, "OK"):
            self.app.dispatch({"type": "roll", "face": self.app.rng.randint(1, 6), "source": "box"})
        elif is_press(event, "ACTION"):
            self.app.dispatch({"type": "hold"})
        else:
            return False
        return True
