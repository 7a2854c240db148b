"""Buttons: press, long press, repeat and bounce, from mock pin edges and the virtual clock."""

from __future__ import annotations

import itertools
import queue

from companion.contract.input import ButtonEvent, PressDecoder, PressTiming
from hardware.buttons import GpioButtons, PinEdge
from hardware.clock import VirtualClock


def decode(edges, polls=()):
    decoder = PressDecoder(PressTiming(long_press_s=0.8, debounce_s=0.03))
    out = []
    for edge in edges:
        out += decoder.feed(edge)
    for t in polls:
        out += decoder.poll(t)
    return out, decoder


def test_short_press_of_ok_is_reported_on_release():
    events, _ = decode([PinEdge("OK", True, 0.0), PinEdge("OK", False, 0.2)])
    assert events == [ButtonEvent("OK", "short")]


def test_long_press_fires_while_held_and_release_adds_nothing():
    decoder = PressDecoder(PressTiming(long_press_s=0.8))
    assert decoder.feed(PinEdge("BACK", True, 0.0)) == []
    assert decoder.next_deadline() == 0.8
    assert decoder.poll(0.79) == []
    assert decoder.poll(0.8) == [ButtonEvent("BACK", "long")]
    assert decoder.poll(5.0) == []
    assert decoder.feed(PinEdge("BACK", False, 1.0)) == []


def test_up_reports_at_once_then_repeats_faster_when_held_longer():
    decoder = PressDecoder(PressTiming(repeat_delay_s=0.5, repeat_interval_s=0.1,
                                       fast_after_s=1.5, fast_interval_s=0.05))
    assert decoder.feed(PinEdge("UP", True, 0.0)) == [ButtonEvent("UP", "short")]
    times = []
    t = 0.0
    while t < 2.0:
        t = round(t + 0.01, 2)
        if decoder.poll(t):
            times.append(t)
    slow = [b - a for a, b in itertools.pairwise(times) if b < 1.5]
    fast = [b - a for a, b in itertools.pairwise(times) if a >= 1.5]
    assert times[0] == 0.5
    assert all(abs(gap - 0.1) < 0.011 for gap in slow)
    assert fast and all(abs(gap - 0.05) < 0.011 for gap in fast)
    assert decoder.feed(PinEdge("UP", False, 2.0)) == []


def test_a_stalled_loop_gets_one_repeat_not_a_burst():
    decoder = PressDecoder(PressTiming(repeat_delay_s=0.5, repeat_interval_s=0.1))
    decoder.feed(PinEdge("DOWN", True, 0.0))
    assert decoder.poll(3.0) == [ButtonEvent("DOWN", "repeat")]
    assert decoder.poll(3.0) == []


def test_contact_bounce_makes_one_press():
    edges = [
        PinEdge("OK", True, 0.000), PinEdge("OK", False, 0.002), PinEdge("OK", True, 0.004),
        PinEdge("OK", False, 0.150), PinEdge("OK", True, 0.155), PinEdge("OK", False, 0.160),
    ]
    events, _ = decode(edges)
    assert events == [ButtonEvent("OK", "short")]


def test_a_20_ms_tap_is_one_press_and_leaves_nothing_held():
    """The release falls inside the debounce window; once it has passed the tap completes."""
    decoder = PressDecoder(PressTiming(long_press_s=0.8, debounce_s=0.03))
    assert decoder.feed(PinEdge("BACK", True, 0.0)) == []
    assert decoder.feed(PinEdge("BACK", False, 0.02)) == []
    assert decoder.next_deadline() == 0.03
    assert decoder.poll(0.03) == [ButtonEvent("BACK", "short")]
    assert decoder.poll(5.0) == [], "no long press (an unwanted undo) after a quick tap"
    assert decoder.next_deadline() is None


def test_a_quick_tap_of_down_moves_once_and_does_not_repeat():
    decoder = PressDecoder(PressTiming(debounce_s=0.03, repeat_delay_s=0.45))
    assert decoder.feed(PinEdge("DOWN", True, 0.0)) == [ButtonEvent("DOWN", "short")]
    assert decoder.feed(PinEdge("DOWN", False, 0.015)) == []
    assert decoder.poll(0.03) == []
    assert decoder.poll(3.0) == []


def test_two_quick_presses_are_two_presses():
    edges = [PinEdge("OK", True, 0.0), PinEdge("OK", False, 0.1),
             PinEdge("OK", True, 0.2), PinEdge("OK", False, 0.3)]
    events, _ = decode(edges)
    assert events == [ButtonEvent("OK", "short")] * 2


def test_mock_pins_drive_the_decoder_through_gpiozero(mock_pins):
    """A switch to ground on a pull-up pin: drive_low is a press, drive_high a release."""
    clock = VirtualClock()
    edges: queue.Queue = queue.Queue()
    buttons = GpioButtons({"OK": 13, "ACTION": 26}, edges.put, clock.now, pin_factory=mock_pins)
    decoder = PressDecoder(PressTiming(long_press_s=0.8))
    pin = mock_pins.pin(26)
    pin.drive_low()
    pressed = edges.get_nowait()
    assert pressed == PinEdge("ACTION", True, clock.now())
    assert decoder.feed(pressed) == []
    clock.advance(1.0)
    assert decoder.poll(clock.now()) == [ButtonEvent("ACTION", "long")]
    pin.drive_high()
    released = edges.get_nowait()
    assert released == PinEdge("ACTION", False, clock.now())
    assert decoder.feed(released) == []
    assert edges.empty()
    buttons.close()


def test_the_buttons_start_no_thread_while_idle(mock_pins):
    """Long presses are decoded by the loop, so no pin keeps a hold-detection thread awake."""
    import threading

    before = threading.active_count()
    buttons = GpioButtons(dict(zip(("UP", "DOWN", "OK", "BACK", "ACTION"), (5, 6, 13, 19, 26),
                                   strict=True)), lambda _edge: None, VirtualClock().now,
                          pin_factory=mock_pins)
    assert threading.active_count() == before
    buttons.close()


def test_box_press_and_long_press_reach_the_screen(box):
    """Long OK goes home; a short OK on the home menu opens the selected item."""
    labels = [item.label for item in box.screen.items]
    box.screen.selected = labels.index("Settings")
    box.press("OK")
    assert box.screen.title == "Settings"
    box.press("OK", long=True)
    assert box.screen.title == "Table Companion"
