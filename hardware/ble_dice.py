"""Paired smart dice over Bluetooth LE (bleak, over BlueZ's D-Bus on the box).

One thread runs an asyncio loop with one task per paired die: find it, connect, subscribe to
its notifications, ask who it is (Pixels) or its charge and colour (GoDice), then wait for the
drop; after a drop or a failed attempt it tries again with back-off (0.5 s doubling to 8 s), as
bleak-retry-connector does, for as long as the box runs. Every notification goes to the link
(``firmware_bridge.smart_link``) as bytes; nothing here waits in the box's loop.

The dice missing at a time are looked for together, in one search: BlueZ gives each D-Bus
client one discovery at a time and refuses a second (``InProgress``). A search lasts 5 s: the
kernel ends an LE discovery by itself after 10.24 s, and BlueZ before 5.88 (Debian 12 has
5.66) wedges its discovery for good when a client's stop crosses that end (every later search
then finds nothing until bluetoothd restarts). A die the search misses may still be held as
connected by BlueZ (a connection a client let go that BlueZ kept: the die no longer advertises);
BlueZ's own objects say so, and the box takes that connection again.

A pairing changes the set without a restart: a die paired before stays connected, a new one
gets its keeper, a forgotten one is disconnected. ``scan`` lists the dice in reach for pairing
(``companion dice scan``, Settings → Dice), in one search of 5 s for the same reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from firmware_bridge.smart_dice import ASK_ON_CONNECT, NORDIC_UART_SERVICE, NOTIFY, WRITE
from firmware_bridge.smart_link import SmartDiceLink

log = logging.getLogger(__name__)

BACKOFF_S = (0.5, 8.0)
FIND_S = 5.0  # one search for the dice not in reach (see above)
CONNECT_S = 20.0
DISCONNECT_S = 5.0
BLUEZ_DEVICE = "org.bluez.Device1"


def problem(exc: Exception) -> str:
    """What went wrong, in the words Settings shows: no BlueZ is said as such."""
    if isinstance(exc, (FileNotFoundError, ConnectionRefusedError)):
        return "Bluetooth not running (BlueZ's D-Bus not reached)"
    if isinstance(exc, ImportError):
        return "bleak not installed"
    return str(exc) or type(exc).__name__


def _bleak() -> Any:
    import bleak  # imported when dice are paired: the box without them never loads it

    return bleak


class BleakDice:
    """The transport of a :class:`SmartDiceLink` over bleak; ``client``, ``find`` and ``held``
    stand in for ``bleak.BleakClient``, :func:`find_dice` and :func:`held_by_bluez` in tests."""

    def __init__(self, *, client: Callable[..., Any] | None = None,
                 find: Callable[..., Any] | None = None, held: Callable[..., Any] | None = None,
                 backoff_s: tuple[float, float] = BACKOFF_S, find_s: float = FIND_S) -> None:
        self._client = client
        self._find = find
        self._held = held
        self.backoff_s = backoff_s
        self.find_s = find_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._keepers: dict[str, asyncio.Task[None]] = {}  # by the die's address, upper case
        self._wanted: set[str] = set()  # the dice waiting for the next search
        self._seen: dict[str, Any] = {}  # what a search found, until each die takes its own
        self._searching: asyncio.Lock | None = None
        self._told_held: set[str] = set()  # the dice the log said BlueZ held (once each)

    def start(self, link: SmartDiceLink) -> None:
        if self._thread is None:
            self._ready.clear()
            self._thread = threading.Thread(target=self._run, args=(link,), name="smart-dice",
                                            daemon=True)
            self._thread.start()
            self._ready.wait(5)

    def follow(self, link: SmartDiceLink) -> None:
        """The link's set changed: keep its new dice connected, let its forgotten ones go; the
        dice paired before stay connected."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(self._follow, link)

    def stop(self, timeout: float = 5.0) -> None:
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(stopping.set)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self, link: SmartDiceLink) -> None:
        asyncio.run(self._main(link))

    async def _main(self, link: SmartDiceLink) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._searching = asyncio.Lock()
        self._follow(link)
        self._ready.set()
        await self._stopping.wait()
        keepers = list(self._keepers.values())
        for keeper in keepers:
            keeper.cancel()
        await asyncio.gather(*keepers, return_exceptions=True)

    def _follow(self, link: SmartDiceLink) -> None:
        """(The loop's thread.) One keeper per paired die: started for a new die, cancelled
        for a forgotten one (its cancel disconnects it)."""
        paired = {die.address.upper() for die in link.dice}
        for address in set(self._keepers) - paired:
            self._keepers.pop(address).cancel()
        for address in paired - set(self._keepers):
            self._keepers[address] = asyncio.create_task(self._keep(link, address))

    async def _keep(self, link: SmartDiceLink, address: str) -> None:
        """Keep the die at ``address`` connected for as long as it is paired."""
        delay = self.backoff_s[0]
        while True:
            try:
                reason = await self._session(link, address)
                delay = self.backoff_s[0]  # it was connected: try again quickly
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # bleak's errors, D-Bus's, timeouts: the die is away
                reason = problem(exc)
                log.debug("smart die %s: %s", address, reason)
            link.lost(address, reason)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_s[1])

    async def _session(self, link: SmartDiceLink, address: str) -> str:
        """Connect the die at ``address`` and listen until it drops; the drop's reason."""
        index = link.index(address)
        if index is None:
            return "forgotten"
        make = link.dice[index].make
        device = await self._look_for(address)
        if device is None:
            return "not in reach"
        gone = asyncio.Event()
        loop = asyncio.get_running_loop()
        make_client = self._client or _bleak().BleakClient
        client = make_client(device, disconnected_callback=lambda _client: loop.call_soon_threadsafe(
            gone.set), timeout=CONNECT_S)
        try:
            await client.connect()
            await client.start_notify(NOTIFY[make],
                                      lambda _char, data: link.notified(address, bytes(data)))
            link.connected(address)
            for ask in ASK_ON_CONNECT[make]:
                await client.write_gatt_char(WRITE[make], ask, response=False)
            await gone.wait()
            return "out of reach"
        finally:
            with contextlib.suppress(Exception):  # it may be gone already, or not answer
                await asyncio.wait_for(client.disconnect(), DISCONNECT_S)

    async def _look_for(self, address: str) -> Any:
        """The die at ``address`` if a search sees it, or BlueZ still holds it connected. The
        dice looking meanwhile share that search, or the next one (one at a time)."""
        assert self._searching is not None
        self._seen.pop(address, None)  # an old sighting: the die may have gone since
        self._wanted.add(address)
        await asyncio.sleep(0)  # the dice starting together look together
        async with self._searching:
            if address in self._wanted:  # no search has looked for it since it asked
                wanted, self._wanted = self._wanted, set()
                self._seen.update(await (self._find or find_dice)(wanted, self.find_s))
                if missed := wanted - set(self._seen):
                    self._seen.update(await self._held_connected(missed))
        self._wanted.discard(address)
        return self._seen.pop(address, None)

    async def _held_connected(self, addresses: set[str]) -> dict[str, Any]:
        """The dice of ``addresses`` BlueZ holds as connected while no client of ours does
        (they were looked for): a connection a client let go that BlueZ kept. Such a die no
        longer advertises, so no search finds it; bleak takes BlueZ's connection as it is, and
        a connection that fails is disconnected, after which the die advertises again."""
        try:
            held = await (self._held or held_by_bluez)(addresses)
        except Exception as exc:  # BlueZ not reached: the search said the same already
            log.debug("BlueZ's devices not read: %s", problem(exc))
            return {}
        for address in set(held) - self._told_held:
            log.warning("smart die %s: Bluetooth still held it as connected after the box let "
                        "go of it; the box takes that connection again", address)
        self._told_held |= set(held)
        return dict(held)


async def find_dice(addresses: set[str], seconds: float) -> dict[str, Any]:
    """bleak's devices of the dice at ``addresses`` (upper case) seen within ``seconds``,
    by address; one discovery, ended as soon as every die is seen."""
    found: dict[str, Any] = {}
    everyone = asyncio.Event()

    def seen(device: Any, _advert: Any) -> None:
        address = device.address.upper()
        if address in addresses:
            found.setdefault(address, device)
            if len(found) == len(addresses):
                everyone.set()

    async with _bleak().BleakScanner(detection_callback=seen):
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(everyone.wait(), seconds)
    return found


def connected_devices(objects: Mapping[str, Mapping[str, Mapping[str, Any]]],
                      addresses: set[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Of BlueZ's objects (``GetManagedObjects``, unpacked), the devices at ``addresses``
    (upper case) that say ``Connected``: their D-Bus path and properties, by address."""
    held = {}
    for path, interfaces in objects.items():
        device = interfaces.get(BLUEZ_DEVICE) or {}
        address = str(device.get("Address", "")).upper()
        if device.get("Connected") and address in addresses:
            held[address] = (path, dict(device))
    return held


async def held_by_bluez(addresses: set[str]) -> dict[str, Any]:
    """bleak's devices of the dice at ``addresses`` that BlueZ holds as connected."""
    from dbus_fast import BusType, Message, MessageType, unpack_variants
    from dbus_fast.aio import MessageBus

    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    try:
        reply = await bus.call(Message(destination="org.bluez", path="/", member="GetManagedObjects",
                                       interface="org.freedesktop.DBus.ObjectManager"))
    finally:
        bus.disconnect()
    if reply is None or reply.message_type == MessageType.ERROR:
        raise ConnectionError(f"BlueZ's objects not read: {reply and reply.error_name}")
    held = connected_devices(unpack_variants(reply.body[0]), addresses)
    make_device = _bleak().BLEDevice
    return {address: make_device(props["Address"], props.get("Name"),
                                 {"path": path, "props": props})
            for address, (path, props) in held.items()}


@dataclass(frozen=True)
class Found:
    """A die in reach: its make, address, advertised name and signal strength."""

    make: str
    address: str
    name: str
    rssi: int


def make_of(name: str, services: list[str]) -> str | None:
    """Which make an advertisement is: GoDice name themselves ``GoDice_…``; Pixels advertise
    their service."""
    if name.startswith("GoDice"):
        return "godice"
    if NORDIC_UART_SERVICE in (uuid.lower() for uuid in services):
        return "pixels"
    return None


def scan(seconds: float = FIND_S) -> list[Found]:
    """The dice in reach, strongest signal first."""

    async def discover() -> Any:
        return await _bleak().BleakScanner.discover(timeout=seconds, return_adv=True)

    found = []
    for device, advert in asyncio.run(discover()).values():
        name = advert.local_name or device.name or ""
        make = make_of(name, list(advert.service_uuids))
        if make:
            found.append(Found(make, device.address, name, advert.rssi))
    return sorted(found, key=lambda die: -die.rssi)
