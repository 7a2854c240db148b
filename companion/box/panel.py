"""The panel: idle dimming and blanking, and drawing the top screen with its title bar and
toast into the frame the display writes only when it changed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PIL import Image

from ..games.base import Screen
from ..input import SensorStatus
from ..ui.canvas import compose

if TYPE_CHECKING:
    from hardware.bundle import Hardware

    from ..config import Config

log = logging.getLogger(__name__)

DIM_CONTRAST = 8


class Panel:
    """Idle state and frames; part of :class:`companion.box.app.App`."""

    hardware: Hardware
    config: Config
    settings: dict[str, Any]
    sensor: SensorStatus
    stack: list[Screen]
    journal_ok: bool
    frame_listeners: list[Callable[[Image.Image], None]]
    frames_shown: int
    display_errors: int
    last_frame: Image.Image | None
    _dirty: bool
    _toast: tuple[list[str], float] | None
    _last_input: float
    _idle: str

    def _keeps_awake(self) -> bool:
        return any(getattr(screen, "keeps_awake", False) for screen in self.stack)

    def _idle_deadline(self) -> float | None:
        if self._keeps_awake() or self._idle == "blank":
            return None
        minutes = self.config.display.dim_after_min if self._idle == "awake" else (
            self.config.display.blank_after_min
        )
        return self._last_input + minutes * 60

    def _update_idle(self, now: float) -> None:
        if self._keeps_awake():
            if self._idle != "awake":
                self._wake()
            self._last_input = now
            return
        idle_s = now - self._last_input
        if self._idle == "awake" and idle_s >= self.config.display.dim_after_min * 60:
            self._idle = "dim"
            self._dirty = True
            self.hardware.display.set_contrast(DIM_CONTRAST)
        if self._idle == "dim" and idle_s >= self.config.display.blank_after_min * 60:
            self._idle = "blank"
            self._dirty = True
            self.hardware.display.set_power(False)

    def _wake(self) -> None:
        self._idle = "awake"
        self._dirty = True
        self.hardware.display.set_power(True)
        self.hardware.display.set_contrast(self.settings["contrast"])

    @property
    def idle_state(self) -> str:
        return self._idle


    def status_icons(self) -> str:
        icons = ""
        if self.sensor.configured:
            icons += "◎" if self.sensor.online else "⊘"
        if self.settings["volume"] == 0:
            icons += "🔇"
        if not self.journal_ok:
            icons += "⚠"
        return icons

    def redraw(self) -> None:
        """Draw the frame if an event, a timer, a toast or the idle state may have changed it.

        The loop calls this after every wake; a wake with nothing done (a test moving the
        virtual clock in small steps, a deadline already handled) draws nothing.
        """
        if self._dirty:
            self.render()

    def render(self) -> Image.Image:
        """Draw the top screen; the display skips the write when nothing changed."""
        self._dirty = False
        top = self.stack[-1]
        toast = self._toast[0] if self._toast else None
        try:
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        except Exception:
            self._recover(f"drawing {top.name()}")
            top = self.stack[-1]
            toast = self._toast[0] if self._toast else None
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        self.last_frame = image
        try:
            written = self.hardware.display.show(image)
        except Exception:  # a loose wire or a bus error: log it and try again with the next frame
            self.display_errors += 1
            if self.display_errors in (1, 10, 100) or self.display_errors % 1000 == 0:
                log.exception("display write failed (%d times)", self.display_errors)
            return image
        if written:
            self.frames_shown += 1
            for listener in self.frame_listeners:
                listener(image)
        return image


