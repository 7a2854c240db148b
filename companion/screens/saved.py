"""The saved games: every unfinished game, the one played last first; OK resumes one,
◆ discards one after a confirm (it stays in the journal's history)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from companion.contract.saved_games import when_text
from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import SMALL
from companion.ui.widgets import ConfirmScreen, Screen, is_press, step_selection

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.saved_games import SavedEntry
    from companion.contract.spec import BoxTable


class SavedGamesScreen(Screen):
    """Two lines a game: "Makan Mania   today 14:05" and "round 2 · Ana, Ben, Cy"."""

    app: BoxTable

    title = "Saved games"
    hint = "OK resume  ◆ discard"

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app)
        self.selected = 0
        self.entries: list[SavedEntry] = []
        self.on_enter()

    def on_enter(self) -> None:
        self.entries = self.app.saved_games()
        self.selected = min(self.selected, max(0, len(self.entries) - 1))

    def draw(self, canvas: Canvas) -> None:
        if not self.entries:
            canvas.paragraph("No saved games.", 1)
            return
        per_view = max(1, canvas.lines // 2)
        first = min(self.selected, max(0, len(self.entries) - per_view))
        now = time.time()
        for row, index in enumerate(range(first, min(len(self.entries), first + per_view))):
            game = self.entries[index]
            when = when_text(game.last_at, now)
            where = f"{game.where} · {game.players}" if game.players else game.where
            chosen = index == self.selected
            when_w = SMALL.width(when) + 2
            canvas.line(row * 2, SMALL.fit(game.title, WIDTH - 4 - when_w), invert=chosen)
            canvas.text(WIDTH - when_w, row * 2 * LINE_H + 1, when, fill=0 if chosen else 255)
            canvas.line(row * 2 + 1, SMALL.elide(f" {where}", WIDTH - 2), invert=chosen)

    def on_button(self, event: ButtonEvent) -> bool:
        if not self.entries:
            return False
        moved = step_selection(event, self.selected, len(self.entries))
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            self.app.games.resume(self.entries[self.selected].id)
        elif is_press(event, "ACTION"):
            game = self.entries[self.selected]
            self.app.push(ConfirmScreen(
                self.app, "Discard?", f"Discard {game.heading}? It stays in history.",
                lambda: self._discard(game)))
        else:
            return False
        return True

    def _discard(self, game: SavedEntry) -> None:
        self.app.discard(game.id)
        self.app.toast("Discarded:", game.heading)
        self.on_enter()
        if not self.entries:
            self.app.pop()
