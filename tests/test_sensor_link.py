"""The serial link against a virtual sensor in another process, on a real pseudo-terminal.

``companion sensor-sim`` runs as a subprocess; the link opens its pty through pyserial, so the
real code path runs: hot-unplug and replug, heartbeat loss, garbage, a flood of frames.
Quotes are from issue 6.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable

import pytest
import serial

from firmware_bridge.events import DiceSettled, DieRolling, SensorHealth, SensorOffline, SensorOnline
from firmware_bridge.link import SensorLink
from firmware_bridge.protocol import Face, Hello, Roll, encode
from tests.sensor_process import SimProcess

CAFE = ("yellow", "yellow", "blue", "blue")
# the sensor beats every 0.05 s; the link allows 3 × 0.1 s so a busy test machine is no "silence"
FAST = {"heartbeat_s": 0.1, "backoff_s": (0.02, 0.2), "health_every_s": 0.02}


class Events:
    """The link's posts, as the app's queue would receive them.

    ``wait`` returns the first matching event not returned before, looking first at events
    that arrived while an earlier ``wait`` looked for something else: none is ever dropped.
    """

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []
        self._taken: set[int] = set()

    def post(self, event: object) -> None:
        self.queue.put(event)

    def wait(self, match: Callable[[object], bool], timeout: float = 3.0) -> object:
        deadline = time.monotonic() + timeout
        checked = 0
        while True:
            for index in range(checked, len(self.seen)):
                if index not in self._taken and match(self.seen[index]):
                    self._taken.add(index)
                    return self.seen[index]
            checked = len(self.seen)
            try:
                self.seen.append(self.queue.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"no matching event in {timeout}s; saw {self.seen[-5:]}") from None

    def of(self, kind: type) -> list:
        """Every event of ``kind`` seen so far, returned by ``wait`` or not."""
        return [e for e in self.seen if isinstance(e, kind)]

    def forget(self) -> None:
        """Drop every event seen so far, so later assertions count only what comes next."""
        self.seen.clear()
        self._taken.clear()


@pytest.fixture
def events():
    return Events()


@pytest.fixture
def link(sensor_path, events):
    made = SensorLink(str(sensor_path), events.post, **FAST)
    yield made
    made.stop()


def online(e: object) -> bool:
    return isinstance(e, SensorOnline)


def test_settled_dice_arrive_as_one_set_of_faces(sim, link, events):
    """"The app sees: sensor online/offline, die rolling, dice settled (a stable set of faces)"."""
    assert sim.banner.startswith("sensor-sim: /dev/pts/")
    link.start()
    hello = events.wait(online)
    assert hello == SensorOnline("VIRTUAL-0001", "sim-1.0", CAFE)
    sim.do("settle pizza donut ? bill")
    settled = events.wait(lambda e: isinstance(e, DiceSettled))
    assert settled == DiceSettled(("pizza", "donut", None, "bill"), CAFE)
    assert sorted(e.index for e in events.of(DieRolling)) == [0, 1, 2, 3]
    assert link.online


def test_after_hello_the_link_asks_state_so_one_die_completes_the_set(sim, sensor_path, events):
    """"on HELLO it asks STATE?": dice lying still when the link connects are known, so one
    rerolled die gives a full set — and lying dice alone are no roll."""
    sim.do("settle burger cake milkshake water")
    made = SensorLink(str(sensor_path), events.post, **FAST)
    made.start()
    try:
        events.wait(online)
        sim.do("face 2 coffee")
        settled = events.wait(lambda e: isinstance(e, DiceSettled))
        assert settled.faces == ("burger", "cake", "coffee", "water")
        assert len(events.of(DiceSettled)) == 1
    finally:
        made.stop()


def test_events_that_came_before_the_awaited_one_are_kept(events):
    """The helper itself: a health report posted before the settled set is still found after it."""
    events.post(SensorHealth((("checksum", 1),), "bad checksum"))
    events.post(DiceSettled(("pizza",), ("yellow",)))
    assert events.wait(lambda e: isinstance(e, DiceSettled), timeout=0.1).faces == ("pizza",)
    health = events.wait(lambda e: isinstance(e, SensorHealth), timeout=0.1)
    assert health.last_problem == "bad checksum"
    with pytest.raises(AssertionError, match="no matching event"):
        events.wait(lambda e: isinstance(e, SensorHealth), timeout=0.1)  # each event is returned once


def wait_until(condition: Callable[[], bool], timeout: float = 3.0) -> None:
    """Poll ``condition`` until it holds (a bound on waiting, not a figure under test)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition never held"
        time.sleep(0.005)


def test_hot_unplug_and_replug(sim, sensor_path, events):
    """"reconnection with back-off when the device disappears (SerialException/OSError)".

    The time a replug takes is a figure for bench/bench_sensor.py; here: it keeps trying while
    the cable is out, and comes back by itself once it is in.
    """
    attempts: list[str] = []

    def opener(url: str, **options: object) -> serial.SerialBase:
        attempts.append(url)
        return serial.serial_for_url(url, **options)

    made = SensorLink(str(sensor_path), events.post, opener=opener, **FAST)
    made.start()
    try:
        events.wait(online)
        sim.do("unplug")
        gone = events.wait(lambda e: isinstance(e, SensorOffline))
        assert gone.reason == "unplugged"
        assert not made.online
        tried = len(attempts)
        wait_until(lambda: len(attempts) >= tried + 2)  # reopen attempts while the cable is out
        assert len(events.of(SensorOffline)) == 1, "failed attempts are no news to the app"
        sim.do("plug")
        events.wait(online)
        assert made.online
        sim.do("settle fries salad juice cola")
        assert events.wait(lambda e: isinstance(e, DiceSettled)).faces == ("fries", "salad", "juice", "cola")
        assert made.counters()["reconnects"] == 1
    finally:
        made.stop()


def test_three_missed_heartbeats_mean_offline_then_it_reconnects(sim, link, events):
    """"or falls silent (3 missed heartbeats)"."""
    link.start()
    events.wait(online)
    sim.do("quiet 0.6")
    silent = events.wait(lambda e: isinstance(e, SensorOffline))
    assert silent.reason == "no heartbeat"
    events.wait(online)
    assert link.counters()["silent"] >= 1


def test_a_garbage_burst_is_counted_and_the_link_carries_on(sim, link, events):
    """"resynchronising on the next $ after garbage"; "counting each kind of rejection"."""
    link.start()
    events.wait(online)
    sim.do("garbage 3000")
    sim.do("raw $DS,99,FACE,0,pizza,10*00")
    sim.do("settle donut donut bill bill")
    assert events.wait(lambda e: isinstance(e, DiceSettled)).faces == ("donut", "donut", "bill", "bill")
    health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["checksum"])
    counters = dict(health.counters)
    assert counters["garbage"] >= 1 and counters["checksum"] == 1
    assert health.last_problem
    assert not events.of(SensorOffline)


def test_a_flood_of_ten_thousand_frames(sim, link, events):
    """"a flood of 10⁴ frames": every frame is read, none lost, and the last set is right."""
    link.start()
    events.wait(online)
    sim.do("settle burger burger cola cola")
    events.wait(lambda e: isinstance(e, DiceSettled))
    events.forget()
    sim.do("flood 10000")
    sim.do("settle cake pizza ? juice")
    final = ("cake", "pizza", None, "juice")  # a crooked die: no set in the flood looks like it
    last = events.wait(lambda e: isinstance(e, DiceSettled) and e.faces == final, timeout=10)
    assert last.kinds == CAFE
    counters = link.counters()
    assert counters["dropped"] == counters["duplicate"] == counters["garbage"] == 0
    assert sum(counters.values()) == 0, counters
    assert len(events.of(DiceSettled)) == 5000 + 1  # each ROLL+FACE pair makes a new set


def test_a_sensor_plugged_in_later_is_found(sensor_path, link, events):
    """The box starts without its sensor: offline at once, online when it is plugged in."""
    link.start()
    assert events.wait(lambda e: isinstance(e, SensorOffline)).reason == "port not found"
    late = SimProcess(sensor_path)
    try:
        events.wait(online)
    finally:
        late.close()


def test_spy_url_logs_the_traffic(sim, sensor_path, tmp_path, events):
    """"serial.serial_for_url (so loop://, spy:// and by-id device paths all work)"."""
    log = tmp_path / "spy.txt"
    made = SensorLink(f"spy://{sensor_path}?file={log}", events.post, **FAST)
    made.start()
    try:
        events.wait(online)
    finally:
        made.stop()
    text = log.read_text()
    assert "$DS,0,HELLO?*" in text and "STATE?" in text  # what the link sent ...
    assert " RX " in text  # ... and what the sensor answered, dumped in hex


def test_loop_url_and_bounded_writes(events):
    """loop:// echoes what is written, so a test can play the sensor in-process; and "No write
    may block forever": the port is opened with read and write timeouts."""
    made, port = loop_link(events)
    try:
        assert port.timeout is not None and port.write_timeout is not None
        port.write(encode(Hello(1, "t", "LOOP", ("red",)), 0))
        assert events.wait(online).kinds == ("red",)
        port.write(encode(Roll(0), 1) + encode(Face(0, "marshmallow", 300), 2))
        assert events.wait(lambda e: isinstance(e, DiceSettled)).faces == ("marshmallow",)
    finally:
        made.stop()


def loop_link(events: Events) -> tuple[SensorLink, serial.SerialBase]:
    """A link on loop:// and the port it opened, so the test can play the sensor."""
    opened: list = []

    def opener(url: str, **options: object) -> serial.SerialBase:
        opened.append(serial.serial_for_url(url, **options))
        return opened[-1]

    made = SensorLink("loop://", events.post, opener=opener, **FAST)
    made.start()
    deadline = time.monotonic() + 2
    while not opened and time.monotonic() < deadline:
        time.sleep(0.01)
    return made, opened[0]


def test_a_sensor_of_an_unknown_protocol_version_never_comes_online(events):
    """"rejecting ... unknown versions": a v2 HELLO is refused, counted and named."""
    made, port = loop_link(events)
    try:
        body = b"DS,0,HELLO,2,2.0,NEXT,1,red"
        port.write(b"$" + body + f"*{_xor(body):02X}\r\n".encode())
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["version"])
        assert health.last_problem == "protocol v2 unsupported"
        assert not made.online and not events.of(SensorOnline)
    finally:
        made.stop()


def test_lost_frames_are_counted_and_the_link_asks_for_the_state_again(sim, sensor_path, tmp_path, events):
    """"seq 0–255 wrapping so drops ... show": after a gap the host asks STATE? to resync."""
    log = tmp_path / "spy.txt"
    made = SensorLink(f"spy://{sensor_path}?file={log}", events.post, **FAST)

    def asked() -> int:
        return log.read_text().count("STATE?")  # spy:// flushes every write

    made.start()
    try:
        events.wait(online)
        wait_until(lambda: asked() >= 1)  # the ask that follows HELLO
        time.sleep(0.2)  # a few heartbeats in sequence: no gap, no further ask
        assert asked() == 1 and made.counters()["dropped"] == 0
        body = b"DS,200,HB,1"  # far ahead of the sensor's own numbering: frames were lost
        sim.do(f"raw ${body.decode()}*{_xor(body):02X}")
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["dropped"])
        assert "lost" in health.last_problem
        wait_until(lambda: asked() >= 2)
    finally:
        made.stop()


def _xor(data: bytes) -> int:
    value = 0
    for byte in data:
        value ^= byte
    return value
