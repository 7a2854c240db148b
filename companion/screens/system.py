"""About and the last frame before power-off."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion import __version__
from companion.ui.canvas import Canvas
from companion.ui.widgets import Screen, is_down, is_up

if TYPE_CHECKING:
    from companion.games.base import Table
    from companion.input import ButtonEvent


class AboutScreen(Screen):
    """Version, state directory, config path; UP/DOWN scroll."""

    title = "About"
    hint = "▲▼ scroll  BACK menu"

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        self.offset = 0

    def lines(self) -> list[str]:
        app = self.app
        journal = "on" if app.journal_ok else "off"
        return [
            f"Table Companion {__version__}",
            "State dir:",
            f" {app.state_dir or '-'}",
            "Config:",
            f" {app.config.path}",
            f"Journal: {journal}",
            f"Games: {len(app.games)}",
        ]

    def draw(self, canvas: Canvas) -> None:
        lines = self.lines()
        for row, line in enumerate(lines[self.offset : self.offset + canvas.lines]):
            canvas.line(row, line)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_up(event):
            self.offset = max(0, self.offset - 1)
        elif is_down(event):
            self.offset = min(max(0, len(self.lines()) - 5), self.offset + 1)
        else:
            return False
        return True


class PoweredOffScreen(Screen):
    """What stays on the panel after the service stops."""

    title = "Table Companion"

    def __init__(self, app: Table, message: str) -> None:
        super().__init__(app)
        self.message = message

    def draw(self, canvas: Canvas) -> None:
        canvas.paragraph(self.message, 1)
        canvas.paragraph("Games are saved.", 3)
