"""`companion doctor` on the simulator: each broken part is one FAIL line with its fix."""

from __future__ import annotations

import ast
import os
import queue
import shutil
import tempfile
from pathlib import Path

import pytest
from gpiozero import Button

from companion.cli import main
from companion.commands.doctor import open_parts
from companion.doctor.by_hand import check_buttons, check_buzzer
from companion.doctor.checks import (
    FAIL,
    OK,
    WARN,
    Probes,
    can_run,
    check_display,
    check_sensor,
    check_ssh,
    check_state_dir,
    diagnose,
)
from companion.games import box_config as config_module
from companion.games.makan_mania import data as makan_data
from companion.games.makan_mania.doctor import check as check_makan_data
from companion.games.miams.doctor import check_files as check_miams_files
from companion.games.miams.sheet import DEFAULT_SHEET
from firmware_bridge.probe import SensorReport, probe_sensor
from hardware.buzzer import PATTERNS
from hardware.probe import BoardProbe, SimBoardProbe

ROOT = Path(__file__).resolve().parents[1]
HARDWARE_LIBRARIES = {"smbus2", "gpiozero", "serial", "luma", "lgpio", "RPi"}


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
    findings = diagnose(None, Probes.sim(i2c_devices=set()), state_dir=str(tmp_path), sim=True)
    display = by_check(findings)["display"]
    assert display.level == FAIL and "no display answering at 0x3C on I2C bus 1" in display.detail
    assert "i2cdetect -y 1" in display.fix
    assert not can_run(findings)


def test_a_panel_at_the_other_address_names_the_key_to_change(tmp_path):
    cfg = config_module.parse({})
    finding = check_display(cfg, SimBoardProbe(i2c_devices={(1, 0x3D)}))
    assert finding.level == FAIL and finding.fix == "set [display] i2c_address = 0x3D"


def test_a_disabled_i2c_bus_says_how_to_enable_it():
    finding = check_display(config_module.parse({}), SimBoardProbe(i2c_buses=set()))
    assert finding.level == FAIL and "/dev/i2c-1" in finding.detail and "I2C" in finding.fix


def test_a_busy_pin_is_named_with_its_config_key(tmp_path, mock_pins):
    held = Button(13, pin_factory=mock_pins)  # another program on the OK button's pin
    findings = diagnose(None, Probes.sim(pin_factory=mock_pins), state_dir=str(tmp_path), sim=True)
    pins = by_check(findings)["pins"]
    assert pins.level == FAIL and "BCM 13 (buttons.ok)" in pins.detail and "gpioinfo" in pins.fix
    assert "BCM 5" not in pins.detail, "free pins are not reported"
    held.close()
    again = diagnose(None, Probes.sim(pin_factory=mock_pins), state_dir=str(tmp_path), sim=True)
    assert by_check(again)["pins"].level == OK, "the doctor released the pins it tried"


def test_pins_held_by_the_running_service_are_not_claimed(tmp_path, mock_pins):
    held = Button(13, pin_factory=mock_pins)
    probes = Probes.sim(service="active", pin_factory=mock_pins)
    findings = by_check(diagnose(None, probes, state_dir=str(tmp_path), sim=True))
    assert findings["pins"].level == OK and "running" in findings["pins"].detail
    assert findings["service"].level == OK
    held.close()


def test_an_unwritable_state_dir_fails(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the state directory should be")
    findings = diagnose(None, Probes.sim(), state_dir=str(blocker / "state"), sim=True)
    state = by_check(findings)["state"]
    assert state.level == FAIL and "not writable" in state.detail and "--state-dir" in state.fix
    assert not can_run(findings)


def test_a_read_only_state_dir_fails(tmp_path):
    if os.geteuid() != 0:
        state = tmp_path / "state"
        state.mkdir(mode=0o500)
        assert check_state_dir(state).level == FAIL
        return
    # Root writes through any file mode: a child that became nobody checks, as a user who is
    # not the directory's owner would.
    folder = Path(tempfile.mkdtemp())
    try:
        folder.chmod(0o755)
        (folder / "state").mkdir(mode=0o500)
        reading, writing = os.pipe()
        child = os.fork()
        if child == 0:  # never back into pytest: whatever happens, the child ends here
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                os.write(writing, check_state_dir(folder / "state").level.encode())
            finally:
                os._exit(0)
        os.close(writing)
        with os.fdopen(reading) as said:
            level = said.read()
        os.waitpid(child, 0)
        assert level == FAIL
    finally:
        shutil.rmtree(folder)


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


def test_every_problem_of_a_config_file_is_reported_in_one_run(tmp_path, capsys):
    """Issue 39: a config file with two problems showed only the first; each now has its own
    FAIL line with its fix, and a wrong value does not hide a pin clash or an order mistake."""
    path = write_config(tmp_path, "[buzzer]\nvolume = 9\n[buttons]\nup = 4\ndown = 4\n"
                                  "[display]\ndim_after_min = 20\nblank_after_min = 10\n"
                                  "[games.miams]\ndifficulty = \"hungry\"\ncolour = 1\n")
    code = main(["doctor", "--sim", "--config", path, "--state-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    fails = [line for line in out.splitlines() if line.startswith("FAIL  config")]
    assert [line.split(": ")[1] for line in fails] == [
        "buzzer.volume", "games.miams.colour", "games.miams.difficulty", "buttons.down",
        "display.blank_after_min"]
    assert all(". Fix: " in line for line in fails)
    with pytest.raises(config_module.ConfigErrors) as caught:
        config_module.load(path)
    assert len(caught.value.problems) == 5
    assert str(caught.value).count(path) == 5


def test_a_failed_service_warns_but_the_box_can_still_run(tmp_path):
    findings = diagnose(None, Probes.sim(service="failed"), state_dir=str(tmp_path), sim=True)
    service = by_check(findings)["service"]
    assert service.level == WARN and "journalctl -u companion" in service.fix
    assert can_run(findings)


def test_a_sensor_port_that_does_not_open_warns_and_the_box_still_runs(tmp_path, capsys):
    """The sensor is optional and picked up when plugged in: an unplugged one is no reason to stop."""
    path = write_config(tmp_path, f'[sensor]\nport = "{tmp_path / "ttyACM9"}"\n')
    code = main(["doctor", "--sim", "--config", path, "--state-dir", str(tmp_path / "state")])
    out = capsys.readouterr().out
    assert code == 0, out
    sensor = next(line for line in out.splitlines() if " sensor " in line)
    assert sensor.startswith(WARN) and "cannot open" in sensor and "finds it when plugged in" in sensor
    assert out.splitlines()[-1] == "The box can run; the warn lines above are worth fixing."


def test_without_a_sensor_the_line_names_both_ways_to_get_dice():
    """Café box rolls are neither sensor nor hand: the line must not say "entered by hand"."""
    finding = check_sensor(config_module.parse({}), probe_sensor, service_running=False)
    assert finding.level == OK and "the box rolls" in finding.detail and "typed in" in finding.detail


def test_a_port_that_opens_but_does_not_answer_warns_with_what_to_check():
    cfg = config_module.parse({"sensor": {"port": "loop://", "baud": 9600}})
    silent = check_sensor(cfg, lambda port, baud: SensorReport(True, False, "sent nothing in 3 s"), False)
    assert silent.level == WARN and "sent nothing" in silent.detail and "baud = 9600" in silent.fix
    talking = check_sensor(cfg, lambda port, baud: SensorReport(True, True, "sensor X"), False)
    assert talking.level == OK and talking.detail == "loop://: sensor X"


def test_the_virtual_sensor_on_a_pty_answers_hello():
    """The real pyserial path: a pseudo-terminal with the virtual sensor behind it."""
    from firmware_bridge.virtual import VirtualSensor

    sensor = VirtualSensor(("white", "red"), sensor_id="VIRTUAL-0042")
    try:
        cfg = config_module.parse({"sensor": {"port": sensor.plug()}})
        finding = check_sensor(cfg, Probes.device().sensor, False)
    finally:
        sensor.close()
    assert finding.level == OK and "sensor VIRTUAL-0042" in finding.detail and "2 dice" in finding.detail


def test_a_port_that_echoes_is_not_taken_for_a_sensor():
    """loop:// sends our own HELLO? back: framed, but not a HELLO."""
    report = probe_sensor("loop://", 115200, wait_s=0.3)
    assert report.opened and not report.answered and "no HELLO" in report.detail


def test_a_port_that_cannot_open_is_reported_not_raised(tmp_path):
    report = probe_sensor(str(tmp_path / "ttyUSB3"), 115200)
    assert not report.opened and "ttyUSB3" in report.detail


def test_real_probes_read_the_device_files(tmp_path):
    (tmp_path / "spidev0.0").touch()
    (tmp_path / "gpiochip0").touch()
    board = BoardProbe(dev=tmp_path)
    assert board.gpio_chips() == [tmp_path / "gpiochip0"]
    spi = config_module.parse({"display": {"interface": "spi"}})
    assert check_display(spi, board).level == OK
    assert check_display(config_module.parse({}), board).level == FAIL  # no i2c-1 here


def test_a_machine_without_a_gpio_library_says_which_package(tmp_path):
    def no_backend():
        raise ImportError("no module named lgpio")

    probes = Probes(BoardProbe(dev=tmp_path, pin_factory=no_backend), probe_sensor, lambda: None)
    (tmp_path / "gpiochip0").touch()
    pins = by_check(diagnose(None, probes, state_dir=str(tmp_path), sim=True))["pins"]
    assert pins.level == FAIL and "lgpio" in pins.detail and "python3-lgpio" in pins.fix


@pytest.mark.parametrize("module", ["companion/doctor/checks.py", "companion/commands/doctor.py"])
def test_the_doctor_imports_no_hardware_library(module):
    """The doctor imports no hardware library: the probes live in hardware/ and
    firmware_bridge/. Imports inside functions count too."""
    tree = ast.parse((ROOT / module).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert not {name.split(".")[0] for name in imported} & HARDWARE_LIBRARIES


# ----- the games' data files ----------------------------------------------------------------


def broken_copy(source: Path, target: Path, old: str, new: str) -> Path:
    text = source.read_text()
    assert old in text
    target.write_text(text.replace(old, new, 1))
    return target


def test_a_bad_configured_miams_sheet_fails_naming_file_key_and_fix(tmp_path, capsys):
    sheet = broken_copy(DEFAULT_SHEET, tmp_path / "bad_end.toml", "end = 1", "end = 0")
    path = write_config(tmp_path, f'[games.miams]\nsheet = "{sheet}"\n')
    code = main(["doctor", "--sim", "--config", path, "--state-dir", str(tmp_path / "state")])
    out = capsys.readouterr().out
    assert code == 1
    line = next(line for line in out.splitlines() if " miams " in line)
    assert line.startswith(FAIL) and f"{sheet}: rows.pair.end: 0 is not a whole number from 1 to 50" in line
    assert '[games.miams] sheet = ""' in line, "the fix offers the stand-in"


def test_a_missing_configured_tile_fails():
    cfg = config_module.parse({"games": {"miams": {"tile": "/nowhere/tile.toml"}}})
    (finding,) = check_miams_files(cfg)
    assert finding.level == FAIL and "/nowhere/tile.toml" in finding.detail
    assert "[games.miams] tile" in finding.fix


def test_a_bad_file_in_the_sheets_folder_only_warns(tmp_path):
    """It is one choice on the setup screen; the configured sheet still plays."""
    folder = tmp_path / "miams"
    folder.mkdir()
    broken_copy(DEFAULT_SHEET, folder / "mine.toml", 'name = "Stand-in sheet"', 'name = "Mine"')
    broken_copy(DEFAULT_SHEET, folder / "typo.toml", "[rows.pair]", "[rows.pairs]")
    cfg = config_module.parse({"games": {"miams": {"sheets_dir": str(folder)}}})
    findings = check_miams_files(cfg)
    assert [f.level for f in findings] == [WARN] and "typo.toml" in findings[0].detail
    assert can_run(findings)
    folder.joinpath("typo.toml").unlink()
    (fine,) = check_miams_files(cfg)
    assert fine.level == OK and f"1 more in {folder}" in fine.detail


def test_the_stand_in_sheet_and_tile_are_checked_when_none_is_configured():
    (finding,) = check_miams_files(config_module.parse({}))
    assert finding.level == OK
    assert "'Stand-in sheet'" in finding.detail and "'Stand-in tile'" in finding.detail


def test_a_bad_makan_data_file_fails_with_its_problem(tmp_path, monkeypatch):
    bad = broken_copy(makan_data.HERE / "trays.toml", tmp_path / "trays.toml",
                      'ability = "jump_88"', 'ability = "jump_99"')
    load = makan_data.load_trays
    monkeypatch.setattr(makan_data, "load_trays", lambda path=bad: load(path))
    finding = check_makan_data(config_module.parse({}))
    assert finding.level == FAIL and str(bad) in finding.detail and "jump_99" in finding.detail
    assert "Makan Mania cannot start" in finding.detail and finding.fix


def test_good_makan_data_files_are_counted():
    finding = check_makan_data(config_module.parse({}))
    assert finding.level == OK and "trays" in finding.detail and "drinks" in finding.detail


def test_the_shipped_makan_data_is_named_as_stand_ins_yet_ok():
    """As the setup screen's "⚠ Stand-in values": the game runs, the table checks its cards."""
    finding = check_makan_data(config_module.parse({}))
    assert finding.level == OK
    assert "stand-ins to check against your cards" in finding.detail
    assert "red blue green yellow white trays" in finding.detail and "deck copies" in finding.detail


def test_makan_data_checked_against_the_cards_is_not_called_a_stand_in(tmp_path):
    trays = tmp_path / "trays.toml"
    trays.write_text((makan_data.HERE / "trays.toml").read_text().replace(
        "printed = false", "printed = true"))
    drinks = broken_copy(makan_data.HERE / "drinks.toml", tmp_path / "drinks.toml",
                         "copies_printed = false", "copies_printed = true")
    cfg = config_module.parse({"games": {"makan": {"trays": str(trays), "drinks": str(drinks)}}})
    finding = check_makan_data(cfg)
    assert finding.level == OK and finding.detail == "6 trays and 10 drinks valid"


# ----- doctor --buttons: the simulated box's MockFactory pins, pressed when asked -----------


@pytest.fixture
def sim_parts():
    """The simulated buttons and buzzer, their edges queued as the real ones would be."""
    edges = queue.Queue()
    cfg = config_module.parse({})
    buttons, buzzer, finger = open_parts(cfg, True, edges.put)
    yield cfg, edges, buzzer, finger
    buttons.close()


def pressing(finger, answers=None):
    """A person who, asked for a button, presses it (or the one ``answers`` maps it to)."""
    asked = []

    def say(text):
        name = text.split()[1]
        asked.append(name)
        button = (answers or {}).get(name, name)
        if button:
            finger.down(button)
            finger.up(button)

    return say, asked


def test_each_button_pressed_when_asked_is_seen(sim_parts):
    cfg, edges, _, finger = sim_parts
    say, asked = pressing(finger)
    findings = list(check_buttons(cfg, edges, say, timeout_s=0))
    assert asked == ["UP", "DOWN", "OK", "BACK", "ACTION"]
    assert findings[0].line() == "ok    button   UP seen on BCM 5"
    assert [f.level for f in findings] == [OK] * 5


def test_a_button_not_seen_names_its_pin_key_and_wiring(sim_parts):
    cfg, edges, _, finger = sim_parts
    say, _ = pressing(finger, {"OK": None})  # the OK switch is not wired
    findings = list(check_buttons(cfg, edges, say, timeout_s=0))
    ok = findings[2]
    assert ok.level == FAIL and ok.detail == "OK not seen on BCM 13 within 0 s"
    assert "BCM 13" in ok.fix and "GND" in ok.fix and "[buttons] ok = 13" in ok.fix
    assert [f.level for i, f in enumerate(findings) if i != 2] == [OK] * 4


def test_swapped_buttons_are_named_with_the_keys_to_swap(sim_parts):
    cfg, edges, _, finger = sim_parts
    say, _ = pressing(finger, {"UP": "DOWN", "DOWN": "UP"})  # wired to each other's pin
    up, down, *rest = check_buttons(cfg, edges, say, timeout_s=0)
    assert up.level == FAIL and "DOWN (BCM 6) closed instead" in up.detail
    assert "[buttons] up and [buttons] down" in up.fix
    assert down.level == FAIL and "UP (BCM 5) closed instead" in down.detail
    assert [f.level for f in rest] == [OK] * 3


def test_the_buzzer_plays_each_pattern_one_line_each(sim_parts):
    cfg, _, buzzer, _ = sim_parts
    waited = []
    findings = check_buzzer(cfg, buzzer.play, waited.append)
    assert [pattern for _, pattern in buzzer.played] == list(PATTERNS)
    assert [f.detail.split()[1] for f in findings] == list(PATTERNS)
    assert all(f.level == OK for f in findings) and len(waited) == len(PATTERNS)
    assert waited[3] > sum(seconds for _, seconds in PATTERNS["alarm"])  # waits out each one


def test_no_buzzer_or_a_silent_one_is_said_instead_of_played():
    played = []
    none = check_buzzer(config_module.parse({"buzzer": {"kind": "none"}}), played.append, print)
    muted = check_buzzer(config_module.parse({"buzzer": {"volume": 0}}), played.append, print)
    assert played == [] and none[0].level == OK and "none" in none[0].detail
    assert muted[0].level == WARN and "volume" in muted[0].fix


def test_doctor_buttons_on_the_simulator_with_nobody_pressing(capsys):
    code = main(["doctor", "--buttons", "--sim", "--timeout", "0"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0] == "Press UP (BCM 5)..."
    assert lines[1].startswith("FAIL  button   UP not seen on BCM 5") and "Fix:" in lines[1]
    assert sum(line.startswith("ok    buzzer   played") for line in lines) == len(PATTERNS)
    assert lines[-1] == "Fix the buttons above, then run this again."


def test_doctor_says_whether_ssh_is_on(tmp_path):
    """Issue 37: "Doctor says whether SSH is on": off on the image until a key is given, then
    on for the keys given, keys only (the image's sshd drop-in)."""
    assert check_ssh(tmp_path).detail == "no SSH server here"
    (tmp_path / "usr/sbin").mkdir(parents=True)
    (tmp_path / "usr/sbin/sshd").touch()
    off = check_ssh(tmp_path)
    assert off.level == OK and off.detail.startswith("SSH off") and "ssh_key" in off.detail
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True)
    (wants / "ssh.service").symlink_to("/lib/systemd/system/ssh.service")
    (tmp_path / "root/.ssh").mkdir(parents=True)
    (tmp_path / "root/.ssh/authorized_keys").write_text("ssh-ed25519 AAAA one\nssh-ed25519 AAAA two\n")
    (tmp_path / "etc/ssh/sshd_config.d").mkdir(parents=True)
    (tmp_path / "etc/ssh/sshd_config.d/companion.conf").write_text("PasswordAuthentication no\n")
    assert check_ssh(tmp_path).detail == "SSH on, 2 keys may log in as root, keys only (no password)"
