"""The screen stack: push, pop and replace screens, leave a game for the home menu, and the
short messages over them (toasts, refusals, beeps)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..games.base import Screen, Session
from ..ui.widgets import ConfirmScreen

if TYPE_CHECKING:
    from hardware.bundle import Hardware
    from hardware.ports import Clock

TOAST_S = 2.5
NOTICE_S = 4.0  # a journal warning stays this long whatever else is said meanwhile


class ScreenStack:
    """The stack of screens, the home menu at the bottom; part of :class:`companion.box.app.App`."""

    hardware: Hardware
    clock: Clock
    stack: list[Screen]
    game_root: Screen | None
    session: Session | None
    _toast: tuple[list[str], float] | None
    _notice_until: float  # while the toast is a notice, no other toast replaces it
    _toast_next: list[str] | None  # the toast that waits for the notice to end
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
            if self.game_root is not None and self.session is not None:
                self.game_root.on_leave()  # e.g. the Café pauses a running round
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
        """Show up to two short lines over the screen for a moment (after a notice showing)."""
        wrapped = _wrap_all(lines)
        now = self.clock.now()
        if now < self._notice_until:
            self._toast_next = wrapped
        else:
            self._toast = (wrapped, now + TOAST_S)
        self._dirty = True
        if error:
            self.beep("error")

    def notice(self, *lines: str, error: bool = False) -> None:
        """A message no toast or press hides for :data:`NOTICE_S` (the journal's health)."""
        now = self.clock.now()
        if now >= self._notice_until and self._toast is not None:
            self._toast_next = self._toast[0]  # e.g. "Undone: ..." shown after the notice
        self._notice_until = now + NOTICE_S
        self._toast = (_wrap_all(lines), self._notice_until)
        self._dirty = True
        if error:
            self.beep("error")

    def clear_toast(self, now: float) -> None:
        """A press or the toast's time ends it; a notice only its time, then the toast that
        waited for it is shown."""
        if now < self._notice_until:
            return
        waiting, self._toast_next = self._toast_next, None
        self._toast = (waiting, now + TOAST_S) if waiting else None
        self._dirty = True

    def refuse(self, reason: str) -> None:
        """An illegal choice: a two-line reason and an error beep; nothing changes."""
        self.toast(reason, error=True)

    def beep(self, pattern: str) -> None:
        self.hardware.buzzer.play(pattern)



def _wrap_all(lines: tuple[str, ...]) -> list[str]:
    wrapped: list[str] = []
    for line in lines:
        wrapped += _wrap(line)
    return wrapped[:2]


def _wrap(text: str) -> list[str]:
    from ..ui.canvas import WIDTH
    from ..ui.font import SMALL

    return SMALL.wrap(text, WIDTH - 10)
