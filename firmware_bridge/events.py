"""What the sensor link tells the app: kept in the link's mailbox, taken by the loop on a wake-up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SensorOnline:
    """The sensor said HELLO: who it is and which dice it watches (kinds in die order)."""

    sensor_id: str
    firmware: str
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class SensorOffline:
    """The sensor is gone (unplugged, silent, or never found); ``reason`` says which."""

    reason: str


@dataclass(frozen=True)
class DieRolling:
    """Die ``index`` started moving: any earlier settled set is no longer on the table."""

    index: int


@dataclass(frozen=True)
class DiceSettled:
    """Every die lies still: one face name per die, in die order (None if crooked/unknown)."""

    faces: tuple[str | None, ...]
    kinds: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class DiceBattery:
    """Smart dice's charge in percent, in die order (None until a die has said)."""

    percent: tuple[int | None, ...]


@dataclass(frozen=True)
class SensorHealth:
    """The link's problem counters (rejected lines, lost frames, reconnects) and the latest problem."""

    counters: tuple[tuple[str, int], ...]
    last_problem: str = ""


@dataclass(frozen=True)
class SensorNews:
    """The link's wake-up: the loop calls ``take()`` for the news kept since the last one, and
    handles them in place, so presses never queue behind them."""

    take: Callable[[], list[object]]
