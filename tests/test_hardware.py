"""The real adapters on gpiozero's mock pins and luma's dummy device."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from luma.core.device import dummy
from PIL import Image

from companion.games import box_config as config
from hardware.buzzer import gpio_buzzer
from hardware.device import HardwareError, open_oled
from hardware.display import OledDisplay


def wait_for(predicate, seconds=2.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_tonal_buzzer_plays_a_pattern_on_the_pwm_pin_then_falls_silent():
    factory = MockFactory(pin_class=MockPWMPin)
    player = gpio_buzzer(18, "tonal", volume=3, pin_factory=factory)
    pin = factory.pin(18)
    player.play("warn")
    assert wait_for(lambda: pin.frequency is not None and round(pin.frequency) == 880)
    assert wait_for(lambda: pin.state == 0 and len(pin.states) >= 4)
    player.close()


def test_muted_buzzer_stays_silent():
    factory = MockFactory(pin_class=MockPWMPin)
    player = gpio_buzzer(18, "active", volume=0, pin_factory=factory)
    player.play("alarm")
    time.sleep(0.1)
    assert all(state.state == 0 for state in factory.pin(18).states)
    player.close()


def test_display_writes_only_changed_frames():
    display = OledDisplay(dummy(width=128, height=64, mode="1"))
    frame = Image.new("1", (128, 64), 0)
    assert display.show(frame) is True
    assert display.show(frame.copy()) is False
    frame.putpixel((3, 3), 255)
    assert display.show(frame) is True
    assert display.frames_written == 2


def test_a_missing_oled_names_the_bus_and_what_to_check():
    cfg = config.parse({"display": {"i2c_bus": 19}})
    with pytest.raises(HardwareError, match=r"I2C bus 19 address 0x3C.*doctor"):
        open_oled(cfg.display)


def test_the_box_writes_its_panel_page_by_page(monkeypatch):
    """On the box the page-diff writer sends frames through luma.oled's own driver class."""
    from luma.oled.device import sh1106

    import hardware.device
    from hardware.display import PageDiffDisplay
    from hardware.model_panel import ModelPanel

    model = ModelPanel("sh1106")
    monkeypatch.setattr(hardware.device, "open_oled", lambda display: sh1106(model))
    cfg = config.parse({"display": {"driver": "sh1106"}, "buzzer": {"kind": "none"}})
    box = hardware.device.build(cfg, lambda edge: None)
    try:
        assert isinstance(box.display, PageDiffDisplay)
        frame = Image.new("1", (128, 64), 0)
        frame.putpixel((127, 63), 255)
        box.display.show(frame)
        assert model.image().tobytes() == frame.tobytes()
    finally:
        box.close()


def test_the_simulator_can_measure_its_frames_on_a_model_panel(tmp_path):
    from companion.simulator.simbox import SimBox

    box = SimBox(tmp_path)
    try:
        model = box.app.hardware.display.measure("ssd1306", box.clock.now)
        assert model.image().tobytes() == box.frame().tobytes()
        model.take()
        box.press("DOWN")
        assert model.image().tobytes() == box.frame().tobytes()
        assert 0 < model.take().wire_bytes < 1024
    finally:
        box.close()
