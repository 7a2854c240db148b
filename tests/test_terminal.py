"""The terminal simulator: half-block and braille drawing, keys → buttons as they arrive."""

from __future__ import annotations

import io
import threading

import pytest
from PIL import Image

from companion.simulator.simbox import SimBox
from companion.simulator.terminal import (
    REPEAT_HOLD_S,
    KeyboardReader,
    KeyPresser,
    TerminalPanel,
    app_keyboard,
    decode_keys,
    frame_to_braille,
    frame_to_text,
    rendering_for,
)
from firmware_bridge.faces import BLUE, YELLOW

STEP_S = 0.01  # virtual time per loop iteration while a burst settles


def test_each_character_holds_two_pixel_rows():
    image = Image.new("1", (128, 64), 0)
    image.putpixel((0, 0), 255)        # top half of cell (0, 0)
    image.putpixel((1, 1), 255)        # bottom half of cell (1, 0)
    image.putpixel((2, 0), 255)
    image.putpixel((2, 1), 255)        # both halves
    lines = frame_to_text(image)
    assert len(lines) == 32 and all(len(line) == 128 for line in lines)
    assert lines[0][:4] == "▀▄█ "


def test_each_braille_cell_holds_two_by_four_pixels():
    image = Image.new("1", (128, 64), 0)
    image.putpixel((0, 0), 255)        # cell 0: dot 1
    image.putpixel((1, 3), 255)        # cell 0: dot 8
    for y in range(4):
        image.putpixel((2, y), 255)    # cell 1: the left column, dots 1 2 3 7
    for x in (4, 5):
        for y in range(4):
            image.putpixel((x, y), 255)  # cell 2: all eight dots
    image.putpixel((127, 63), 255)     # the last cell: dot 8
    lines = frame_to_braille(image)
    assert len(lines) == 16 and all(len(line) == 64 for line in lines)
    assert [ord(c) for c in lines[0][:4]] == [0x2881, 0x2847, 0x28FF, 0x2800]
    assert lines[15][63] == "\u2880" and lines[15][:63] == "\u2800" * 63


def test_the_full_rendering_when_there_is_room_else_braille():
    assert rendering_for(130, 37) == "full"
    assert rendering_for(80, 24) == "compact"
    assert rendering_for(129, 50) == "compact"
    assert rendering_for(60, 24) is None


def test_keys_map_to_buttons_and_capitals_hold():
    assert decode_keys("\x1b[A\x1b[Bo \x7fO") == [
        ("UP", False), ("DOWN", False), ("OK", False), ("ACTION", False), ("BACK", False),
        ("OK", True),
    ]
    assert decode_keys("Bxq") == [("BACK", True), ("QUIT", False)]
    assert decode_keys("r") == [("ROLL", False)]  # the paired virtual dice, not a button


def test_panel_paints_frame_help_and_status_at_full_size():
    out = io.StringIO()
    panel = TerminalPanel(out, size=lambda: (130, 37))
    panel.paint(Image.new("1", (128, 64), 0))
    panel.set_status("♪ warn")
    text = out.getvalue()
    assert text.count("│") == 2 * 32 * 2
    assert "hold (long)" in text and "♪ warn" in text


def test_an_80_by_24_terminal_gets_the_braille_panel_within_its_size():
    out = io.StringIO()
    panel = TerminalPanel(out, size=lambda: (80, 24))
    image = Image.new("1", (128, 64), 0)
    image.putpixel((0, 0), 255)
    panel.paint(image)
    lines = out.getvalue().split("\r\n")
    assert "\u2801" in lines[1]
    drawn = [line.replace("\x1b[K", "").replace("\x1b[H", "").replace("\x1b[2J", "")
             for line in lines if line]
    assert len(drawn) <= 24 and max(len(line) for line in drawn) <= 80
    assert drawn[0] == "┌" + "─" * 64 + "┐" and any("q quit" in line for line in drawn)


@pytest.fixture
def box(tmp_path):
    box = SimBox(tmp_path)
    yield box
    box.close()


def keyboard(box: SimBox) -> tuple[KeyboardReader, KeyPresser]:
    presser = KeyPresser(box.app)
    return app_keyboard(box.app, presser, fd=-1), presser


def settle(box: SimBox, presser: KeyPresser, limit: int = 200) -> int:
    """Loop iterations, STEP_S of virtual time each, until no key holds a button."""
    box.app.pump()
    for iterations in range(limit):
        if presser.idle and box.app.events.empty():
            return iterations
        box.advance(STEP_S, step=STEP_S)
    raise AssertionError(f"still pressing after {limit} iterations")


def test_a_burst_of_30_downs_settles_in_a_few_iterations(box):
    """Terminal auto-repeat: 30 DOWNs arriving together are one held press, not 30 queued."""
    reader, presser = keyboard(box)
    home = box.screen
    assert reader.feed("s" * 30)
    iterations = settle(box, presser)
    assert iterations * STEP_S <= REPEAT_HOLD_S + 0.05
    assert home.selected == 1 and box.screen is home


def test_a_held_key_repeating_keeps_its_button_down(box):
    reader, presser = keyboard(box)
    pin = box.finger.pin("DOWN")
    reader.feed("s")
    box.app.pump()
    for _ in range(10):  # 0.5 s of auto-repeat every 50 ms
        box.advance(0.05)
        reader.feed("s")
        box.app.pump()
        assert pin.state == 0  # pulled low: still pressed
    settle(box, presser)
    assert pin.state == 1
    # The box's own auto-repeat took over while the button was held (5 items wrap round).
    assert box.screen.selected >= 2


def test_a_capital_holds_on_the_clock_and_lets_go(box):
    reader, presser = keyboard(box)
    pin = box.finger.pin("ACTION")
    reader.feed("A")
    box.app.pump()
    box.advance(box.app.settings.values["long_press_s"])
    assert pin.state == 0 and not presser.idle
    settle(box, presser)
    assert pin.state == 1


def test_keys_for_different_buttons_keep_their_order(box):
    reader, presser = keyboard(box)
    home = box.screen
    reader.feed("o")  # OK, whose press counts when it is let go
    box.app.pump()
    box.advance(0.04)
    reader.feed("s")  # then DOWN, typed quickly: OK must not come after it
    settle(box, presser)
    assert home.selected == 0 and box.screen is not home  # the first game's setup opened


def test_q_after_a_burst_stops_at_once(box):
    reader, presser = keyboard(box)
    assert not reader.feed("s" * 30 + "q")
    assert not box.app.running
    assert presser.idle and box.screen.selected == 0  # not one of the 30 was pressed


def test_q_stops_a_running_loop_with_keys_queued(box):
    reader, _ = keyboard(box)
    loop = threading.Thread(target=box.app.run)
    loop.start()
    reader.feed("sSsS" * 50 + "q")
    loop.join(timeout=10)
    assert not loop.is_alive()


def test_r_rolls_the_paired_virtual_dice_through_the_smart_dice_link(tmp_path):
    """The simulator's `r`: the virtual dice send a die's own notification bytes to the link
    the Bluetooth dice use; the box reads a settled set of the paired kinds."""
    from companion.games import box_config as config
    from tests.test_sensor_app import pump_until

    dice = ["pixels AA:00:00:00:00:01 yellow", "godice AA:00:00:00:00:02 blue"]
    box = SimBox(tmp_path, cfg=config.parse({"dice": {"smart": dice}}))
    try:
        reader, _ = keyboard(box)
        pump_until(box, lambda: box.app.sensor.online)
        assert reader.feed("r")
        pump_until(box, lambda: len(box.app.sensor.faces) == 2)
        yellow, blue = box.app.sensor.faces
        assert yellow in YELLOW and blue in BLUE
    finally:
        box.close()
