"""The ports the product talks to. Adapters in this package implement them."""

from __future__ import annotations

from typing import Protocol

from PIL import Image


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds."""

    @property
    def is_virtual(self) -> bool:
        """True when time moves only by ``advance`` (tests), so the loop must never block."""


class Display(Protocol):
    width: int
    height: int

    def show(self, image: Image.Image) -> bool:
        """Show a 1-bit frame; return True if the panel was written (it is skipped when unchanged)."""

    def set_contrast(self, level: int) -> None:
        """0..255."""

    def set_power(self, on: bool) -> None:
        """Blank (off) or wake (on) the panel without losing the frame."""

    def close(self) -> None: ...


class Buzzer(Protocol):
    def play(self, pattern: str) -> None:
        """Play a named pattern (tick, warn, alarm, error, ok) without blocking."""

    def set_volume(self, volume: int) -> None:
        """0 mutes; 1..3 from quiet to loud where the buzzer allows it."""

    def close(self) -> None: ...


class Buttons(Protocol):
    def close(self) -> None: ...
