"""Makan Mania screens: quick setup, round start, Rush end, the Queue, scoreboard, final scores.

Screens read ``app.games.session.state`` and turn presses into rules actions; they never change the
state themselves, so undo and resume only need :meth:`MakanScreen.on_state_changed`. The root
screen's views are by stage: the start of a round (:mod:`.round_views`), the Queue and scoring
(:mod:`.queue_views`); the setup is in :mod:`.setup_screen`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from companion.contract.spec import Screen, running_session
from companion.frame.canvas import Canvas
from companion.ui.widgets import (
    MessageScreen,
    is_down,
    is_up,
    step_selection,
)

from . import rules
from .queue_views import QueueViews
from .round_views import RoundViews
from .setup_screen import SetupScreen

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table


__all__ = ["MakanScreen", "SetupScreen", "new_game", "play"]


class MakanScreen(RoundViews, QueueViews, Screen):
    """The game's root: one view per step of the round, chosen from the state's phase."""

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        self.board_seen = 1   # the round whose scoreboard was closed with OK
        self.selected = 0     # drink in the Queue, player at scoring
        self.drinks_open = False  # the Queue shows the turn first, its drinks a press away
        self.taken: set[tuple[int, int]] = set()
        self.turn_shown_at = app.clock.now()

    @property
    def state(self) -> rules.State:
        return running_session(self.app.games, rules.State).state

    @property
    def view(self) -> str:
        s = self.state
        if s.phase == "reveal" and s.round > self.board_seen:
            return "board"
        return s.phase

    @property
    def title(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        s = self.state
        if self.view == "board":
            return f"Makan · After R{s.round - 1}"
        if s.phase == "setup":
            return "Makan Mania"
        # Short enough beside every status icon; the Queue's label is the turn in table order.
        label = {"reveal": "Start", "rush": "Rush", "jumps": "Jumps",
                 "queue": f"Turn {s.turn + 1}/{len(s.players)}"}.get(s.phase)
        if label is None:
            return "Makan · Scores" if s.phase == "over" else "Makan · Scoring"
        return f"Makan R{s.round} · {label}"

    @property
    def hint(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        return {
            "setup": "OK set up",
            "board": "OK next round",
            "reveal": "OK deal drinks" if self.state.deal else "OK enter drinks",
            "rush": "OK someone sat down",
            "jumps": "OK jump  ◆ stay",
            "queue": "▲▼ drink OK buy ◆ next" if self.drinks_open else "▼ drinks  ◆ next player",
            "scoring": "▲▼ player  OK score",
            "over": "▲▼ player  OK details",
        }[self.view]

    def on_state_changed(self) -> None:
        self.selected, self.drinks_open = 0, False
        self.turn_shown_at = self.app.clock.now()
        # An undo back into an earlier round shows that round's scoreboard again when it ends.
        self.board_seen = min(self.board_seen, self.state.round)

    def on_enter(self) -> None:
        self.selected = max(0, min(self.selected, self._rows() - 1))

    def _rows(self) -> int:
        s = self.state
        if s.phase == "queue":
            return len(rules.visible_slots(s, rules.turn_of(s)))
        return len(s.players)

    def _commit(self, action: dict[str, Any]) -> bool:
        self.app.pop_to(self)
        phase, turn = self.state.phase, self.state.turn
        done = self.app.dispatch(action)
        if done:
            self.app.beep("tick")
            if self.state.phase != phase:
                self.selected, self.drinks_open = 0, False   # a new step starts at its top
            if (self.state.phase, self.state.turn) != (phase, turn):
                self.turn_shown_at = self.app.clock.now()   # see TURN_SEEN_S
            self.on_enter()
        return done

    def _notice(self, title: str, lines: list[str]) -> None:
        """Something the table must do (move trays, take coins, pick again): it waits for OK,
        and that OK is the press that shows the next turn was seen (see TURN_SEEN_S)."""
        self.app.push(MessageScreen(self.app, title, lines))
        self.turn_shown_at = -math.inf

    def draw(self, canvas: Canvas) -> None:
        getattr(self, f"_draw_{self.view}")(canvas)

    def on_button(self, event: ButtonEvent) -> bool:
        view = self.view
        if event.button != "ACTION":
            self.turn_shown_at = -math.inf   # any other press shows the turn was seen
        if view == "queue" and (is_up(event) or is_down(event)):
            self._queue_move(event)
            return True
        if view in ("board", "scoring", "over") and (is_up(event) or is_down(event)):
            rows = self._rows()
            step = step_selection(event, self.selected, rows) if rows else None
            if step is not None:
                self.selected = step
            return True
        handler = getattr(self, f"_{view}_{event.button.lower()}", None)
        if handler is None or event.kind != "short":
            return False
        return handler() is not False   # a handler may leave the press to the box


def new_game(app: Table) -> Screen:
    return SetupScreen(app)


def play(app: Table) -> Screen:
    return MakanScreen(app)
