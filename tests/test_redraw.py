"""The loop draws a frame only when something may have changed it."""

from __future__ import annotations

import companion.box.panel
from companion.simulator.walk import named_screens, run_steps


def count_composes(monkeypatch) -> list[int]:
    calls = [0]
    compose = companion.box.panel.compose

    def counted(*args, **kwargs):
        calls[0] += 1
        return compose(*args, **kwargs)

    monkeypatch.setattr(companion.box.panel, "compose", counted)
    return calls


def test_a_wake_with_nothing_to_do_draws_nothing(box, monkeypatch):
    calls = count_composes(monkeypatch)
    box.advance(10.0)  # 200 pumps of the loop, nothing due
    assert calls[0] == 0
    box.press("DOWN")
    assert calls[0] >= 1
    assert box.app.stack.screens[-1].selected == 1


def test_the_cafe_clock_is_redrawn_each_second_and_only_then(box, monkeypatch):
    run_steps(box, named_screens()["cafe-timer"])
    written = box.app.hardware.display.frames_written
    calls = count_composes(monkeypatch)
    box.advance(5.0)
    assert box.app.hardware.display.frames_written - written == 5  # one frame a second
    assert calls[0] == 5


def test_a_press_that_changes_the_screen_draws_one_frame(box, monkeypatch):
    """The down edge of a button that acts on release changes nothing: only its release draws."""
    first = box.screen
    calls = count_composes(monkeypatch)
    box.press("OK")  # the home menu opens its first entry on release
    assert box.screen is not first
    assert calls[0] == 1
