"""The screen walk: every named screen is reached without an exception and matches its
golden PNG (PiFinder's pattern: the whole app runs headless on fake hardware)."""

from __future__ import annotations

import random

import pytest

from companion.commands.screenshot import render
from companion.walk import named_screens
from tests.conftest import assert_golden

SCREENS = named_screens()


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_named_screen_matches_golden(name):
    box = render(name, SCREENS[name])
    try:
        assert box.app.running
        assert box.app.errors == 0
        assert_golden(box.frame(), name)
    finally:
        box.close()


def test_monkey_presses_never_break_the_box(box):
    """Thousands of random presses (short, long, held) across every screen: no exception,
    and the box always has a screen to show."""
    rng = random.Random(1234)
    buttons = ["UP", "DOWN", "OK", "BACK", "ACTION"]
    for _ in range(1500):
        button = rng.choice(buttons)
        roll = rng.random()
        if roll < 0.1:
            box.press(button, long=True)
        elif roll < 0.15:
            box.hold(button, rng.uniform(0.1, 2.5))
        else:
            box.press(button)
        if rng.random() < 0.02:
            box.jump(rng.uniform(1, 200))
    assert box.app.errors == 0, "a press raised inside the box (see the log)"
    assert box.app.stack, "the box lost its screen stack"
    assert box.frame().size == (128, 64)
