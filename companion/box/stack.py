"""The screen stack: push, pop and replace screens, the game's root among them, and the short
messages over them (toasts, notices, refusals). It owns the screens and the toast; the app
holds it and asks it, and so does the game session (to show a game, or to drop what covers
the game's root after an undo)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.contract.spec import Screen

if TYPE_CHECKING:
    from hardware.ports import Clock

TOAST_S = 2.5
NOTICE_S = 4.0  # a journal warning stays this long whatever else is said meanwhile


class ScreenStack:
    """The stack of screens, the home menu at the bottom, and the toast over the top one."""

    def __init__(self, clock: Clock, beep: Callable[[str], None]) -> None:
        self._clock = clock
        self._beep = beep
        self.screens: list[Screen] = []
        self.game_root: Screen | None = None  # the running game's screen, when it is shown
        self._toast: tuple[list[str], float] | None = None
        self._notice_until = float("-inf")  # while the toast is a notice, no toast replaces it
        self._toast_next: list[str] | None = None  # the toast that waits for the notice to end
        self.dirty = True  # the frame must be drawn again (see Panel.redraw)

    @property
    def top(self) -> Screen:
        return self.screens[-1]

    @property
    def home(self) -> Screen:
        return self.screens[0]

    # ----- the screens --------------------------------------------------------------------
    def start(self, home: Screen) -> None:
        """The home menu alone, not entered (it is drawn as it was made)."""
        self.screens = [home]
        self.game_root = None
        self.dirty = True

    def only(self, screen: Screen) -> None:
        """``screen`` alone (the last frame before power-off), not entered; no toast over it."""
        self.start(screen)
        self._toast = None

    def push(self, screen: Screen) -> None:
        self.dirty = True
        self.screens.append(screen)
        screen.on_enter()

    def pop(self) -> None:
        self.dirty = True
        if len(self.screens) > 1:
            self.screens.pop()
            self.screens[-1].on_enter()

    def pop_to(self, screen: Screen | None) -> None:
        """Pop the screens above ``screen`` (a flow's questions, a menu left open), each revealed
        one entered as :meth:`pop` does; never the home menu."""
        while self.screens[-1] is not screen and len(self.screens) > 1:
            self.pop()

    def replace(self, screen: Screen) -> None:
        self.dirty = True
        self.screens[-1] = screen
        screen.on_enter()

    def back(self) -> None:
        """BACK on a screen that did not use it: leave it, but never the game's root."""
        if self.top is self.game_root:
            self.toast("Hold BACK to undo", "Hold OK for the menu")
        else:
            self.pop()

    def home_only(self) -> None:
        """Back to the home menu, entered; no game shown."""
        self.dirty = True
        self.start(self.home)
        self.home.on_enter()

    def show_game(self, root: Screen) -> None:
        """The game's root screen over the home menu, entered."""
        self.dirty = True
        self.screens = [self.home, root]
        self.game_root = root
        root.on_enter()

    def game_changed(self) -> None:
        """The game's state changed under the screens (an undo): those above its root go,
        unentered (they were about the state that is gone), and the root rebuilds."""
        self.dirty = True
        while self.screens[-1] is not self.game_root and len(self.screens) > 1:
            self.screens.pop()
        if self.game_root is not None:
            self.game_root.on_state_changed()

    def shows_game(self) -> bool:
        return self.game_root is not None and self.game_root in self.screens

    # ----- the toast ----------------------------------------------------------------------
    @property
    def toast_lines(self) -> list[str] | None:
        """The lines over the screen now, if any."""
        return self._toast[0] if self._toast else None

    @property
    def toast_ends(self) -> float | None:
        return self._toast[1] if self._toast else None

    def toast(self, *lines: str, error: bool = False) -> None:
        """Show up to two short lines over the screen for a moment (after a notice showing)."""
        wrapped = _wrap_all(lines)
        now = self._clock.now()
        if now < self._notice_until:
            self._toast_next = wrapped
        else:
            self._toast = (wrapped, now + TOAST_S)
        self.dirty = True
        if error:
            self._beep("error")

    def notice(self, *lines: str, error: bool = False) -> None:
        """A message no toast or press hides for :data:`NOTICE_S` (the journal's health)."""
        now = self._clock.now()
        if now >= self._notice_until and self._toast is not None:
            self._toast_next = self._toast[0]  # e.g. "Undone: ..." shown after the notice
        self._notice_until = now + NOTICE_S
        self._toast = (_wrap_all(lines), self._notice_until)
        self.dirty = True
        if error:
            self._beep("error")

    def clear_toast(self, now: float) -> None:
        """A press or the toast's time ends it; a notice only its time, then the toast that
        waited for it is shown."""
        if now < self._notice_until:
            return
        waiting, self._toast_next = self._toast_next, None
        self._toast = (waiting, now + TOAST_S) if waiting else None
        self.dirty = True

    def refuse(self, reason: str) -> None:
        """An illegal choice: a two-line reason and an error beep; nothing changes."""
        self.toast(reason, error=True)


def _wrap_all(lines: tuple[str, ...]) -> list[str]:
    wrapped: list[str] = []
    for line in lines:
        wrapped += _wrap(line)
    return wrapped[:2]


def _wrap(text: str) -> list[str]:
    from companion.frame.canvas import WIDTH
    from companion.frame.font import SMALL

    return SMALL.wrap(text, WIDTH - 10)
