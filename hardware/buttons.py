"""Buttons: gpiozero pins post raw :class:`PinEdge` events with their timestamps.

Turning edges into presses is input logic and lives in :mod:`companion.contract.input`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

BUTTON_NAMES = ("UP", "DOWN", "OK", "BACK", "ACTION")


@dataclass(frozen=True)
class PinEdge:
    """A raw edge from a button pin: ``pressed`` is True when the switch closed."""

    button: str
    pressed: bool
    at: float


class GpioButtons:
    """The five buttons on gpiozero ``DigitalInputDevice`` pins (pull-up, switch to ground).

    Not ``Button``: its hold detection is a thread per button that wakes about ten times a
    second, and the box decodes long presses itself (:mod:`companion.contract.input`). Callbacks run on
    gpiozero's thread and only post a :class:`PinEdge`.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        post: Callable[[PinEdge], None],
        now: Callable[[], float],
        bounce_s: float | None = 0.02,
        pin_factory: object | None = None,
    ) -> None:
        from gpiozero import DigitalInputDevice

        self._buttons = {}
        for name, pin in pins.items():
            button = DigitalInputDevice(pin, pull_up=True, bounce_time=bounce_s,
                                        pin_factory=pin_factory)
            button.when_activated = self._poster(name, True, post, now)
            button.when_deactivated = self._poster(name, False, post, now)
            self._buttons[name] = button

    @staticmethod
    def _poster(
        name: str, pressed: bool, post: Callable[[PinEdge], None], now: Callable[[], float]
    ) -> Callable[[], None]:
        def on_edge() -> None:
            post(PinEdge(name, pressed, now()))

        return on_edge

    def close(self) -> None:
        for button in self._buttons.values():
            button.close()
        self._buttons.clear()
