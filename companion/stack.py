"""The screen stack: push, pop and replace screens, leave a game for the home menu, and the
short messages over them (toasts, refusals, beeps)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .games.base import Screen, Session
from .ui.widgets import ConfirmScreen

if TYPE_CHECKING:
    from hardware.bundle import Hardware
    from hardware.ports import Clock

TOAST_S = 2.5


class ScreenStack:
    """The stack of screens, the home menu at the bottom; part of :class:`companion.app.App`."""

    hardware: Hardware
    clock: Clock
    stack: list[Screen]
    game_root: Screen | None
    session: Session | None
    _toast: tuple[list[str], float] | None
    _dirty: bool  # the frame must be drawn again (see Panel.redraw)

    def push(self, screen: Screen) -> None:
        self._dirty = True
        self.stack.append(screen)
        screen.on_enter()

    def pop(self) -> None:
        self._dirty = True
        if len(self.stack) > 1:
            self.stack.pop()
            self.stack[-1].on_enter()

    def replace(self, screen: Screen) -> None:
        self._dirty = True
        self.stack[-1] = screen
        screen.on_enter()

    def back(self) -> None:
        """BACK on a screen that did not use it: leave it, but never the game's root."""
        top = self.stack[-1]
        if top is self.game_root:
            self.toast("Hold BACK to undo", "Hold OK for the menu")
        else:
            self.pop()

    def in_game(self) -> bool:
        return self.session is not None and self.game_root in self.stack

    def go_home(self, ask: bool = False) -> None:
        """Back to the home menu; a running game stays saved and can be resumed there."""
        home = self.stack[0]

        def leave() -> None:
            self._dirty = True
            self.stack = [home]
            self.game_root = None
            if self.session and self.session.spec.is_finished(self.session.state):
                self.session = None
            home.on_enter()

        running = self.in_game() and not self.session.spec.is_finished(self.session.state)
        if ask and running:
            self.push(ConfirmScreen(self, "Menu", "Leave the game? It stays saved.", leave))
        else:
            leave()

    def toast(self, *lines: str, error: bool = False) -> None:
        """Show up to two short lines over the screen for a moment."""
        wrapped: list[str] = []
        for line in lines:
            wrapped += _wrap(line)
        self._toast = (wrapped[:2], self.clock.now() + TOAST_S)
        self._dirty = True
        if error:
            self.beep("error")

    def refuse(self, reason: str) -> None:
        """An illegal choice: a two-line reason and an error beep; nothing changes."""
        self.toast(reason, error=True)

    def beep(self, pattern: str) -> None:
        self.hardware.buzzer.play(pattern)



def _wrap(text: str) -> list[str]:
    from .ui.canvas import WIDTH
    from .ui.font import SMALL

    return SMALL.wrap(text, WIDTH - 10)
