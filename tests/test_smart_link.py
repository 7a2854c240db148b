"""Paired smart dice told to the box as the serial sensor is: online once every die is
connected, offline naming the missing ones, rolling, one settled set per throw in the paired
kinds' faces, battery, refused notifications counted and never a face; and the bleak transport
reconnecting by itself after a drop."""

from __future__ import annotations

import asyncio
import struct
import threading
import time

import pytest

from firmware_bridge.events import (
    DiceBattery,
    DiceSettled,
    DieRolling,
    SensorHealth,
    SensorOffline,
    SensorOnline,
)
from firmware_bridge.smart_dice import GODICE_NOTIFY, PIXELS_NOTIFY
from firmware_bridge.smart_link import SmartDiceLink, SmartDie, parse_pairing
from hardware.ble_dice import BleakDice, make_of, problem

PIXELS = SmartDie("pixels", "AA:00:00:00:00:01", "yellow")
GODICE = SmartDie("godice", "AA:00:00:00:00:02", "blue")
ROLLING, HANDLED, CROOKED = bytes([3, 3, 0]), bytes([3, 2, 0]), bytes([3, 4, 0])


def rolled(face: int) -> bytes:
    return bytes([3, 1, face - 1])


def godice_rest(face: int, header: bytes = b"S") -> bytes:
    axes = {1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0), 5: (0, 0, -64),
            6: (64, 0, 0)}
    return header + struct.pack("bbb", *axes[face])


def of_type(events: list[object], kind: type) -> list[object]:
    return [event for event in events if isinstance(event, kind)]


@pytest.fixture
def link() -> SmartDiceLink:
    table = SmartDiceLink([PIXELS, GODICE], lambda: None)
    table.start()
    return table


def test_a_pairing_line_names_make_address_and_kind() -> None:
    assert parse_pairing("Pixels F1:E2:D3:C4:B5:A6 yellow") == SmartDie(
        "pixels", "F1:E2:D3:C4:B5:A6", "yellow")
    for wrong in ("pixels F1:E2 green", "dicey F1:E2 yellow", "pixels yellow"):
        with pytest.raises(ValueError, match=r"KIND|make|kind"):
            parse_pairing(wrong)


def test_online_once_every_die_is_connected_and_offline_names_the_missing_one(link) -> None:
    assert of_type(link.take(), SensorOffline) == [SensorOffline(
        "missing: yellow Pixels 00:01, blue Godice 00:02")]
    link.connected(0)
    assert of_type(link.take(), SensorOffline)[0].reason == "missing: blue Godice 00:02"
    link.connected(1)
    assert of_type(link.take(), SensorOnline) == [SensorOnline("2 smart dice", "", ("yellow", "blue"))]
    link.lost(1, "out of reach")
    news = link.take()
    assert of_type(news, SensorOffline) == [SensorOffline("missing: blue Godice 00:02")]
    assert of_type(news, SensorHealth)[-1].last_problem == "blue Godice 00:02: out of reach"
    link.connected(1)
    news = link.take()
    assert of_type(news, SensorOnline) and dict(of_type(news, SensorHealth)[-1].counters)[
        "reconnects"] == 1


def test_a_throw_is_one_settled_set_in_the_paired_kinds_faces(link) -> None:
    link.connected(0), link.connected(1), link.take()
    link.notified(0, ROLLING)
    link.notified(1, b"R")
    assert of_type(link.take(), DieRolling) == [DieRolling(0), DieRolling(1)]
    link.notified(0, rolled(3))  # yellow face 3: pizza
    assert of_type(link.take(), DiceSettled) == []  # the blue die still rolls
    link.notified(1, godice_rest(6))  # blue face 6: bill
    assert link.take() == [DiceSettled(("pizza", "bill"), ("yellow", "blue"))]


def test_a_crooked_die_settles_as_no_face(link) -> None:
    link.connected(0), link.connected(1), link.take()
    for index, data in ((0, ROLLING), (1, b"R"), (0, CROOKED), (1, godice_rest(1))):
        link.notified(index, data)
    assert of_type(link.take(), DiceSettled) == [DiceSettled((None, "cola"), ("yellow", "blue"))]


def test_dice_only_handled_or_slid_are_no_throw(link) -> None:
    link.connected(0), link.connected(1), link.take()
    for index, data in ((0, rolled(1)), (1, godice_rest(2)), (0, HANDLED), (0, bytes([3, 5, 4])),
                        (1, godice_rest(3, b"MS"))):
        link.notified(index, data)
    assert of_type(link.take(), DiceSettled) == []


def test_refused_notifications_are_counted_and_never_a_face(link) -> None:
    link.connected(0), link.connected(1), link.take()
    link.notified(0, ROLLING)
    link.notified(1, b"R")
    link.notified(0, rolled(1))
    for index, data in ((1, b"S\x00\x00"), (1, b"Q"), (1, b"S" + bytes(3)), (0, bytes([3, 1, 9]))):
        link.notified(index, data)
    news = link.take()
    assert of_type(news, DiceSettled) == []
    counts = dict(of_type(news, SensorHealth)[-1].counters)
    assert (counts["length"], counts["unknown_type"], counts["bad_value"], counts["bad_face"]) == (
        1, 1, 1, 1)
    assert of_type(news, SensorHealth)[-1].last_problem.startswith("yellow Pixels 00:01: face index 9")


def test_battery_and_identity_are_told_in_die_order(link) -> None:
    link.notified(1, b"Bat" + bytes([64]))
    assert of_type(link.take(), DiceBattery) == [DiceBattery((None, 64))]
    identity = struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 7, 0, 0x1234, 0, 0, 1, 19, 90, 0)
    link.notified(0, identity)  # a d20 paired as a yellow die
    news = link.take()
    assert of_type(news, DiceBattery) == [DiceBattery((90, 64))]
    assert "is a d20" in of_type(news, SensorHealth)[-1].last_problem
    link.connected(0), link.connected(1)
    for index, data in ((0, ROLLING), (1, b"R"), (0, rolled(5)), (1, godice_rest(5))):
        link.notified(index, data)
    assert of_type(link.take(), DiceSettled) == []  # no face of a d20 is a café face


def test_a_box_without_bluez_says_so() -> None:
    assert problem(FileNotFoundError(2, "No such file or directory")) == (
        "Bluetooth not running (BlueZ's D-Bus not reached)")
    assert problem(TimeoutError()) == "TimeoutError"


def test_advertisements_name_their_make() -> None:
    assert make_of("GoDice_1A2B3C_R_v03", []) == "godice"
    assert make_of("Mighty", ["6E400001-B5A3-F393-E0A9-E50E24DCCA9E"]) == "pixels"
    assert make_of("Headphones", ["0000110b-0000-1000-8000-00805f9b34fb"]) is None


# ----- the bleak transport, with bleak's client and scanner stood in ---------------------------
class FakeRadio:
    """Dice in reach as bleak would see them: connects, notifications, drops on demand."""

    def __init__(self) -> None:
        self.in_reach = {PIXELS.address, GODICE.address}
        self.clients: list[FakeClient] = []
        self.searches: list[set[str]] = []
        self.lock = threading.Lock()

    async def find(self, addresses: set[str], timeout: float) -> dict[str, str]:
        self.searches.append(addresses)
        await asyncio.sleep(0)
        return {address: address for address in addresses if address in self.in_reach}

    def client(self, device: str, disconnected_callback, timeout: float) -> FakeClient:
        client = FakeClient(device, disconnected_callback)
        with self.lock:
            self.clients.append(client)
        return client

    def connected(self, address: str) -> list[FakeClient]:
        with self.lock:
            return [c for c in self.clients if c.device == address and c.notify and not c.closed]


class FakeClient:
    def __init__(self, device: str, disconnected) -> None:
        self.device, self.disconnected, self.notify, self.closed = device, disconnected, {}, False
        self.written: list[bytes] = []

    async def connect(self) -> None:
        await asyncio.sleep(0)

    async def start_notify(self, uuid: str, callback) -> None:
        self.notify[uuid] = callback

    async def write_gatt_char(self, uuid: str, data: bytes, response: bool) -> None:
        self.written.append(data)

    async def disconnect(self) -> None:
        self.closed = True

    def send(self, uuid: str, data: bytes) -> None:
        self.notify[uuid](None, bytearray(data))

    def drop(self) -> None:
        self.disconnected(self)


def wait_for(condition, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, "not reached"
        time.sleep(0.01)
    return found


def test_the_transport_connects_asks_reads_and_reconnects_after_a_drop() -> None:
    radio = FakeRadio()
    radio.in_reach.discard(GODICE.address)  # away at first
    news: list[object] = []
    link = SmartDiceLink([PIXELS, GODICE], lambda: None,
                         BleakDice(client=radio.client, find=radio.find, backoff_s=(0.01, 0.05)))
    link.start()
    try:
        pixels = wait_for(lambda: radio.connected(PIXELS.address))[0]
        assert pixels.written == [bytes([1])]  # WhoAreYou
        radio.in_reach.add(GODICE.address)
        godice = wait_for(lambda: radio.connected(GODICE.address))[0]
        assert godice.written == [bytes([3]), bytes([23])]  # battery, colour
        wait_for(lambda: link.online)
        pixels.send(PIXELS_NOTIFY, ROLLING)
        godice.send(GODICE_NOTIFY, b"R")
        pixels.send(PIXELS_NOTIFY, rolled(2))
        godice.send(GODICE_NOTIFY, godice_rest(4))
        news += link.take()
        assert of_type(news, DiceSettled) == [DiceSettled(("donut", "juice"), ("yellow", "blue"))]
        godice.drop()  # out of reach: the box says which die, then finds it again
        wait_for(lambda: not link.online)
        assert of_type(link.take(), SensorOffline)[-1].reason == "missing: blue Godice 00:02"
        again = wait_for(lambda: [c for c in radio.connected(GODICE.address) if c is not godice])
        assert godice.closed and again
        wait_for(lambda: link.online)
        assert link.counters()["reconnects"] == 1
    finally:
        link.stop()


def test_the_dice_missing_together_are_looked_for_in_one_search() -> None:
    """BlueZ refuses a client's second discovery while its first runs: the transport never
    asks for two, and the dice starting together share one."""
    radio = FakeRadio()
    radio.in_reach.discard(GODICE.address)
    link = SmartDiceLink([PIXELS, GODICE], lambda: None,
                         BleakDice(client=radio.client, find=radio.find, backoff_s=(0.01, 0.05)))
    link.start()
    try:
        wait_for(lambda: radio.connected(PIXELS.address))
        wait_for(lambda: len(radio.searches) >= 3)
        assert radio.searches[0] == {PIXELS.address, GODICE.address}
        assert all(search == {GODICE.address} for search in radio.searches[1:3])  # the one away
    finally:
        link.stop()
