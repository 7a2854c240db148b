"""Smart dice end to end in the simulated box: paired virtual dice (the radio stood in, the
same link and notification bytes as over Bluetooth) → the loop → the games. Quotes are from
the 3 Minute Crazy Café and Miams rulebooks."""

from __future__ import annotations

import pytest

from companion.games import box_config as config
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from firmware_bridge.faces import BLUE, RED, YELLOW
from tests.test_sensor_app import pump_until

pytestmark = pytest.mark.slow

CAFE_DICE = ["pixels AA:00:00:00:00:01 yellow", "pixels AA:00:00:00:00:02 yellow",
             "godice AA:00:00:00:00:03 blue", "godice AA:00:00:00:00:04 blue"]


def box_with(tmp_path, dice: list[str]) -> SimBox:
    return SimBox(tmp_path / "state", cfg=config.parse({"dice": {"smart": dice}}))


def faces(kinds: tuple[tuple[str, ...], ...], names: tuple[str, ...]) -> list[int]:
    """The die faces (1-6) that show ``names`` on dice of these kinds."""
    return [kind.index(name) + 1 for kind, name in zip(kinds, names, strict=True)]


CAFE = (YELLOW, YELLOW, BLUE, BLUE)


def test_a_settled_reroll_with_a_double_calls_double_trouble(tmp_path):
    """Café: "If, as an action, you re-roll all dice that were not used and two dice then show
    the same drink, dish or bill, you must immediately turn one order over to show the dark
    side" — "Double Trouble does not apply when rolling the dice for the first time during game
    setup". Read from paired Pixels and GoDice."""
    box = box_with(tmp_path, CAFE_DICE)
    try:
        app, dice = box.app, box.app.hardware.extras["dice"]
        pump_until(box, lambda: app.sensor.online)
        assert app.sensor.battery == (90, 90, 90, 90)
        run_steps(box, ("game:cafe", "menu:Double", "menu:Dice", "menu:Start"))

        def state():
            return app.play.session.state

        assert state().setup.dice == "sensor" and state().setup.double_trouble
        dice.throw(faces(CAFE, ("pizza", "pizza", "bill", "bill")))  # setup: doubles, no trouble
        pump_until(box, lambda: state().faces == ("pizza", "pizza", "bill", "bill"))
        assert state().dark == 0 and not state().trouble
        box.press("OK")  # the round starts
        dice.throw(faces(CAFE, ("burger", "fries", "coffee", "coffee")))
        pump_until(box, lambda: state().faces == ("burger", "fries", "coffee", "coffee"))
        assert state().dark == 1 and state().trouble == "flip"
        assert app.play.session.actions[-1]["source"] == "sensor"
    finally:
        box.close()


def test_a_missing_die_is_named_and_play_goes_on_with_buttons(tmp_path):
    box = box_with(tmp_path, CAFE_DICE)
    try:
        app, dice = box.app, box.app.hardware.extras["dice"]
        pump_until(box, lambda: app.sensor.online)
        dice.vanish(2)
        pump_until(box, lambda: not app.sensor.online)
        assert app.sensor.last_problem == "missing: blue Godice 00:03"
        assert "⊘" in app.panel.status_icons()
        run_steps(box, ("game:cafe", "menu:Start"))  # box dice: buttons still play
        assert app.play.session.state.setup.dice == "box"
        dice.come_back(2)
        pump_until(box, lambda: app.sensor.online)
        assert app.sensor.counters["reconnects"] == 1
    finally:
        box.close()


def test_miams_takes_arthurs_red_die_and_refuses_a_crooked_one(tmp_path):
    """Miams: Arthur's red die from a paired die; one that lands leaning is refused on the
    screen ("Red die unclear"), never recorded."""
    box = box_with(tmp_path, ["pixels AA:00:00:00:00:09 red"])
    try:
        app, dice = box.app, box.app.hardware.extras["dice"]
        pump_until(box, lambda: app.sensor.online)
        run_steps(box, ("game:miams", "menu:Start"))
        before = len(app.play.session.actions)
        dice.throw([None])
        pump_until(box, lambda: app.sensor.faces == (None,))
        assert len(app.play.session.actions) == before
        pump_until(box, lambda: box.app.stack.toast_lines is not None)
        assert " ".join(box.app.stack.toast_lines) == "Red die unclear: roll it again"
        dice.throw([RED.index("fruit4") + 1])
        pump_until(box, lambda: len(app.play.session.actions) > before)
        assert app.play.session.actions[-1] == {"type": "roll", "face": "fruit4", "source": "sensor"}
    finally:
        box.close()


def test_fuzzed_notifications_are_counted_and_never_a_face(tmp_path):
    box = box_with(tmp_path, CAFE_DICE)
    try:
        app, dice = box.app, box.app.hardware.extras["dice"]
        pump_until(box, lambda: app.sensor.online)
        for data in (b"", bytes([3, 1, 9]), bytes([3, 9, 0]), bytes([77]), bytes([3, 1])):
            dice.send(0, data)
        for data in (b"S\x00\x00\x00", b"Bat\xff", b"X", b"SS"):
            dice.send(2, data)
        pump_until(box, lambda: sum(app.sensor.counters.values()) == 9)
        assert app.sensor.faces == ()
    finally:
        box.close()
