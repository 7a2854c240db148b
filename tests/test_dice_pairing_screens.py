"""Pairing smart dice on the box (Settings → Dice) in the simulator: the search finds the
virtual dice off the loop, OK pairs one to a colour, the box reads it at once and keeps the
pairing across a restart, a paired die is forgotten after asking."""

from __future__ import annotations

import json

import pytest

from companion.games import box_config as config
from companion.records.dice import KEY, STATUS
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from firmware_bridge.faces import BLUE, RED, YELLOW
from firmware_bridge.virtual_dice import IN_REACH
from tests.conftest import assert_golden
from tests.test_sensor_app import pump_until

pytestmark = pytest.mark.slow


def found_screen(box: SimBox) -> None:
    run_steps(box, ("menu:Settings", "menu:Dice", "menu:Find dice"))
    pump_until(box, lambda: box.screen.title == "Find dice" and not box.app.dice.searching)
    box.app.pump()  # the frame after the search's news


def pair_first_as(box: SimBox, colour: str) -> None:
    """OK on the selected die found, then the colour."""
    box.press("OK")
    assert box.screen.title == "Pair as"
    run_steps(box, (f"menu:{colour}",))


def test_find_dice_lists_the_dice_in_reach_and_ok_pairs_one_to_a_colour(tmp_path):
    box = SimBox(tmp_path / "state")
    try:
        found_screen(box)
        assert box.app.dice.found_rows()[:3] == [
            ("Pixel Amber", "-48dBm"), ("Pixel Saffron", "-51dBm"),
            ("GoDice_E00003_B_v04", "-55dBm")]
        assert_golden(box.frame(), "dice-found")
        box.press("OK")
        assert_golden(box.frame(), "dice-pair-as")
        run_steps(box, ("menu:Yellow",))
        assert " ".join(box.app.stack.toast_lines) == "Paired: yellow Pixels 00:01"
        assert box.app.dice.found_rows()[0][1] == "paired"
        # read at once: the link connects the new set and the sensor is online with its kind
        pump_until(box, lambda: box.app.sensor.online)
        assert box.app.sensor.kinds == ("yellow",)
        assert box.app.play.journal.settings()[KEY] == [f"pixels {IN_REACH[0][1]} yellow"]
        # the page is told: the die connected, with its charge, and the dice found
        told = json.loads((tmp_path / "state" / STATUS).read_text())
        assert told["paired"][0]["connected"] and told["paired"][0]["battery"] == 90
        assert len(told["found"]) == len(IN_REACH)
    finally:
        box.close()


def test_a_set_paired_on_the_box_reads_rolls_and_stays_paired_after_a_restart(tmp_path):
    """Four dice paired in order, two yellow then two blue (the Café's dice), roll as one set."""
    box = SimBox(tmp_path / "state")
    try:
        found_screen(box)
        for index, colour in enumerate(("Yellow", "Yellow", "Blue", "Blue")):
            box.screen.selected = index
            pair_first_as(box, colour)
        pump_until(box, lambda: box.app.sensor.online)
        box.app.hardware.extras["dice"].throw([1, 2, 3, 4])
        pump_until(box, lambda: box.app.sensor.faces != ())
        assert box.app.sensor.faces == (YELLOW[0], YELLOW[1], BLUE[2], BLUE[3])
    finally:
        box.close()
    again = SimBox(tmp_path / "state")
    try:
        pump_until(again, lambda: again.app.sensor.online)
        assert again.app.sensor.kinds == ("yellow", "yellow", "blue", "blue")
        run_steps(again, ("menu:Settings", "menu:Dice"))
        assert [item.label for item in again.screen.items][2:] == [
            "yellow Pixels 00:01", "yellow Pixels 00:02", "blue Godice 00:03", "blue Godice 00:04"]
        assert [item.detail for item in again.screen.items][2:] == ["90%"] * 4
    finally:
        again.close()


def test_a_paired_die_is_forgotten_after_asking_and_the_rest_read_on(tmp_path):
    box = SimBox(tmp_path / "state")
    try:
        found_screen(box)
        pair_first_as(box, "White")
        box.screen.selected = 1
        pair_first_as(box, "Red")
        box.press("BACK")
        assert box.screen.title == "Dice"
        run_steps(box, ("menu:white Pixels 00:01",))
        assert box.screen.title == "Forget die"
        box.press("BACK")  # no: still paired
        assert len(box.app.dice.paired_rows()) == 2
        run_steps(box, ("menu:white Pixels 00:01",))
        box.press("OK")
        assert " ".join(box.app.stack.toast_lines) == "Forgot white Pixels 00:01"
        assert [label for label, _ in box.app.dice.paired_rows()] == ["red Pixels 00:02"]
        pump_until(box, lambda: box.app.sensor.online and box.app.sensor.kinds == ("red",))
        box.app.hardware.extras["dice"].throw([5])
        pump_until(box, lambda: box.app.sensor.faces != ())
        assert box.app.sensor.faces == (RED[4],)
    finally:
        box.close()


def test_the_config_files_dice_are_the_default_until_the_box_pairs_others(tmp_path):
    listed = ["godice AA:00:00:00:00:03 blue"]
    box = SimBox(tmp_path / "state", cfg=config.parse({"dice": {"smart": listed}}))
    try:
        pump_until(box, lambda: box.app.sensor.online)
        assert box.app.dice.lines == listed
        found_screen(box)
        pair_first_as(box, "Yellow")
        assert box.app.dice.lines == [*listed, f"pixels {IN_REACH[0][1]} yellow"]
    finally:
        box.close()


def test_a_settled_set_after_pairing_is_the_new_sets(tmp_path):
    """The link takes the new set without a restart: the die paired before stays connected,
    the same radio reads both, and a throw is the new set's."""
    box = SimBox(tmp_path / "state", cfg=config.parse(
        {"dice": {"smart": ["godice AA:00:00:00:00:03 blue"]}}))
    try:
        pump_until(box, lambda: box.app.sensor.online)
        old = box.app.hardware.extras["dice"]
        found_screen(box)
        pair_first_as(box, "Yellow")
        assert box.app.hardware.extras["dice"] is old
        pump_until(box, lambda: box.app.sensor.online and len(box.app.sensor.kinds) == 2)
        assert box.app.sensor.counters["reconnects"] == 0
        old.throw([6, 6])
        pump_until(box, lambda: box.app.sensor.faces != ())
        assert box.app.sensor.faces == (BLUE[5], YELLOW[5])
    finally:
        box.close()
