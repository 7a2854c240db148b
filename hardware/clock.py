"""Clocks: the monotonic clock on the device, and a virtual clock that tests advance."""

from __future__ import annotations

import threading
import time


class MonotonicClock:
    """Seconds from ``time.monotonic()``; waiting is done by the event queue, never by sleeping."""

    def now(self) -> float:
        return time.monotonic()

    @property
    def is_virtual(self) -> bool:
        return False


class VirtualClock:
    """A clock that only moves when told to, so a 3-minute round takes milliseconds in a test."""

    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward; the app loop notices on its next ``pump``."""
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        with self._lock:
            self._now += seconds

    @property
    def is_virtual(self) -> bool:
        return True
