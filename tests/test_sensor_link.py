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
from firmware_bridge.firmware.dicecore import frame
from firmware_bridge.link import SensorLink
from firmware_bridge.protocol import Face, Hello, Roll, encode
from tests.sensor_process import SimProcess

pytestmark = pytest.mark.slow

CAFE = ("yellow", "yellow", "blue", "blue")
# the sensor beats every 0.05 s; the link allows 3 × 0.1 s so a busy test machine is no "silence"
FAST = {"heartbeat_s": 0.1, "backoff_s": (0.02, 0.2), "health_every_s": 0.02}


WAKE = object()


class Events:
    """The link's news, taken as the app's loop takes it: on each wake-up in its queue.

    ``wait`` returns the first matching event not returned before, looking first at events
    that arrived while an earlier ``wait`` looked for something else: none is ever dropped.
    """

    def __init__(self) -> None:
        self.queue: queue.Queue = queue.Queue()
        self.seen: list = []
        self._taken: set[int] = set()
        self.link: SensorLink | None = None

    def connect(self, url: str, **options: object) -> SensorLink:
        """A link to ``url`` that wakes this queue (FAST timings unless ``options`` say)."""
        self.link = SensorLink(url, lambda: self.queue.put(WAKE), **{**FAST, **options})
        return self.link

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
                got = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no matching event in {timeout}s; saw {self.seen[-5:]}") from None
            self.seen.extend(self.link.take() if got is WAKE else [got])

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
    made = events.connect(str(sensor_path))
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
    assert link.online
    events.forget()
    sim.do("roll 1")  # a die that moves is news of its own, until the dice settle again
    assert events.wait(lambda e: isinstance(e, DieRolling)) == DieRolling(1)


def test_after_hello_the_link_asks_state_so_one_die_completes_the_set(sim, sensor_path, events):
    """"on HELLO it asks STATE?": dice lying still when the link connects are known, so one
    rerolled die gives a full set — and lying dice alone are no roll."""
    sim.do("settle burger cake milkshake water")
    made = events.connect(str(sensor_path))
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

    made = events.connect(str(sensor_path), opener=opener)
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
    sim.do("raw $DS,99,FACE,0,pizza,10*0000")
    sim.do("settle donut donut bill bill")
    assert events.wait(lambda e: isinstance(e, DiceSettled)).faces == ("donut", "donut", "bill", "bill")
    health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["checksum"])
    counters = dict(health.counters)
    assert counters["garbage"] >= 1 and counters["checksum"] == 1
    assert health.last_problem
    assert not events.of(SensorOffline)


def test_a_flood_is_read_whole_and_held_as_one_wake_up(sim, link, events):
    """Issue 13: "a babbling sensor grows memory without limit" — no more: 2×10⁴ frames are all
    read, none lost, yet the loop's queue holds one wake-up and the link a handful of news,
    the last set right; the flood shows as "sensor noisy"."""
    link.start()
    events.wait(online)
    sim.do("settle burger burger cola cola")
    events.wait(lambda e: isinstance(e, DiceSettled))
    events.forget()
    while not events.queue.empty():
        events.queue.get()
    link.take()
    read = link._parser.frames
    sim.do("flood 20000")
    sim.do("settle cake pizza ? juice")  # 8 frames more
    wait_until(lambda: link._parser.frames >= read + 20008, timeout=20)
    assert events.queue.qsize() == 1 and len(link.mailbox) <= len(CAFE) + 3
    final = ("cake", "pizza", None, "juice")  # a crooked die: no set in the flood looks like it
    last = events.wait(lambda e: isinstance(e, DiceSettled) and e.faces == final, timeout=1)
    assert last.kinds == CAFE and len(events.seen) <= len(CAFE) + 3
    health = events.wait(lambda e: isinstance(e, SensorHealth) and "noisy" in e.last_problem)
    assert health.last_problem.startswith("sensor noisy")
    counters = {name: count for name, count in link.counters().items() if count}
    assert counters == {"noisy": 1}, counters


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
    made = events.connect(f"spy://{sensor_path}?file={log}")
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

    made = events.connect("loop://", opener=opener)
    made.start()
    deadline = time.monotonic() + 2
    while not opened and time.monotonic() < deadline:
        time.sleep(0.01)
    return made, opened[0]


def test_a_sensor_of_an_unknown_protocol_version_never_comes_online(events):
    """"rejecting ... unknown versions": a v3 HELLO is refused, counted and named."""
    made, port = loop_link(events)
    try:
        port.write(frame(0, "HELLO", (3, "3.0", "NEXT", 1, "red")))
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["version"])
        assert health.last_problem == "protocol v3 unsupported"
        assert not made.online and not events.of(SensorOnline)
    finally:
        made.stop()


def test_lost_frames_are_counted_and_the_link_asks_for_the_state_again(sim, sensor_path, tmp_path, events):
    """"seq 0–255 wrapping so drops ... show": after a gap the host asks STATE? to resync."""
    log = tmp_path / "spy.txt"
    made = events.connect(f"spy://{sensor_path}?file={log}")

    def asked() -> int:
        return log.read_text().count("STATE?")  # spy:// flushes every write

    made.start()
    try:
        events.wait(online)
        wait_until(lambda: asked() >= 1)  # the ask that follows HELLO
        time.sleep(0.2)  # a few heartbeats in sequence: no gap, no further ask
        assert asked() == 1 and made.counters()["dropped"] == 0
        line = frame(200, "HB", (1,))  # far ahead of the sensor's numbering: frames were lost
        sim.do(f"raw {line.decode().strip()}")
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["dropped"])
        assert "lost" in health.last_problem
        wait_until(lambda: asked() >= 2)
    finally:
        made.stop()


def test_an_old_v1_sensor_comes_online_and_is_noted(sensor_path, events):
    """Issue 13: "v1 lines are still read (with a note in the health counters) so an old sensor
    keeps working": a board speaking v1 only comes online, its dice are read, and the health
    counts its lines and says why."""
    from firmware_bridge.virtual import VirtualSensor

    old = VirtualSensor(CAFE, link=sensor_path, heartbeat_s=0.05, version=1)
    old.plug()
    made = events.connect(str(sensor_path), accept_v1=True)  # [sensor] protocol = 1
    made.start()
    try:
        assert events.wait(online).kinds == CAFE
        old.throw(["cake", "fries", "water", "bill"])
        assert events.wait(lambda e: isinstance(e, DiceSettled)).faces == ("cake", "fries", "water", "bill")
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["v1_lines"] > 8)
        assert health.last_problem == "sensor speaks protocol v1: update its firmware"
        # Only its heartbeats before the HELLO that answered the box are refused (a v1 line
        # before a v1 HELLO could be a v2 sensor's damaged line).
        assert {k for k, v in health.counters if v} <= {"v1_lines", "version"}
    finally:
        made.stop()
        old.close()


def test_the_mailbox_keeps_the_latest_of_each_kind_and_wakes_once():
    """Issue 13: "The reader keeps only what the app needs (the latest roll state per die and
    the latest settled set)"; one wake-up until the loop takes the news."""
    from firmware_bridge.link import Mailbox

    wakes: list[int] = []
    box = Mailbox(lambda: wakes.append(1))
    box.put("connection", SensorOffline("unplugged"))
    for n in range(1000):
        box.put(n % 4, DieRolling(n % 4))
        box.put("settled", DiceSettled((str(n),), ("red",)))
    box.put(2, DieRolling(2))
    box.put("connection", SensorOnline("ID", "2.0.0", ("red",)))
    assert len(wakes) == 1 and len(box) == 3
    assert box.take() == [DiceSettled(("999",), ("red",)), DieRolling(2),
                          SensorOnline("ID", "2.0.0", ("red",))]
    assert box.take() == [] and len(wakes) == 1
    box.put("settled", DiceSettled(("x",), ("red",)))
    assert len(wakes) == 2  # empty again, so the next news wakes the loop again


def test_doctor_finds_an_old_v1_sensor_by_asking_in_both_versions(sensor_path):
    """A v1 board cannot check a v2 HELLO?: the probe asks again in v1, and says the firmware
    is old."""
    from firmware_bridge.probe import sensor_answers
    from firmware_bridge.virtual import VirtualSensor

    old = VirtualSensor(CAFE, link=sensor_path, heartbeat_s=10, version=1, sensor_id="OLD-1")
    old.plug()
    port = serial.serial_for_url(str(sensor_path), timeout=0.05)
    try:
        port.read(4096)  # the HELLO it said at power-up is gone: only an answer counts
        answered, detail = sensor_answers(port, wait_s=3, ask_every_s=0.2)
        assert answered, detail
        assert detail == ("sensor OLD-1 (firmware sim-1.0, protocol v1: update its firmware, "
                          "or set [sensor] protocol = 1), 4 dice")
    finally:
        port.close()
        old.close()


def test_an_old_v1_sensor_is_refused_unless_the_config_allows_it(sensor_path, events):
    """Issue 27: the XOR check lets two flipped bits by, so v1 is read only with
    ``[sensor] protocol = 1``: without it the box never takes a v1 line, counts each one it
    refuses and says what to set."""
    from firmware_bridge.virtual import VirtualSensor

    old = VirtualSensor(CAFE, link=sensor_path, heartbeat_s=0.05, version=1)
    old.plug()
    made = events.connect(str(sensor_path))
    made.start()
    try:
        # (Without a valid line the link also falls silent and reconnects: that problem may
        # be the last one said in between.)
        health = events.wait(lambda e: isinstance(e, SensorHealth) and dict(e.counters)["version"]
                             and e.last_problem == "v1 line: set [sensor] protocol = 1 for an old sensor")
        assert dict(health.counters)["v1_lines"] == 0 and not made.online
    finally:
        made.stop()
        old.close()
