"""Virtual smart dice for the simulator and the tests: the radio stood in, nothing else.

:class:`VirtualDice` is a transport of :class:`~firmware_bridge.smart_link.SmartDiceLink`, as
``hardware/ble_dice.py`` is: it says each paired die connected and hands the link the very
bytes a die notifies (a Pixels ``RollState`` rolling then rolled on a face index, a GoDice ``R``
then ``S`` with the gravity vector of the face up), through the same ``notified`` call the
Bluetooth transport makes. What it does not stand in for: BlueZ, bleak, the radio and the
die's own sensing (docs/sensor.md). ``IN_REACH`` are the dice a search finds in the simulator.
"""

from __future__ import annotations

import random
import struct
import threading
from collections.abc import Sequence

from .smart_dice import PIXELS_BATTERY, PIXELS_ROLL_STATE
from .smart_link import SmartDiceLink

_ROLLING, _ROLLED, _CROOKED = 3, 1, 4
# One g reads 64 on the axis of the face up (as the GoDice public API lists them).
_GODICE_UP = {1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0), 5: (0, 0, -64),
              6: (64, 0, 0)}


# The virtual dice a search finds in the simulator: make, address, advertised name, signal.
IN_REACH = (
    ("pixels", "5A:1D:1C:E0:00:01", "Pixel Amber", -48),
    ("pixels", "5A:1D:1C:E0:00:02", "Pixel Saffron", -51),
    ("godice", "5A:1D:1C:E0:00:03", "GoDice_E00003_B_v04", -55),
    ("godice", "5A:1D:1C:E0:00:04", "GoDice_E00004_B_v04", -57),
    ("pixels", "5A:1D:1C:E0:00:05", "Pixel Chalk", -60),
    ("godice", "5A:1D:1C:E0:00:06", "GoDice_E00006_R_v04", -63),
)


def rolling(make: str) -> bytes:
    """The notification a die of ``make`` sends as it starts rolling."""
    return bytes([PIXELS_ROLL_STATE, _ROLLING, 0]) if make == "pixels" else b"R"


def at_rest(make: str, face: int | None) -> bytes:
    """The notification a die of ``make`` sends once at rest on ``face`` (None: crooked)."""
    if make == "pixels":
        return bytes([PIXELS_ROLL_STATE, _CROOKED, 0] if face is None
                     else [PIXELS_ROLL_STATE, _ROLLED, face - 1])
    if face is None:
        return b"TS" + struct.pack("bbb", 45, 45, 0)
    return b"S" + struct.pack("bbb", *_GODICE_UP[face])


def battery(make: str, percent: int) -> bytes:
    return bytes([PIXELS_BATTERY, percent, 0]) if make == "pixels" else b"Bat" + bytes([percent])


class VirtualDice:
    """Stands in for the radio of a link's paired dice; ``throw`` rolls them."""

    def __init__(self, seed: int | None = None, percent: int = 90) -> None:
        self._rng = random.Random(seed)
        self._percent = percent
        self._link: SmartDiceLink | None = None
        self._lock = threading.Lock()  # keys and tests may throw from any thread
        self.away: set[int] = set()

    def start(self, link: SmartDiceLink) -> None:
        self._link = link
        for die in link.dice:
            link.connected(die.address)
            link.notified(die.address, battery(die.make, self._percent))

    def follow(self, link: SmartDiceLink) -> None:
        """A new set: its dice are all in reach (those connected already are told again)."""
        self.start(link)

    def stop(self) -> None:
        self._link = None

    def throw(self, faces: Sequence[int | None] | None = None) -> list[int | None]:
        """Every die in reach rolls and comes to rest on ``faces`` (1-6, None crooked), or on
        random faces; the faces thrown."""
        link = self._link
        if link is None:
            return []
        with self._lock:
            thrown: list[int | None] = list(faces) if faces is not None else [
                self._rng.randint(1, 6) for _ in link.dice]
            near = [(index, die) for index, die in enumerate(link.dice) if index not in self.away]
            for _index, die in near:
                link.notified(die.address, rolling(die.make))
            for index, die in near:
                link.notified(die.address, at_rest(die.make, thrown[index]))
            return thrown

    def send(self, index: int, data: bytes) -> None:
        """Any bytes, as die ``index`` would notify them (a fuzzed notification)."""
        if self._link is not None:
            self._link.notified(self._link.dice[index].address, data)

    def vanish(self, index: int) -> None:
        """Die ``index`` goes out of reach."""
        if self._link is not None:
            self.away.add(index)
            self._link.lost(self._link.dice[index].address, "out of reach")

    def come_back(self, index: int) -> None:
        if self._link is not None:
            self.away.discard(index)
            self._link.connected(self._link.dice[index].address)
