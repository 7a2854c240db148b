"""The panel: idle dimming and blanking, the status icons of the parts' health as they tell it,
and drawing the top screen with its title bar and toast into the frame the display writes only
when it changed."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PIL import Image

from companion.frame.canvas import compose

if TYPE_CHECKING:
    from companion.contract.config import Config
    from hardware.bundle import Hardware

    from .stack import ScreenStack

log = logging.getLogger(__name__)

DIM_CONTRAST = 8


@dataclass(frozen=True)
class Health:
    """A part's news for the panel: ``part`` ("journal", "sensor") works (``ok``) or not, and
    what it has to say, shown as a notice no other message hides (``error``: with a beep)."""

    part: str
    ok: bool
    lines: tuple[str, ...] = ()
    error: bool = False


class Panel:
    """The panel's idle state and the frames drawn on it, owned here; the app holds it."""

    def __init__(self, hardware: Hardware, config: Config, settings: dict[str, Any],
                 screens: ScreenStack, recover: Callable[[str], None]) -> None:
        self._hardware = hardware
        self._config = config
        self._settings = settings  # the app's, as set on the box or the phone
        self._screens = screens
        # What each part last told (see tell); a configured sensor is offline until it says
        # otherwise, and a sensor that tells is one.
        self._ok: dict[str, bool] = {"journal": False}
        if config.sensor.port:
            self._ok["sensor"] = False
        self._recover = recover  # a screen that fails to draw is a bug the app recovers from
        self.frame_listeners: list[Callable[[Image.Image], None]] = []
        self.frames_shown = 0
        self.display_errors = 0
        self.last_frame: Image.Image | None = None
        self._last_input = hardware.clock.now()
        self._idle = "awake"  # awake | dim | blank

    def _keeps_awake(self) -> bool:
        return any(getattr(screen, "keeps_awake", False) for screen in self._screens.screens)

    def idle_deadline(self) -> float | None:
        if self._keeps_awake() or self._idle == "blank":
            return None
        minutes: float = self._config.display.dim_after_min if self._idle == "awake" else (
            self._config.display.blank_after_min
        )
        return self._last_input + minutes * 60

    def update_idle(self, now: float) -> None:
        if self._keeps_awake():
            if self._idle != "awake":
                self.wake()
            self._last_input = now
            return
        idle_s = now - self._last_input
        if self._idle == "awake" and idle_s >= self._config.display.dim_after_min * 60:
            self._idle = "dim"
            self._screens.dirty = True
            self._hardware.display.set_contrast(DIM_CONTRAST)
        if self._idle == "dim" and idle_s >= self._config.display.blank_after_min * 60:
            self._idle = "blank"
            self._screens.dirty = True
            self._hardware.display.set_power(False)

    def wake(self) -> None:
        self._idle = "awake"
        self._screens.dirty = True
        self._hardware.display.set_power(True)
        self._hardware.display.set_contrast(self._settings["contrast"])

    @property
    def idle_state(self) -> str:
        return self._idle

    def woken_by(self, at: float) -> bool:
        """A press at ``at``: True when it only woke a dimmed or blank panel."""
        woke = self._idle != "awake"
        if woke:
            self.wake()
        self._last_input = at
        return woke

    def touched(self, at: float) -> None:
        """Input at ``at``: the idle time starts again."""
        self._last_input = at

    def tell(self, health: Health) -> None:
        """A part's health changed or it has something to say: the icons follow, the lines
        are shown as a notice."""
        if self._ok.get(health.part) != health.ok:
            self._ok[health.part] = health.ok
            self._screens.dirty = True
        if health.lines:
            self._screens.notice(*health.lines, error=health.error)

    def forget(self, part: str) -> None:
        """A part the box no longer has (every smart die forgotten): its icon goes."""
        if self._ok.pop(part, None) is not None:
            self._screens.dirty = True

    def status_icons(self) -> str:
        icons = ""
        if "sensor" in self._ok:
            icons += "◎" if self._ok["sensor"] else "⊘"
        if self._settings["volume"] == 0:
            icons += "🔇"
        if not self._ok["journal"]:
            icons += "⚠"  # changes do not reach the disk
        return icons

    def redraw(self) -> None:
        """Draw the frame if an event, a timer, a toast or the idle state may have changed it.

        The loop calls this after every wake; a wake with nothing done (a test moving the
        virtual clock in small steps, a deadline already handled) draws nothing.
        """
        if self._screens.dirty:
            self.render()

    def render(self) -> Image.Image:
        """Draw the top screen; the display skips the write when nothing changed."""
        self._screens.dirty = False
        top = self._screens.top
        toast = self._screens.toast_lines
        try:
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        except Exception:
            self._recover(f"drawing {top.name()}")
            top = self._screens.top
            toast = self._screens.toast_lines
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        self.last_frame = image
        try:
            written = self._hardware.display.show(image)
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


