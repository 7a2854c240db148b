"""The buzzer: named patterns played on a gpiozero buzzer by a player thread.

The loop only asks for a pattern; the thread does the timing, and a new pattern cuts the
one playing (an alarm never waits behind ticks).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

# (frequency in Hz or None for a rest, seconds)
Step = tuple[float | None, float]

PATTERNS: dict[str, list[Step]] = {
    "tick": [(1760.0, 0.03)],
    "ok": [(1320.0, 0.05)],
    "warn": [(880.0, 0.15), (None, 0.1), (880.0, 0.15)],
    "alarm": [(1760.0, 0.25), (None, 0.05), (1320.0, 0.25), (None, 0.05)] * 4,
    "error": [(220.0, 0.3)],
}

# Duty cycle per volume step on a passive buzzer; louder is closer to 50 %.
_DUTY = {1: 0.04, 2: 0.15, 3: 0.5}


class PatternPlayer:
    """Plays patterns through ``tone(hz)`` / ``silence()`` on its own thread."""

    def __init__(
        self, tone: Callable[[float, int], None], silence: Callable[[], None], volume: int = 2
    ) -> None:
        self._tone = tone
        self._silence = silence
        self._volume = volume
        self._requests: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="buzzer", daemon=True)
        self._thread.start()

    def play(self, pattern: str) -> None:
        if pattern not in PATTERNS:
            raise KeyError(f"unknown buzzer pattern {pattern!r}")
        if self._volume > 0:
            self._requests.put(pattern)

    def set_volume(self, volume: int) -> None:
        self._volume = max(0, min(3, volume))

    def close(self) -> None:
        self._requests.put(None)
        self._thread.join(timeout=2)

    def _run(self) -> None:
        pending: str | None = self._requests.get()
        while pending is not None:
            pending = self._play(PATTERNS[pending])
            if pending == "":
                pending = self._requests.get()

    def _play(self, steps: list[Step]) -> str | None:
        """Play steps; return the next request if one cut in, else ''."""
        for hz, seconds in steps:
            if hz is None:
                self._silence()
            else:
                self._tone(hz, self._volume)
            try:
                interrupt = self._requests.get(timeout=seconds)
            except queue.Empty:
                continue
            self._silence()
            return interrupt
        self._silence()
        return ""


def gpio_buzzer(pin: int, kind: str, volume: int, pin_factory: object | None = None) -> PatternPlayer:
    """A passive buzzer on ``TonalBuzzer`` (kind ``tonal``) or an active one on ``Buzzer``."""
    if kind == "tonal":
        from gpiozero import TonalBuzzer
        from gpiozero.tones import Tone

        device = TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=2, pin_factory=pin_factory)

        def tone(hz: float, level: int) -> None:
            device.play(Tone.from_frequency(hz))
            device.pwm_device.value = _DUTY.get(level, 0.5)

        return PatternPlayer(tone, device.stop, volume)
    from gpiozero import Buzzer

    active = Buzzer(pin, pin_factory=pin_factory)
    return PatternPlayer(lambda _hz, _level: active.on(), active.off, volume)


class RecordingBuzzer:
    """The simulator's buzzer: remembers what it was asked to play and when."""

    def __init__(self, now: Callable[[], float], volume: int = 2) -> None:
        self._now = now
        self.volume = volume
        self.played: list[tuple[float, str]] = []
        self.listeners: list[Callable[[str], None]] = []

    def play(self, pattern: str) -> None:
        if pattern not in PATTERNS:
            raise KeyError(f"unknown buzzer pattern {pattern!r}")
        if self.volume > 0:
            self.played.append((self._now(), pattern))
            for listener in self.listeners:
                listener(pattern)

    def set_volume(self, volume: int) -> None:
        self.volume = max(0, min(3, volume))

    def close(self) -> None:
        pass
