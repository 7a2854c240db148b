"""The dice sensor end to end: a virtual sensor process → pty → link → app queue → game.

The box is built by ``companion.box.boot.build_app`` (through SimBox) with ``[sensor] port`` set, as
on a Pi. Quotes are from issue 6 and the 3 Minute Crazy Café rulebook.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from companion.games import box_config as config
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from tests.sensor_process import SimProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def sensor_box(tmp_path, sensor_path):
    box = SimBox(tmp_path / "state", cfg=config.parse({"sensor": {"port": str(sensor_path)}}))
    yield box
    box.close()


def pump_until(box: SimBox, done: Callable[[], bool], timeout: float = 3.0) -> None:
    """Let the loop take the link's events (they arrive in real time) until ``done``."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out; sensor status {box.app.sensor}")
        box.app.pump()
        time.sleep(0.005)


def test_the_box_shows_the_sensor_online_with_its_dice_and_last_faces(sim, sensor_box):
    """"The app sees: sensor online/offline, die rolling, dice settled (a stable set of faces).
    The settings screen shows sensor status, id, dice, and error counts"."""
    status = sensor_box.app.sensor
    pump_until(sensor_box, lambda: status.online)
    assert (status.sensor_id, status.kinds) == ("VIRTUAL-0001", ("yellow", "yellow", "blue", "blue"))
    sim.do("raw $DS,1,HB,1*0000")
    sim.do("settle salad cake water cola")
    pump_until(sensor_box, lambda: status.faces == ("salad", "cake", "water", "cola"))
    pump_until(sensor_box, lambda: status.counters.get("checksum") == 1)
    assert "◎" in sensor_box.app.panel.status_icons()
    run_steps(sensor_box, ("menu:Settings", "menu:Dice", "menu:Status"))
    assert sensor_box.screen.rows() == [
        ("Status", "online"), ("Id", "VIRTUAL-0001"), ("Firmware", "sim-1.0"),
        ("Dice", "2 yellow 2 blue"), ("Checksum", "1"), ("Last problem:", ""), ("bad checksum", "")]
    sim.do("garbage 50")  # the open screen follows the counts as they climb
    pump_until(sensor_box, lambda: ("Garbage", "1") in sensor_box.screen.rows())
    for _ in range(3):  # UP/DOWN scroll through it; OK closes
        sensor_box.press("DOWN")
    assert sensor_box.screen.selected == 3
    sensor_box.press("OK")
    assert sensor_box.screen.title == "Dice"


def test_unplugging_shows_offline_and_the_reason(sim, sensor_box):
    """"The app sees: sensor online/offline" — and the settings say why."""
    status = sensor_box.app.sensor
    pump_until(sensor_box, lambda: status.online)
    sim.do("unplug")
    pump_until(sensor_box, lambda: not status.online)
    assert status.last_problem in ("unplugged", "port not found")
    assert "⊘" in sensor_box.app.panel.status_icons()
    sim.do("plug")
    pump_until(sensor_box, lambda: status.online)


def test_shutdown_stops_the_link(sim, tmp_path, sensor_path):
    """"stop it on shutdown": no reader thread outlives the box."""
    box = SimBox(tmp_path / "other", cfg=config.parse({"sensor": {"port": str(sensor_path)}}))
    link = box.app.hardware.extras["sensor"]
    pump_until(box, lambda: box.app.sensor.online)
    box.app.shutdown()
    assert link._thread is None


def test_a_settled_reroll_with_a_double_calls_double_trouble_in_a_cafe_round(sim, sensor_box):
    """Café: "If, as an action, you re-roll all dice that were not used and two dice then show
    the same drink, dish or bill, you must immediately turn one order over to show the dark
    side" — "Double Trouble does not apply when rolling the dice for the first time during game
    setup". With the sensor, the box reads the dice and calls it."""
    app = sensor_box.app
    pump_until(sensor_box, lambda: app.sensor.online)
    run_steps(sensor_box, ("game:cafe", "menu:Double", "menu:Dice", "menu:Start"))

    def state():
        return app.play.session.state

    assert state().setup.dice == "sensor" and state().setup.double_trouble
    sim.do("settle pizza pizza bill bill")  # the setup roll: doubles, but no trouble
    pump_until(sensor_box, lambda: state().faces == ("pizza", "pizza", "bill", "bill"))
    assert state().dark == 0 and not state().trouble
    sensor_box.press("OK")  # the round starts
    assert state().phase == "running"
    sim.do("settle burger fries cola water")  # a reroll without a double
    pump_until(sensor_box, lambda: state().faces == ("burger", "fries", "cola", "water"))
    assert state().dark == 0
    sim.do("settle - - coffee coffee")  # yellow dice stay; the blue pair shows a double
    pump_until(sensor_box, lambda: state().faces == ("burger", "fries", "coffee", "coffee"))
    assert state().dark == 1 and state().trouble == "flip"
    assert sensor_box.screen.title.endswith(" TROUBLE!")
    assert app.play.session.actions[-1] == {"type": "roll", "kind": "reroll",
                                       "faces": ["burger", "fries", "coffee", "coffee"],
                                       "source": "sensor", "at": app.clock.now()}


def test_miams_takes_arthurs_red_die_from_the_sensor(tmp_path, sensor_path):
    """Issue 6: "Miams: the red die can be read from the sensor" — only the red die is rolled;
    the white dice lying still complete the set from the STATE? snapshot."""
    sim = SimProcess(sensor_path, "--kinds", "miams")
    box = SimBox(tmp_path / "state", cfg=config.parse({"sensor": {"port": str(sensor_path)}}))
    try:
        app = box.app
        pump_until(box, lambda: app.sensor.online)
        assert app.sensor.kinds == ("white",) * 5 + ("red",)
        run_steps(box, ("game:miams", "menu:Start"))
        before = len(app.play.session.actions)
        sim.do("settle - - - - - fruit4")
        pump_until(box, lambda: len(app.play.session.actions) > before)
        assert app.play.session.actions[-1] == {"type": "roll", "face": "fruit4", "source": "sensor"}
    finally:
        box.close()
        sim.close()


def test_a_babbling_sensor_leaves_the_loop_a_handful_of_events(sim, sensor_box):
    """Issue 13, failure 1: "The app's queue is unbounded and draws a frame per event ...
    ~29,000/s: 745k events". Now 2×10⁴ valid frames leave at most one wake-up and a few events
    in the queue, a press is handled at once, the latest faces are right, and the status says
    "sensor noisy"."""
    app = sensor_box.app
    link = app.hardware.extras["sensor"]
    pump_until(sensor_box, lambda: app.sensor.online)
    read = link._parser.frames
    sim.do("flood 20000")
    sim.do("settle cake pizza ? juice")  # 8 frames more
    deadline = time.monotonic() + 20
    while link._parser.frames < read + 20008:  # the loop sleeps: nothing is taken meanwhile
        assert time.monotonic() < deadline, "the link did not read the flood"
        time.sleep(0.01)
    assert app.events.qsize() <= 1
    sensor_box.press("DOWN")  # the press goes through with the sensor's news
    assert sensor_box.screen.selected == 1
    pump_until(sensor_box, lambda: app.sensor.faces == ("cake", "pizza", None, "juice"))
    pump_until(sensor_box, lambda: app.sensor.last_problem.startswith("sensor noisy"))
    assert app.sensor.counters["noisy"] == 1


@pytest.mark.parametrize("protocol", [1, 2])
def test_the_configs_sensor_protocol_decides_whether_an_old_v1_sensor_is_read(
        tmp_path, sensor_path, protocol):
    """Issue 27: "Accept v1 only from a sensor whose HELLO says v1, and only when the config
    allows it (`[sensor] protocol = 1`); count and show refused lines": the box started from
    its config reads the old board with protocol 1, and otherwise refuses it, its settings
    counting the refused lines and saying what to set."""
    from firmware_bridge.virtual import VirtualSensor

    old = VirtualSensor(("yellow", "yellow", "blue", "blue"), link=sensor_path, heartbeat_s=0.05,
                        version=1)
    old.plug()
    box = SimBox(tmp_path / "state", cfg=config.parse(
        {"sensor": {"port": str(sensor_path), "protocol": protocol}}))
    try:
        status = box.app.sensor
        if protocol == 1:
            pump_until(box, lambda: status.online)
            old.throw(["cake", "fries", "water", "bill"])
            pump_until(box, lambda: status.faces == ("cake", "fries", "water", "bill"))
            return
        pump_until(box, lambda: status.counters.get("version", 0) >= 3
                   and "protocol = 1" in status.last_problem)
        assert not status.online and not status.counters.get("v1_lines")
        run_steps(box, ("menu:Settings", "menu:Dice", "menu:Status"))
        rows = box.screen.rows()
        assert ("Status", "offline") in rows
        assert any(label == "Version" and int(count) >= 3 for label, count in rows)  # refused
        assert ("v1 line: set [sensor] protocol = 1 for an old sensor", "") in rows
    finally:
        box.close()
        old.close()
