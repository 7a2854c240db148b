"""`companion doctor` on the simulator: each broken part is one FAIL line with its fix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gpiozero import Button

from companion import config as config_module
from companion.cli import main
from companion.doctor import (
    FAIL,
    OK,
    WARN,
    Probes,
    SimProbes,
    can_run,
    check_display,
    check_sensor,
    check_state_dir,
    diagnose,
    protocol_check,
    sensor_answers,
)


def by_check(findings):
    return {f.check: f for f in findings}


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return str(path)


def test_a_healthy_simulated_box_passes_every_check(tmp_path, capsys):
    code = main(["doctor", "--sim", "--state-dir", str(tmp_path / "state")])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split()[0] for line in lines[:-1]] == [OK] * (len(lines) - 1)
    assert lines[-1] == "The box can run."


def test_a_missing_display_fails_with_the_wiring_to_check(tmp_path):
    findings = diagnose(None, SimProbes(i2c_devices=set()), state_dir=str(tmp_path), sim=True)
    display = by_check(findings)["display"]
    assert display.level == FAIL and "no display answering at 0x3C on I2C bus 1" in display.detail
    assert "i2cdetect -y 1" in display.fix
    assert not can_run(findings)


def test_a_panel_at_the_other_address_names_the_key_to_change(tmp_path):
    cfg = config_module.parse({})
    finding = check_display(cfg, SimProbes(i2c_devices={(1, 0x3D)}))
    assert finding.level == FAIL and finding.fix == "set [display] i2c_address = 0x3D"


def test_a_disabled_i2c_bus_says_how_to_enable_it():
    finding = check_display(config_module.parse({}), SimProbes(i2c_buses=set()))
    assert finding.level == FAIL and "/dev/i2c-1" in finding.detail and "I2C" in finding.fix


def test_a_busy_pin_is_named_with_its_config_key(tmp_path, mock_pins):
    held = Button(13, pin_factory=mock_pins)  # another program on the OK button's pin
    findings = diagnose(None, SimProbes(pin_factory=mock_pins), state_dir=str(tmp_path), sim=True)
    pins = by_check(findings)["pins"]
    assert pins.level == FAIL and "BCM 13 (buttons.ok)" in pins.detail and "gpioinfo" in pins.fix
    assert "BCM 5" not in pins.detail, "free pins are not reported"
    held.close()
    again = diagnose(None, SimProbes(pin_factory=mock_pins), state_dir=str(tmp_path), sim=True)
    assert by_check(again)["pins"].level == OK, "the doctor released the pins it tried"


def test_pins_held_by_the_running_service_are_not_claimed(tmp_path, mock_pins):
    held = Button(13, pin_factory=mock_pins)
    probes = SimProbes(pin_factory=mock_pins, service="active")
    findings = by_check(diagnose(None, probes, state_dir=str(tmp_path), sim=True))
    assert findings["pins"].level == OK and "running" in findings["pins"].detail
    assert findings["service"].level == OK
    held.close()


def test_an_unwritable_state_dir_fails(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the state directory should be")
    findings = diagnose(None, SimProbes(), state_dir=str(blocker / "state"), sim=True)
    state = by_check(findings)["state"]
    assert state.level == FAIL and "not writable" in state.detail and "--state-dir" in state.fix
    assert not can_run(findings)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through any file mode")
def test_a_read_only_state_dir_fails(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o500)
    assert check_state_dir(state).level == FAIL


def test_a_state_dir_not_yet_created_is_fine_and_left_alone(tmp_path):
    finding = check_state_dir(tmp_path / "later")
    assert finding.level == OK and "will be created" in finding.detail
    assert not (tmp_path / "later").exists()


def test_an_invalid_config_fails_with_file_key_and_fix(tmp_path, capsys):
    path = write_config(tmp_path, "[buzzer]\nvolume = 9\n")
    code = main(["doctor", "--sim", "--config", path, "--state-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"FAIL  config   {path}: buzzer.volume: 9 must be between 0 and 3" in out
    assert "display" not in out, "hardware checks need a valid config"


def test_a_failed_service_warns_but_the_box_can_still_run(tmp_path):
    findings = diagnose(None, SimProbes(service="failed"), state_dir=str(tmp_path), sim=True)
    service = by_check(findings)["service"]
    assert service.level == WARN and "journalctl -u companion" in service.fix
    assert can_run(findings)


def test_a_sensor_port_that_does_not_open_fails(tmp_path):
    cfg = config_module.parse({"sensor": {"port": str(tmp_path / "ttyACM9")}})
    finding = check_sensor(cfg, SimProbes(), service_running=False)
    assert finding.level == FAIL and "cannot open" in finding.detail


def test_a_sensor_that_opens_is_then_asked_to_speak():
    cfg = config_module.parse({"sensor": {"port": "loop://"}})
    silent = check_sensor(cfg, SimProbes(), False, speaks=lambda link: (False, "sent nothing"))
    assert silent.level == FAIL and "sent nothing" in silent.detail
    talking = check_sensor(cfg, SimProbes(), False, speaks=lambda link: (True, "sensor X"))
    assert talking.level == OK and talking.detail == "loop://: sensor X"
    unchecked = check_sensor(cfg, SimProbes(), False, speaks=None)
    assert unchecked.level == WARN and "not checked" in unchecked.detail


def test_the_virtual_sensor_on_a_pty_answers_hello():
    """The real pyserial path: a pseudo-terminal with the virtual sensor behind it."""
    virtual = pytest.importorskip("firmware_bridge.virtual")
    sensor = virtual.VirtualSensor(("white", "red"), sensor_id="VIRTUAL-0042")
    try:
        cfg = config_module.parse({"sensor": {"port": sensor.plug()}})
        finding = check_sensor(cfg, Probes(), False, speaks=protocol_check())
    finally:
        sensor.close()
    assert finding.level == OK and "sensor VIRTUAL-0042" in finding.detail and "2 dice" in finding.detail


def test_a_port_that_echoes_is_not_taken_for_a_sensor():
    """loop:// sends our own HELLO? back: framed, but not a HELLO."""
    pytest.importorskip("firmware_bridge.parser")
    cfg = config_module.parse({"sensor": {"port": "loop://"}})
    finding = check_sensor(cfg, SimProbes(), False, speaks=lambda link: sensor_answers(link, 0.3))
    assert finding.level == FAIL and "no HELLO" in finding.detail


def test_real_probes_read_the_device_files(tmp_path):
    (tmp_path / "spidev0.0").touch()
    (tmp_path / "gpiochip0").touch()
    probes = Probes(dev=tmp_path)
    assert probes.gpio_chips() == [tmp_path / "gpiochip0"]
    spi = config_module.parse({"display": {"interface": "spi"}})
    assert check_display(spi, probes).level == OK
    assert check_display(config_module.parse({}), probes).level == FAIL  # no i2c-1 here


def test_a_machine_without_a_gpio_library_says_which_package(tmp_path):
    class NoBackend(SimProbes):
        def pin_factory(self):
            raise ImportError("no module named lgpio")

    pins = by_check(diagnose(None, NoBackend(), state_dir=str(tmp_path), sim=True))["pins"]
    assert pins.level == FAIL and "python3-lgpio" in pins.fix
