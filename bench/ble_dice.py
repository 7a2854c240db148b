"""Smart dice (Bluetooth LE) figures on the host: the notification parser's rate, and the
box's transport over an emulated radio.

- parse: Pixels and GoDice notifications a second through ``firmware_bridge.smart_dice``
  (a mix as a table of dice sends them: rolling, settled, battery), on wall time and on this
  process's CPU time; the median of 5 passes.
- air (host only, no BlueZ): bumble's LocalLink carries two Pixels and two GoDice peripherals
  (GATT servers speaking each make's protocol) and a controller for the box, whose own
  transport (``hardware.ble_dice.BleakDice``: finding, connecting, subscribing, asking,
  reconnecting with back-off) runs over it with bumble standing in for bleak's client and
  scanner; the link (``SmartDiceLink``) and a consumer thread in place of the box's loop.
  Throws rolls (every die rolling, then at rest; fuzzed notifications between: wrong lengths,
  unknown types, impossible faces and values), makes dice vanish and come back. Prints the
  keys ``ble_dice_connected``, ``ble_rolls``, ``ble_rolls_read``, ``ble_roll_to_state_ms_p99``
  (the last die's rest notification sent → the settled set taken off the link's mailbox),
  ``ble_reconnects``, ``ble_reconnected``, ``ble_reconnect_s_max`` (advertising again → every
  die connected), ``ble_malformed_sent``, ``ble_false_faces``.

    python bench/ble_dice.py [--messages 200000] [--rolls 200] [--reconnects 5] [--quick] [--json]

Prints JSON. The air part needs bumble (a development dependency).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import queue
import random
import statistics
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import faces_of
from firmware_bridge.smart_dice import NORDIC_UART_SERVICE, NOTIFY, PARSERS, WRITE, Settled
from firmware_bridge.smart_link import SmartDiceLink, SmartDie
from firmware_bridge.virtual_dice import at_rest, battery, rolling
from hardware.ble_dice import BleakDice

_GODICE_FACE_VECTORS = [(-64, 0, 0), (0, 0, 64), (0, 64, 0), (0, -64, 0), (0, 0, -64), (64, 0, 0)]


def notifications(count: int, seed: int = 1) -> list[tuple[str, bytes]]:
    """``count`` notifications from two makes of dice, as rolls send them."""
    rng = random.Random(seed)
    out: list[tuple[str, bytes]] = []
    for n in range(count):
        step = n % 4
        if n % 2:
            godice = [b"R", b"S" + struct.pack("bbb", *rng.choice(_GODICE_FACE_VECTORS)),
                      b"R", b"Bat" + bytes([rng.randrange(101)])][step]
            out.append(("godice", godice))
        else:
            pixels = [bytes([3, 3, 0]), bytes([3, 1, rng.randrange(6)]), bytes([3, 3, 0]),
                      bytes([34, rng.randrange(101), 0])][step]
            out.append(("pixels", pixels))
    return out


def bench_parse(messages: int, repeats: int = 5) -> dict[str, Any]:
    sent = [(PARSERS[make], data) for make, data in notifications(messages)]
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        faces = sum(isinstance(parse(data), Settled) for parse, data in sent)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert faces == messages // 4, faces
    return {
        "messages": messages,
        "messages_per_s_wall_best": round(messages / min(wall)),
        "messages_per_s_wall_median": round(messages / statistics.median(wall)),
        "messages_per_s_cpu_median": round(messages / statistics.median(cpu)),
    }


# ----- over the air (bumble): the box's own transport, peripherals speaking each make --------
BOX_ADDRESS = "C0:00:00:00:00:B0"


def bumble_device(name: str, address: str, link: Any) -> Any:
    """A bumble device with a controller of its own on ``link`` (a ``LocalLink``)."""
    from bumble.controller import Controller
    from bumble.device import Device
    from bumble.hci import Address
    from bumble.host import Host

    host = Host()
    host.controller = Controller(name, link=link)
    return Device(name, address=Address(address), host=host)


async def peripherals_on(link: Any, dice: list[SmartDie]) -> dict[str, BumbleDie]:
    """One advertising peripheral speaking its make's protocol for each die, on ``link``."""
    peripherals = {}
    for die in dice:
        peripheral = BumbleDie(die.make, bumble_device(die.address, die.address, link))
        await peripheral.power_on()
        peripherals[die.address] = peripheral
    return peripherals


class BumbleAir:
    """One bumble LocalLink: a controller for the box's side and one per die, each die a GATT
    server speaking its make's protocol. Stands in for bleak's client and scanner
    (``BleakDice(client=air.client, find=air.find)``), so the box's transport code runs over
    a real link layer, GATT discovery and notifications; built inside the transport's loop."""

    def __init__(self, dice: list[SmartDie]) -> None:
        self.dice = dice
        self.loop: asyncio.AbstractEventLoop | None = None
        self.peripherals: dict[str, BumbleDie] = {}
        self._ready: asyncio.Lock | None = None
        self._connecting: asyncio.Lock | None = None
        self._seen: dict[str, asyncio.Event] = {}
        self.central: Any = None

    async def _setup(self) -> None:
        from bumble.link import LocalLink

        self.loop = asyncio.get_running_loop()
        self._connecting = asyncio.Lock()
        link = LocalLink()
        self.central = bumble_device("box", BOX_ADDRESS, link)
        await self.central.power_on()
        self.central.on("advertisement", self._advertised)
        await self.central.start_scanning(filter_duplicates=False)
        self.peripherals = await peripherals_on(link, self.dice)

    def _advertised(self, advertisement: Any) -> None:
        seen = self._seen.get(str(advertisement.address).split("/")[0].upper())
        if seen is not None:
            seen.set()

    async def find(self, addresses: set[str], timeout: float) -> dict[str, str]:
        if self._ready is None:
            self._ready = asyncio.Lock()
        async with self._ready:
            if self.central is None:
                await self._setup()
        seen = {address: asyncio.Event() for address in addresses}
        self._seen.update(seen)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(event.wait() for event in seen.values())),
                                   timeout)
        return {address: address for address, event in seen.items() if event.is_set()}

    def client(self, address: str, disconnected_callback: Callable[[Any], None],
               timeout: float) -> BumbleClient:
        return BumbleClient(self, address, disconnected_callback, timeout)

    def run(self, coroutine: Any, timeout: float = 10.0) -> Any:
        """Run ``coroutine`` on the air's loop from another thread."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


class BumbleClient:
    """What the box's transport needs of ``bleak.BleakClient``, over bumble's GATT client."""

    def __init__(self, air: BumbleAir, address: str, disconnected: Callable[[Any], None],
                 timeout: float) -> None:
        self.air, self.address, self.disconnected, self.timeout = air, address, disconnected, timeout
        self.connection: Any = None
        self.peer: Any = None

    async def connect(self) -> None:
        from bumble.device import Peer
        from bumble.hci import Address

        assert self.air._connecting is not None
        async with self.air._connecting:  # bumble makes one connection at a time
            self.connection = await self.air.central.connect(Address(self.address),
                                                             timeout=self.timeout)
        self.connection.on("disconnection", self._dropped)
        self.peer = Peer(self.connection)
        await self.peer.discover_services()
        for service in self.peer.services:
            await service.discover_characteristics()

    def _dropped(self, *_reason: Any) -> None:
        self.connection = None
        self.disconnected(self)

    def _characteristic(self, uuid: str) -> Any:
        from bumble.core import UUID

        return self.peer.get_characteristics_by_uuid(UUID(uuid))[0]

    async def start_notify(self, uuid: str, callback: Callable[[Any, bytearray], None]) -> None:
        characteristic = self._characteristic(uuid)
        await self.peer.subscribe(characteristic,
                                  lambda value: callback(characteristic, bytearray(value)))

    async def write_gatt_char(self, uuid: str, data: bytes, response: bool = False) -> None:
        await self.peer.write_value(self._characteristic(uuid), data, with_response=response)

    async def disconnect(self) -> None:
        if self.connection is not None:
            await self.connection.disconnect()


def advertisement(make: str, address: str) -> bytes:
    """What a die advertises, as its make does (the box's Find dice tells the makes apart
    by it): GoDice their name, ``GoDice_…``; Pixels their service, and a short name."""
    from bumble.core import UUID, AdvertisingData

    flags = AdvertisingData.LE_GENERAL_DISCOVERABLE_MODE_FLAG | AdvertisingData.BR_EDR_NOT_SUPPORTED_FLAG
    tail = address.split("/")[0].replace(":", "")[-6:]
    if make == "godice":
        fields = [(AdvertisingData.COMPLETE_LOCAL_NAME, f"GoDice_{tail}_B_v04".encode())]
    else:  # 31 bytes in all, a legacy advertisement's room
        fields = [(AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
                   UUID(NORDIC_UART_SERVICE).to_bytes(force_128=True)),
                  (AdvertisingData.COMPLETE_LOCAL_NAME, f"Pixel {tail[-2:]}".encode())]
    return bytes(AdvertisingData([(AdvertisingData.FLAGS, bytes([flags])), *fields]))


class BumbleDie:
    """A peripheral speaking one make's protocol: answers the box's questions, notifies rolls."""

    def __init__(self, make: str, device: Any) -> None:
        from bumble.gatt import Characteristic, CharacteristicValue, Service

        self.make, self.device = make, device
        self.away = False  # made to vanish: silent until it appears again
        device.advertising_data = advertisement(make, str(device.random_address))
        device.on("connection", lambda connection: connection.on(
            "disconnection", lambda _reason: self._dropped()))
        self.notify = Characteristic(NOTIFY[make], Characteristic.Properties.NOTIFY,
                                     Characteristic.READABLE, b"")
        write = Characteristic(WRITE[make], Characteristic.Properties.WRITE
                               | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
                               Characteristic.WRITEABLE, CharacteristicValue(write=self._asked))
        device.add_service(Service(NORDIC_UART_SERVICE, [self.notify, write]))

    async def power_on(self) -> None:
        await self.device.power_on()
        await self.appear()

    def _asked(self, _connection: Any, value: bytes) -> None:
        answer = {(b"pixels", bytes([1])): struct.pack("<BBBBIIHIBBBB", 2, 6, 0, 2, 0, 1, 0, 0,
                                                        1, 0, 88, 0),
                  (b"godice", bytes([3])): battery("godice", 77),
                  (b"godice", bytes([23])): b"Col" + bytes([3])}.get((self.make.encode(), bytes(value)))
        if answer is not None:
            asyncio.get_running_loop().create_task(self.send(answer))

    async def send(self, data: bytes) -> None:
        await self.device.notify_subscribers(self.notify, data)

    def _dropped(self) -> None:
        """A die in reach advertises again once its connection drops, as Pixels and GoDice
        do (the controller stops advertising when a central connects)."""
        if not self.away:
            asyncio.get_running_loop().create_task(self.appear())

    async def vanish(self) -> None:
        """Out of reach: silent and unconnected."""
        self.away = True
        await self.device.stop_advertising()
        for connection in list(self.device.connections.values()):
            await connection.disconnect()

    async def appear(self) -> None:
        self.away = False
        if not self.device.is_advertising:
            await self.device.start_advertising(advertising_interval_min=20,
                                                advertising_interval_max=30)


AIR_DICE = [SmartDie("pixels", "F1:00:00:00:00:01", "yellow"),
            SmartDie("pixels", "F1:00:00:00:00:02", "yellow"),
            SmartDie("godice", "F1:00:00:00:00:03", "blue"),
            SmartDie("godice", "F1:00:00:00:00:04", "blue")]


def malformed(make: str, rng: random.Random) -> bytes:
    """A notification the box must refuse: a wrong length, an unknown type, an impossible face
    or value."""
    if make == "pixels":
        return rng.choice([bytes([3, 1]), bytes([3, 1, 0, 0]), bytes([rng.choice([0, 9, 99]), 1, 1]),
                           bytes([3, 1, rng.randrange(6, 256)]), bytes([3, rng.randrange(6, 256), 0]),
                           bytes([34, rng.randrange(101, 256), 0]), b""])
    return rng.choice([b"S" + bytes(2), b"RR", b"X" + bytes(3), b"Bat" + bytes([rng.randrange(101, 256)]),
                       b"S" + bytes(3), b"Col" + bytes([9]), b""])


def send_nonsense(run: Callable[[Any], Any], dice: list[BumbleDie], rng: random.Random,
                  each: int, figures: dict[str, Any]) -> None:
    """``each`` malformed notifications from every die (counted in ``ble_malformed_sent``)."""
    for die in dice:
        for _ in range(each):
            run(die.send(malformed(die.make, rng)))
            figures["ble_malformed_sent"] += 1


def send_roll(run: Callable[[Any], Any], dice: list[BumbleDie], paired: list[SmartDie],
              rng: random.Random, malformed_per_roll: int,
              figures: dict[str, Any], tumble_s: float = 0.0) -> tuple[tuple[str, ...], float]:
    """One roll of every die (``run`` runs a coroutine on the peripherals' loop): all rolling,
    nonsense between, ``tumble_s`` in the air, then each at rest on a random face. The face
    names the box must read, and when the last die's rest was sent."""
    thrown = [rng.randint(1, 6) for _ in dice]
    for die in dice:
        run(die.send(rolling(die.make)))
    send_nonsense(run, dice, rng, malformed_per_roll, figures)
    time.sleep(tumble_s)
    for die, face in zip(dice[:-1], thrown, strict=False):
        run(die.send(at_rest(die.make, face)))
    sent = time.perf_counter()
    run(dice[-1].send(at_rest(dice[-1].make, thrown[-1])))
    figures["ble_rolls"] += 1
    return tuple(faces_of(die.kind)[face - 1] for die, face in zip(paired, thrown, strict=True)), sent


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)] if ordered else float("nan")


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def bench_air(rolls: int, reconnects: int, malformed_per_roll: int = 3, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    air = BumbleAir(AIR_DICE)
    wakes: queue.SimpleQueue[bool] = queue.SimpleQueue()
    settled: queue.SimpleQueue[tuple[float, DiceSettled]] = queue.SimpleQueue()
    link = SmartDiceLink(AIR_DICE, lambda: wakes.put(True),
                         BleakDice(client=air.client, find=air.find, backoff_s=(0.1, 1.0), find_s=2.0))

    def box_loop() -> None:  # the box's loop: one wake-up, then the news taken in place
        while wakes.get():
            for event in link.take():
                if isinstance(event, DiceSettled):
                    settled.put((time.perf_counter(), event))

    threading.Thread(target=box_loop, daemon=True).start()
    link.start()
    figures: dict[str, Any] = {"ble_dice_connected": 0, "ble_rolls": 0, "ble_rolls_read": 0,
                               "ble_roll_to_state_ms_p99": None, "ble_reconnects": 0,
                               "ble_reconnected": 0, "ble_reconnect_s_max": None,
                               "ble_malformed_sent": 0, "ble_false_faces": 0}
    try:
        if not wait_until(lambda: link.online, 60):
            return figures
        figures["ble_dice_connected"] = len(AIR_DICE)
        dice = [air.peripherals[die.address] for die in AIR_DICE]
        latencies: list[float] = []

        def throw() -> None:
            names, sent = send_roll(air.run, dice, AIR_DICE, rng, malformed_per_roll, figures)
            try:
                taken, event = settled.get(timeout=5)
            except queue.Empty:
                return
            if event.faces == names:
                figures["ble_rolls_read"] += 1
                latencies.append((taken - sent) * 1000)
            else:
                figures["ble_false_faces"] += 1

        for _ in range(rolls):
            throw()
        send_nonsense(air.run, dice, rng, 10 * malformed_per_roll, figures)
        time.sleep(0.5)
        figures["ble_false_faces"] += settled.qsize()
        waits = []
        for n in range(reconnects):
            die = dice[n % len(dice)]
            air.run(die.vanish())
            figures["ble_reconnects"] += 1
            if not wait_until(lambda: not link.online, 10):
                continue
            began = time.monotonic()
            air.run(die.appear())
            if wait_until(lambda: link.online, 30):
                figures["ble_reconnected"] += 1
                waits.append(time.monotonic() - began)
                throw()  # and it reads again
        figures["ble_roll_to_state_ms_p99"] = round(percentile(latencies, 99), 2)
        figures["ble_reconnect_s_max"] = round(max(waits), 2) if waits else None
        return figures
    finally:
        link.stop()
        wakes.put(False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000, help="notifications parsed a pass")
    parser.add_argument("--rolls", type=int, default=200, help="rolls thrown over the air")
    parser.add_argument("--reconnects", type=int, default=5, help="dice made to vanish and come back")
    parser.add_argument("--quick", action="store_true",
                        help="20,000 notifications, 20 rolls, 2 reconnects (CI)")
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"parse": bench_parse(20_000 if args.quick else args.messages)}
    figures.update(bench_air(20 if args.quick else args.rolls, 2 if args.quick else args.reconnects))
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
