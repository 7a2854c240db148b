"""A simulated box driven in code: press buttons, move the virtual clock, read the screen.

Used by ``companion screenshot``, the screen walk, replays of button sessions and the tests.
Presses go through the real path: mock pin → gpiozero callback → queue → decoder → screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from companion.games import box_config as config_module
from hardware.buzzer import RecordingBuzzer
from hardware.clock import VirtualClock
from hardware.sim import SimDisplay

from ..box.app import App
from ..box.boot import build_app

PRESS_S = 0.06


class SimBox:
    def __init__(
        self,
        state_dir: str | Path,
        cfg: config_module.Config | None = None,
        seed: int = 1,
        journal: bool = True,
    ) -> None:
        self.config = cfg or config_module.parse({})
        self.app: App = build_app(self.config, sim=True, state_dir=state_dir, virtual_clock=True,
                                  seed=seed, journal=journal)
        self.finger = self.app.hardware.extras["finger"]
        clock, display, buzzer = self.app.hardware.clock, self.app.hardware.display, self.app.hardware.buzzer
        if not (isinstance(clock, VirtualClock) and isinstance(display, SimDisplay)
                and isinstance(buzzer, RecordingBuzzer)):
            raise TypeError("a SimBox is built on the simulated hardware")
        self.clock, self.display, self.buzzer = clock, display, buzzer
        self.app.pump()

    def press(self, button: str, long: bool = False) -> None:
        """A whole press: down, held (long or short), up, with the loop run in between."""
        self.finger.down(button)
        self.app.pump()
        held = self.app.settings.values["long_press_s"] + 0.05 if long else PRESS_S
        self.advance(held)
        self.finger.up(button)
        self.app.pump()
        self.advance(PRESS_S)

    def hold(self, button: str, seconds: float) -> None:
        self.finger.down(button)
        self.app.pump()
        self.advance(seconds)
        self.finger.up(button)
        self.app.pump()

    def advance(self, seconds: float, step: float = 0.05) -> None:
        """Move virtual time, letting the loop act at each step (as it would in real time)."""
        remaining = seconds
        while remaining > 1e-9:
            delta = min(step, remaining)
            self.clock.advance(delta)
            self.app.pump()
            remaining -= delta

    def jump(self, seconds: float) -> None:
        """Move virtual time at once, as if the loop had stalled, then let it catch up."""
        self.clock.advance(seconds)
        self.app.pump()

    @property
    def screen(self) -> Any:
        return self.app.stack.top

    def frame(self) -> Image.Image:
        return self.display.frame()

    def beeps(self) -> list[str]:
        return [pattern for _, pattern in self.buzzer.played]

    def close(self) -> None:
        if self.app.play.journal is not None:
            self.app.play.journal.close()
        self.app.close()
