"""Paired smart dice told to the box as the serial sensor is: online once every die is
connected, offline naming the missing ones, rolling, one settled set per throw in the paired
kinds' faces, battery, refused notifications counted and never a face; and the bleak transport
reconnecting by itself after a drop."""

from __future__ import annotations

import asyncio
import logging
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
from hardware.ble_dice import BLUEZ_DEVICE, BleakDice, connected_devices, make_of, problem

PIXELS = SmartDie("pixels", "AA:00:00:00:00:01", "yellow")
GODICE = SmartDie("godice", "AA:00:00:00:00:02", "blue")
P, G = PIXELS.address, GODICE.address
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
    link.connected(P)
    assert of_type(link.take(), SensorOffline)[0].reason == "missing: blue Godice 00:02"
    link.connected(G)
    assert of_type(link.take(), SensorOnline) == [SensorOnline("2 smart dice", "", ("yellow", "blue"))]
    link.lost(G, "out of reach")
    news = link.take()
    assert of_type(news, SensorOffline) == [SensorOffline("missing: blue Godice 00:02")]
    assert of_type(news, SensorHealth)[-1].last_problem == "blue Godice 00:02: out of reach"
    link.connected(G)
    news = link.take()
    assert of_type(news, SensorOnline) and dict(of_type(news, SensorHealth)[-1].counters)[
        "reconnects"] == 1


def test_a_throw_is_one_settled_set_in_the_paired_kinds_faces(link) -> None:
    link.connected(P), link.connected(G), link.take()
    link.notified(P, ROLLING)
    link.notified(G, b"R")
    assert of_type(link.take(), DieRolling) == [DieRolling(0), DieRolling(1)]
    link.notified(P, rolled(3))  # yellow face 3: pizza
    assert of_type(link.take(), DiceSettled) == []  # the blue die still rolls
    link.notified(G, godice_rest(6))  # blue face 6: bill
    assert link.take() == [DiceSettled(("pizza", "bill"), ("yellow", "blue"))]


def test_a_crooked_die_settles_as_no_face(link) -> None:
    link.connected(P), link.connected(G), link.take()
    for die, data in ((P, ROLLING), (G, b"R"), (P, CROOKED), (G, godice_rest(1))):
        link.notified(die, data)
    assert of_type(link.take(), DiceSettled) == [DiceSettled((None, "cola"), ("yellow", "blue"))]


def test_dice_only_handled_or_slid_are_no_throw(link) -> None:
    link.connected(P), link.connected(G), link.take()
    for die, data in ((P, rolled(1)), (G, godice_rest(2)), (P, HANDLED), (P, bytes([3, 5, 4])),
                        (G, godice_rest(3, b"MS"))):
        link.notified(die, data)
    assert of_type(link.take(), DiceSettled) == []


def test_refused_notifications_are_counted_and_never_a_face(link) -> None:
    link.connected(P), link.connected(G), link.take()
    link.notified(P, ROLLING)
    link.notified(G, b"R")
    link.notified(P, rolled(1))
    for die, data in ((G, b"S\x00\x00"), (G, b"Q"), (G, b"S" + bytes(3)), (P, bytes([3, 1, 9]))):
        link.notified(die, data)
    news = link.take()
    assert of_type(news, DiceSettled) == []
    counts = dict(of_type(news, SensorHealth)[-1].counters)
    assert (counts["length"], counts["unknown_type"], counts["bad_value"], counts["bad_face"]) == (
        1, 1, 1, 1)
    assert of_type(news, SensorHealth)[-1].last_problem.startswith("yellow Pixels 00:01: face index 9")


def test_battery_and_identity_are_told_in_die_order(link) -> None:
    link.notified(G, b"Bat" + bytes([64]))
    assert of_type(link.take(), DiceBattery) == [DiceBattery((None, 64))]
    identity = struct.pack("<BBBBIIHIBBBB", 2, 6, 3, 7, 0, 0x1234, 0, 0, 1, 19, 90, 0)
    link.notified(P, identity)  # a d20 paired as a yellow die
    news = link.take()
    assert of_type(news, DiceBattery) == [DiceBattery((90, 64))]
    assert "is a d20" in of_type(news, SensorHealth)[-1].last_problem
    link.connected(P), link.connected(G)
    for die, data in ((P, ROLLING), (G, b"R"), (P, rolled(5)), (G, godice_rest(5))):
        link.notified(die, data)
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

    async def held(self, addresses: set[str]) -> dict[str, str]:
        return {}  # BlueZ holds none of them as connected

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
                         BleakDice(client=radio.client, find=radio.find, held=radio.held,
                                   backoff_s=(0.01, 0.05)))
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
        radio.in_reach.discard(G)
        godice.drop()  # out of reach: the box says which die, then finds it again
        wait_for(lambda: not link.online)
        assert of_type(link.take(), SensorOffline)[-1].reason == "missing: blue Godice 00:02"
        radio.in_reach.add(G)
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
                         BleakDice(client=radio.client, find=radio.find, held=radio.held,
                                   backoff_s=(0.01, 0.05)))
    link.start()
    try:
        wait_for(lambda: radio.connected(PIXELS.address))
        wait_for(lambda: len(radio.searches) >= 3)
        assert radio.searches[0] == {PIXELS.address, GODICE.address}
        assert all(search == {GODICE.address} for search in radio.searches[1:3])  # the one away
    finally:
        link.stop()


def test_a_new_set_keeps_the_news_of_the_dice_paired_before() -> None:
    link = SmartDiceLink([PIXELS, GODICE], lambda: None)
    link.start()
    link.connected(P), link.connected(G), link.notified(G, b"Bat" + bytes([64])), link.take()
    link.change([SmartDie("godice", G.lower(), "red")])  # Pixels forgotten, GoDice now red
    assert link.status() == [(True, 64)]
    assert of_type(link.take(), SensorOnline) == [SensorOnline("1 smart dice", "", ("red",))]
    link.notified(P, ROLLING)  # the forgotten die's last word reaches nothing
    link.change([SmartDie("godice", G, "red"), PIXELS])
    assert link.status() == [(True, 64), (False, None)]
    assert of_type(link.take(), SensorOffline) == [SensorOffline("missing: yellow Pixels 00:01")]


def test_pairing_a_second_die_keeps_the_first_connected_and_forgetting_one_disconnects_it() -> None:
    radio = FakeRadio()
    link = SmartDiceLink([PIXELS], lambda: None,
                         BleakDice(client=radio.client, find=radio.find, held=radio.held,
                                   backoff_s=(0.01, 0.05)))
    link.start()
    try:
        pixels = wait_for(lambda: radio.connected(P))[0]
        link.change([PIXELS, GODICE])
        godice = wait_for(lambda: radio.connected(G))[0]
        link.change([SmartDie("pixels", P, "red"), GODICE])  # a new colour: the same connection
        wait_for(lambda: link.online)
        link.change([SmartDie("pixels", P, "red")])
        wait_for(lambda: godice.closed)
        assert radio.connected(P) == [pixels] and not pixels.closed
        assert link.counters()["reconnects"] == 0 and link.online
    finally:
        link.stop()


def test_bluezs_objects_name_the_dice_it_holds_as_connected() -> None:
    def device(address: str, connected: bool) -> dict[str, dict[str, object]]:
        return {BLUEZ_DEVICE: {"Address": address, "Connected": connected, "Name": "die"}}

    objects = {"/org/bluez/hci0": {"org.bluez.Adapter1": {"Address": "C0:00:00:00:00:B0"}},
               "/org/bluez/hci0/dev_AA_00_00_00_00_01": device(P.lower(), True),
               "/org/bluez/hci0/dev_AA_00_00_00_00_02": device(G, False),
               "/org/bluez/hci0/dev_AA_00_00_00_00_09": device("AA:00:00:00:00:09", True)}
    assert connected_devices(objects, {P, G}) == {
        P: ("/org/bluez/hci0/dev_AA_00_00_00_00_01", device(P.lower(), True)[BLUEZ_DEVICE])}


def test_a_die_bluez_holds_as_connected_is_taken_without_a_search_and_said_once(caplog) -> None:
    """Such a die no longer advertises: no search finds it, but BlueZ knows it."""
    radio = FakeRadio()
    radio.in_reach.clear()
    asked: list[set[str]] = []

    async def held(addresses: set[str]) -> dict[str, str]:
        asked.append(addresses)
        return {P: P} if P in addresses else {}

    link = SmartDiceLink([PIXELS, GODICE], lambda: None, BleakDice(
        client=radio.client, find=radio.find, held=held, backoff_s=(0.01, 0.05)))
    with caplog.at_level(logging.WARNING, logger="hardware.ble_dice"):
        link.start()
        try:
            pixels = wait_for(lambda: radio.connected(P))[0]
            pixels.drop()
            wait_for(lambda: [c for c in radio.connected(P) if c is not pixels])
            wait_for(lambda: len(asked) >= 3)
        finally:
            link.stop()
    assert asked[0] == {P, G} and sum(P in addresses for addresses in asked) >= 2
    said = [record.getMessage() for record in caplog.records]
    assert said == [f"smart die {P}: Bluetooth still held it as connected after the box let go "
                    "of it; the box takes that connection again"]
