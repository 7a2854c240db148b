"""The simulated box, built from the libraries' own test devices.

Buttons are gpiozero ``MockFactory`` pins driven low/high like real switches; the display is
``luma.core.device.dummy`` in 1-bit mode (and, to measure the bus, also luma.oled's driver
and the page-diff writer on a model panel); the buzzer records its patterns. The product code
cannot tell them from the real parts.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .bundle import Hardware
from .buttons import BUTTON_NAMES, GpioButtons, PinEdge
from .buzzer import RecordingBuzzer
from .clock import MonotonicClock, VirtualClock
from .display import OledDisplay, PageDiffDisplay
from .model_panel import ModelPanel

log = logging.getLogger(__name__)
PRESS_S = 0.06  # how long the stand-in's finger holds a button down (a short press)


class SimDisplay(OledDisplay):
    """The dummy luma device, keeping every written frame's count and the last image."""

    def __init__(self, rotate: int = 0) -> None:
        from luma.core.device import dummy

        self._dummy = dummy(width=128, height=64, rotate=rotate, mode="1")  # its last image
        super().__init__(self._dummy)
        self._rotate = rotate
        self.listeners: list[Callable[[Any], None]] = []
        self.panel: OledDisplay | None = None
        self._drawn: Any = None  # the last frame as drawn, before luma's rotation

    def measure(self, controller: str, clock: Callable[[], float], bus: Any = None) -> Any:
        """From now on, also write every frame through luma.oled's ``controller`` driver and
        the page-diff writer onto ``bus`` (a :class:`ModelPanel` by default); return the bus."""
        from luma.oled.device import sh1106, ssd1306

        bus = bus if bus is not None else ModelPanel(controller)
        driver = {"ssd1306": ssd1306, "sh1106": sh1106}[controller]
        self.panel = PageDiffDisplay(driver(bus, width=128, height=64, rotate=self._rotate),
                                     controller, clock)
        self.panel.set_power(self.powered)
        if self._drawn is not None:
            self.panel.show(self._drawn)
        return bus

    def show(self, image: Any) -> bool:
        written = super().show(image)
        if written:
            self._drawn = image
            if self.panel is not None:
                self.panel.show(image)
            for listener in self.listeners:
                listener(image)
        return written

    def set_contrast(self, level: int) -> None:
        super().set_contrast(level)
        if self.panel is not None:
            self.panel.set_contrast(level)

    def set_power(self, on: bool) -> None:
        super().set_power(on)
        if self.panel is not None:
            self.panel.set_power(on)
        for listener in self.listeners:
            listener(self.frame())

    def frame(self) -> Any:
        """What the panel shows now (black when blanked)."""
        from PIL import Image

        if not self.powered or self._dummy.image is None:
            return Image.new("1", (self.width, self.height), 0)
        return self._dummy.image

    def save_png(self, path: str, scale: int = 1) -> None:
        from PIL import Image

        image = self.frame().convert("1")
        if scale > 1:
            image = image.resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
        image.save(path)

    def close(self) -> None:
        pass


class SimFinger:
    """Presses the simulated buttons by driving their mock pins like a real switch."""

    def __init__(self, factory: Any, pins: dict[str, int]) -> None:
        self._factory = factory
        self._pins = pins

    def pin(self, button: str) -> Any:
        return self._factory.pin(self._pins[button])

    def down(self, button: str) -> None:
        self.pin(button).drive_low()

    def up(self, button: str) -> None:
        self.pin(button).drive_high()


class StandIn:
    """The simulated panel and buttons as files in a folder, for a program outside the box's
    process (the emulated box's boot measurement): each frame the panel shows appends
    ``<CLOCK_BOOTTIME ns> frame <hash>`` to ``frames``, and each line written to the FIFO
    ``buttons`` (a button's name: UP, DOWN, OK, BACK, ACTION) is a short press of it, noted
    ``<ns> press <name>`` in ``frames`` as the finger goes down."""

    def __init__(self, folder: Path, display: SimDisplay, finger: SimFinger) -> None:
        self.finger = finger
        self.lock = threading.Lock()
        self.frames = (folder / "frames").open("a", encoding="ascii", buffering=1)
        self.fifo = folder / "buttons"
        if not self.fifo.is_fifo():
            os.mkfifo(self.fifo, 0o600)
        display.listeners.append(self.shown)
        threading.Thread(target=self.listen, name="stand-in buttons", daemon=True).start()

    def note(self, what: str) -> None:
        with self.lock:
            self.frames.write(f"{time.clock_gettime_ns(time.CLOCK_BOOTTIME)} {what}\n")

    def shown(self, image: Any) -> None:
        self.note(f"frame {hashlib.sha1(image.tobytes()).hexdigest()[:16]}")

    def listen(self) -> None:
        while True:
            with self.fifo.open(encoding="ascii", errors="replace") as presses:  # waits for a writer
                for line in presses:
                    self.press(line.strip().upper())

    def press(self, button: str) -> None:
        if button not in BUTTON_NAMES:
            log.warning("stand-in: %r is no button (%s)", button, ", ".join(BUTTON_NAMES))
            return
        self.note(f"press {button}")
        self.finger.down(button)
        time.sleep(PRESS_S)
        self.finger.up(button)


def build(
    config: Any,
    post: Callable[[PinEdge], None],
    *,
    virtual_clock: bool = False,
    stand_in: Path | None = None,
) -> Hardware:
    """A simulated box; ``virtual_clock`` for tests (time moves only when advanced);
    ``stand_in``: a folder where a :class:`StandIn` shows the panel and takes presses."""
    from gpiozero.pins.mock import MockFactory

    clock = VirtualClock() if virtual_clock else MonotonicClock()
    factory = MockFactory()
    pins = config.button_pins()
    buttons = GpioButtons(pins, post, clock.now, bounce_s=config.buttons.bounce_ms / 1000 or None,
                          pin_factory=factory)
    display = SimDisplay(rotate=config.display.rotate)
    buzzer = RecordingBuzzer(clock.now, config.buzzer.volume)
    finger = SimFinger(factory, pins)
    extras: dict[str, Any] = {"pin_factory": factory, "finger": finger}
    if stand_in is not None:
        extras["stand_in"] = StandIn(stand_in, display, finger)
    return Hardware(clock=clock, display=display, buzzer=buzzer, buttons=buttons, extras=extras)
