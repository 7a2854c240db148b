"""Events the loop takes from its queue, besides pin edges and sensor events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Stop:
    """Leave the loop (SIGTERM, the simulator's quit key)."""

    reason: str = ""


@dataclass(frozen=True)
class Call:
    """Run ``fn`` on the loop thread (the only thread that may touch state)."""

    fn: Callable[[], object]
