"""Paired smart dice told to the box as the serial sensor is told: the same events, the same
mailbox, one wake-up at a time.

A transport (``hardware/ble_dice.py`` over bleak, or the simulator's virtual die) owns the
radio on its own thread and calls :meth:`SmartDiceLink.connected`, :meth:`~SmartDiceLink.lost`
and :meth:`~SmartDiceLink.notified` with a die's address and its raw notification bytes (by
address, not place: :meth:`~SmartDiceLink.change` takes a new set of paired dice while the
transport runs, and a die that stays paired keeps its connection and its news). The link decodes
them (``smart_dice.py``) and keeps the latest news in the serial link's :class:`Mailbox`:
``SensorOnline`` once every paired die is connected, ``SensorOffline`` naming the dice that are
missing (play goes on with buttons), ``DieRolling``, ``DiceSettled`` with the paired kinds'
face names once every die lies still after a roll, ``DiceBattery`` and ``SensorHealth`` (the
refused notifications counted by kind, reconnects, the last problem).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .events import DiceBattery, DiceSettled, DieRolling, SensorHealth, SensorOffline, SensorOnline
from .faces import FACES, faces_of
from .link import CROOKED, ROLLING, Mailbox
from .smart_dice import (
    PARSERS,
    REFUSALS,
    SIDES,
    Battery,
    Crooked,
    Identity,
    Refused,
    Rolling,
    Settled,
)

MAKES = tuple(PARSERS)
LINK_COUNTERS = ("reconnects", "not_six_sided")


@dataclass(frozen=True)
class SmartDie:
    """One paired die: its make, its Bluetooth address (or the name it advertises), and the
    die kind of the games it stands for (its faces 1 to 6 are that kind's faces in order)."""

    make: str
    address: str
    kind: str

    @property
    def label(self) -> str:
        return f"{self.kind} {self.make.capitalize()} {self.address[-5:]}"

    @property
    def line(self) -> str:
        """The pairing as the config and the settings keep it (:func:`parse_pairing` reads it)."""
        return f"{self.make} {self.address} {self.kind}"


def parse_pairing(text: str) -> SmartDie:
    """A pairing as the config and the settings keep it: ``MAKE ADDRESS KIND``, e.g.
    ``pixels F1:E2:D3:C4:B5:A6 yellow``; ValueError saying what is wrong."""
    words = text.split()
    if len(words) != 3:
        raise ValueError(f"{text!r}: write MAKE ADDRESS KIND, e.g. 'pixels F1:E2:D3:C4:B5:A6 yellow'")
    make, address, kind = words
    if make.lower() not in MAKES:
        raise ValueError(f"{text!r}: the make is one of {', '.join(MAKES)}")
    if kind not in FACES:
        raise ValueError(f"{text!r}: the kind is one of {', '.join(FACES)}")
    return SmartDie(make.lower(), address, kind)


class Transport(Protocol):
    """What owns the radio: started with the link it reports to, told when its set of dice
    changed (``follow``: connect the new ones, let the forgotten go), stopped at shutdown."""

    def start(self, link: SmartDiceLink) -> None: ...

    def follow(self, link: SmartDiceLink) -> None: ...

    def stop(self) -> None: ...


class SmartDiceLink:
    """The paired dice's news for the box; the transport's thread calls in, the loop takes."""

    def __init__(self, dice: Sequence[SmartDie], wake: Callable[[], None],
                 transport: Transport | None = None) -> None:
        self.mailbox = Mailbox(wake)
        self._transport = transport
        self._lock = threading.Lock()
        self._counts = dict.fromkeys(REFUSALS + LINK_COUNTERS, 0)
        self._problem = ""
        self.dice: tuple[SmartDie, ...] = ()
        self._places: dict[str, int] = {}
        self._connected: list[bool] = []
        self._ever_connected: list[bool] = []
        self._six_sided: list[bool] = []
        self._state: list[str | None] = []
        self._battery: list[int | None] = []
        self._set(dice, {})
        self._moved = False  # a die rolled since the last settled set
        self._rolled = False  # and one came to rest from a roll (not only nudged or handled)
        self._online: bool | None = None

    # ----- control ------------------------------------------------------------------------
    def start(self) -> None:
        self._tell_connection()
        if self._transport is not None:
            self._transport.start(self)

    def stop(self) -> None:
        if self._transport is not None:
            self._transport.stop()

    def change(self, dice: Sequence[SmartDie]) -> None:
        """Read ``dice`` from now on: a die paired before keeps its connection and charge (a
        new kind renames it), a new one is missing until the transport connects it, a
        forgotten one is let go."""
        with self._lock:
            self._set(dice, dict(self._places))
            self._online = None  # told again: the set, its kinds or its missing dice changed
            self._tell_connection()
            self._tell_health()
            self.mailbox.put("battery", DiceBattery(tuple(self._battery)))
        if self._transport is not None:
            self._transport.follow(self)

    @property
    def online(self) -> bool:
        return bool(self._online)

    def take(self) -> list[object]:
        """The news since the last call (loop thread): the latest of each kind, oldest first."""
        return self.mailbox.take()

    def status(self) -> list[tuple[bool, int | None]]:
        """Each paired die's connection and charge in percent (None until it says), in order."""
        with self._lock:
            return list(zip(self._connected, self._battery, strict=True))

    def counters(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def index(self, address: str) -> int | None:
        """Where the die at ``address`` is in :attr:`dice`; None when it is not paired."""
        return self._places.get(address.upper())

    # ----- the transport's calls (its thread), by the die's address -------------------------
    def connected(self, address: str) -> None:
        with self._lock:
            index = self.index(address)
            if index is None:
                return  # forgotten meanwhile
            if self._ever_connected[index] and not self._connected[index]:
                self._counts["reconnects"] += 1
            self._connected[index] = self._ever_connected[index] = True
            self._tell_connection()
            self._tell_health()

    def lost(self, address: str, reason: str) -> None:
        with self._lock:
            index = self.index(address)
            if index is None:
                return
            was = self._connected[index]
            self._connected[index] = False
            self._state[index] = None  # what it showed is unknown until it says again
            if was or self._online is None:
                self._problem = f"{self.dice[index].label}: {reason}"
                self._tell_health()
                self._tell_connection()  # after the health: the status names every missing die

    def notified(self, address: str, data: bytes) -> None:
        """One notification of the die at ``address``, as its radio gave it."""
        with self._lock:
            index = self.index(address)
            if index is None:
                return
            die = self.dice[index]
            try:
                reading = PARSERS[die.make](bytes(data))
            except Refused as refused:
                self._counts[refused.kind] += 1
                self._problem = f"{die.label}: {refused}"
                self._tell_health()
                return
            if isinstance(reading, Identity):
                self._identified(index, reading)
                reading = reading.state
            if isinstance(reading, Battery):
                self._battery[index] = reading.percent
                self.mailbox.put("battery", DiceBattery(tuple(self._battery)))
            elif isinstance(reading, Rolling | Settled | Crooked):
                self._on_state(index, reading)

    # ----- inside the lock ----------------------------------------------------------------
    def _set(self, dice: Sequence[SmartDie], kept: dict[str, int]) -> None:
        """Take ``dice``, each one's news carried over from its old place in ``kept``; what a
        die showed is dropped when its kind changed (a face name of the old kind)."""
        olds = [kept.get(die.address.upper()) for die in dice]
        same_kind = [old if old is not None and self.dice[old].kind == die.kind else None
                     for die, old in zip(dice, olds, strict=True)]

        def carried(values: list[Any], fresh: Any, places: list[int | None] = olds) -> list[Any]:
            return [fresh if old is None else values[old] for old in places]

        self._connected = carried(self._connected, False)
        self._ever_connected = carried(self._ever_connected, False)
        self._six_sided = carried(self._six_sided, True)
        self._battery = carried(self._battery, None)
        self._state = carried(self._state, None, same_kind)
        self.dice = tuple(dice)
        self.kinds = tuple(die.kind for die in self.dice)
        self._places = {die.address.upper(): index for index, die in enumerate(self.dice)}

    def _identified(self, index: int, identity: Identity) -> None:
        self._battery[index] = identity.battery.percent
        self.mailbox.put("battery", DiceBattery(tuple(self._battery)))
        six = identity.faces in (0, SIDES)
        if not six:
            self._counts["not_six_sided"] += 1
            self._problem = f"{self.dice[index].label} is a d{identity.faces}: pair six-sided dice"
            self._tell_health()
        self._six_sided[index] = six

    def _on_state(self, index: int, reading: Rolling | Settled | Crooked) -> None:
        if isinstance(reading, Rolling):
            if self._state[index] != ROLLING:
                self._state[index] = ROLLING
                self._moved = True
                self.mailbox.put(index, DieRolling(index))
            return
        if isinstance(reading, Crooked):
            self._state[index] = CROOKED
            self._rolled = self._rolled or self._moved
        elif not self._six_sided[index]:
            return  # a d20's face 17 is no café face (counted once, as not_six_sided)
        else:
            self._state[index] = faces_of(self.dice[index].kind)[reading.face - 1]
            self._rolled = self._rolled or (reading.rolled and self._moved)
        # A set after something rolled and came to rest: dice only nudged or handled are no throw.
        if self._moved and self._rolled and ROLLING not in self._state and None not in self._state:
            self._moved = self._rolled = False
            faces = tuple(None if face == CROOKED else face for face in self._state)
            self.mailbox.put(DiceSettled.__name__, DiceSettled(faces, self.kinds))

    def _tell_connection(self) -> None:
        missing = [die.label for die, up in zip(self.dice, self._connected, strict=True) if not up]
        online = not missing
        if online == self._online and online:
            return
        self._online = online
        slot: Hashable = "connection"
        if online:
            self.mailbox.put(slot, SensorOnline(f"{len(self.dice)} smart dice", "", self.kinds))
        else:
            self.mailbox.put(slot, SensorOffline("missing: " + ", ".join(missing)))

    def _tell_health(self) -> None:
        counters = tuple(sorted(self._counts.items()))
        self.mailbox.put(SensorHealth.__name__, SensorHealth(counters, self._problem))
