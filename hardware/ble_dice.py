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
then finds nothing until bluetoothd restarts).

``scan`` lists the dice in reach for pairing (``companion dice scan``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_bridge.smart_dice import ASK_ON_CONNECT, NORDIC_UART_SERVICE, NOTIFY, WRITE
from firmware_bridge.smart_link import SmartDiceLink

log = logging.getLogger(__name__)

BACKOFF_S = (0.5, 8.0)
FIND_S = 5.0  # one search for the dice not in reach (see above)
CONNECT_S = 20.0
DISCONNECT_S = 5.0


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
    """The transport of a :class:`SmartDiceLink` over bleak; ``client`` and ``find`` stand in
    for ``bleak.BleakClient`` and :func:`find_dice` in tests."""

    def __init__(self, *, client: Callable[..., Any] | None = None,
                 find: Callable[..., Any] | None = None,
                 backoff_s: tuple[float, float] = BACKOFF_S, find_s: float = FIND_S) -> None:
        self._client = client
        self._find = find
        self.backoff_s = backoff_s
        self.find_s = find_s
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._wanted: set[str] = set()  # the dice waiting for the next search
        self._seen: dict[str, Any] = {}  # what a search found, until each die takes its own
        self._searching: asyncio.Lock | None = None

    def start(self, link: SmartDiceLink) -> None:
        if self._thread is None:
            self._ready.clear()
            self._thread = threading.Thread(target=self._run, args=(link,), name="smart-dice",
                                            daemon=True)
            self._thread.start()
            self._ready.wait(5)

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
        self._ready.set()
        keepers = [asyncio.create_task(self._keep(link, index)) for index in range(len(link.dice))]
        await self._stopping.wait()
        for keeper in keepers:
            keeper.cancel()
        await asyncio.gather(*keepers, return_exceptions=True)

    async def _keep(self, link: SmartDiceLink, index: int) -> None:
        """Keep die ``index`` connected for as long as the box runs."""
        delay = self.backoff_s[0]
        while True:
            try:
                reason = await self._session(link, index)
                delay = self.backoff_s[0]  # it was connected: try again quickly
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # bleak's errors, D-Bus's, timeouts: the die is away
                reason = problem(exc)
                log.debug("smart die %s: %s", link.dice[index].address, reason)
            link.lost(index, reason)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_s[1])

    async def _session(self, link: SmartDiceLink, index: int) -> str:
        """Connect die ``index`` and listen until it drops; the drop's reason."""
        die = link.dice[index]
        device = await self._look_for(die.address.upper())
        if device is None:
            return "not in reach"
        gone = asyncio.Event()
        loop = asyncio.get_running_loop()
        make_client = self._client or _bleak().BleakClient
        client = make_client(device, disconnected_callback=lambda _client: loop.call_soon_threadsafe(
            gone.set), timeout=CONNECT_S)
        try:
            await client.connect()
            await client.start_notify(NOTIFY[die.make],
                                      lambda _char, data: link.notified(index, bytes(data)))
            link.connected(index)
            for ask in ASK_ON_CONNECT[die.make]:
                await client.write_gatt_char(WRITE[die.make], ask, response=False)
            await gone.wait()
            return "out of reach"
        finally:
            with contextlib.suppress(Exception):  # it may be gone already, or not answer
                await asyncio.wait_for(client.disconnect(), DISCONNECT_S)


    async def _look_for(self, address: str) -> Any:
        """The die at ``address`` if a search sees it. The dice looking meanwhile share that
        search, or the next one (one at a time)."""
        assert self._searching is not None
        self._seen.pop(address, None)  # an old sighting: the die may have gone since
        self._wanted.add(address)
        await asyncio.sleep(0)  # the dice starting together look together
        async with self._searching:
            if address in self._wanted:  # no search has looked for it since it asked
                wanted, self._wanted = self._wanted, set()
                self._seen.update(await (self._find or find_dice)(wanted, self.find_s))
        self._wanted.discard(address)
        return self._seen.pop(address, None)


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


def scan(seconds: float = 8.0) -> list[Found]:
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
