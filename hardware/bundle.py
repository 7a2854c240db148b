"""The hardware bundle: the adapters the app drives, as :mod:`hardware.device` or
:mod:`hardware.sim` builds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .ports import Buttons, Buzzer, Clock, Display


@dataclass
class Hardware:
    """The adapters the app drives, built by :mod:`hardware.device` or :mod:`hardware.sim`."""

    clock: Clock
    display: Display
    buzzer: Buzzer
    buttons: Buttons | None = None
    extras: dict[str, Any] = field(default_factory=dict)  # e.g. the simulator's pin factory

    def close(self) -> None:
        if self.buttons is not None:
            self.buttons.close()
        self.buzzer.close()
        self.display.close()
