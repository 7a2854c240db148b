"""Makan Mania screens: quick setup, round start, Rush end, the Queue, scoreboard, final scores.

Screens read ``app.games.session.state`` and turn presses into rules actions; they never change the
state themselves, so undo and resume only need :meth:`MakanScreen.on_state_changed`. The root
screen shows one view at a time, an object chosen by :data:`VIEWS` from the state's phase: the
start of a round (:mod:`.round_views`), the Queue and scoring (:mod:`.queue_views`); the setup is
in :mod:`.setup_screen`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.ui.widgets import Screen, is_down, is_up

from .queue_views import DrinksView, OverView, ScoringView, TurnView
from .round_views import BoardView, JumpsView, RevealView, RushView, SetupView
from .setup_screen import SetupScreen
from .view import Root, View

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table
    from companion.frame.canvas import Canvas


__all__ = ["MakanScreen", "SetupScreen", "new_game", "play"]

# The root screen's view by its name (the state's phase, the scoreboard between rounds and the
# Queue's drinks page).
VIEWS: dict[str, type[View]] = {
    "setup": SetupView, "board": BoardView, "reveal": RevealView, "rush": RushView,
    "jumps": JumpsView, "queue": TurnView, "drinks": DrinksView, "scoring": ScoringView,
    "over": OverView,
}


class MakanScreen(Root):
    """The game's root: one view per step of the round, chosen from the state's phase."""

    @property
    def view(self) -> str:
        s = self.state
        if s.phase == "reveal" and s.round > self.board_seen:
            return "board"
        if s.phase == "queue" and self.drinks_open:
            return "drinks"
        return s.phase

    @property
    def title(self) -> str:  # type: ignore[override]  # the state decides it
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
    def hint(self) -> str:  # type: ignore[override]  # the view decides it
        return self._shown().hint

    def on_state_changed(self) -> None:
        self.selected, self.drinks_open = 0, False
        self.turn_shown_at = self.app.clock.now()
        # An undo back into an earlier round shows that round's scoreboard again when it ends.
        self.board_seen = min(self.board_seen, self.state.round)

    def draw(self, canvas: Canvas) -> None:
        self._shown().draw(canvas)

    def on_button(self, event: ButtonEvent) -> bool:
        if event.button != "ACTION":
            self.turn_shown_at = -math.inf   # any other press shows the turn was seen
        view = self._shown()
        if is_up(event) or is_down(event):
            return view.move(event)
        if event.kind != "short":
            return False
        if event.button == "OK":
            return view.ok()
        if event.button == "ACTION":
            return view.action()
        return event.button == "BACK" and view.back()

    def _shown(self) -> View:
        return VIEWS[self.view](self)


def new_game(app: Table) -> Screen:
    return SetupScreen(app)


def play(app: Table) -> Screen:
    return MakanScreen(app)
