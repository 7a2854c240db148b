"""The first frame written by a bare interpreter from the boot's first seconds (issue 40: "draw a
first frame (the logo and "Starting…") as early as the hardware allows, from a tiny early
unit"), checked against luma.oled's own drivers on a model panel."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from luma.oled.device import sh1106, ssd1306

from companion.box import first_frame, splash
from companion.contract.config import SCHEMA
from hardware.display import PageDiffDisplay
from hardware.model_panel import ModelPanel

DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}


class Commands:
    """A luma serial interface that keeps each command transaction."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def command(self, *cmd: int) -> None:
        self.sent.append(bytes(cmd))

    def data(self, data) -> None:
        pass

    def cleanup(self) -> None:
        pass


def written(writes: list[bytes], panel: ModelPanel) -> None:
    """The I²C writes onto a model panel, as the chip takes them by their control byte."""
    for write in writes:
        control, payload = write[0], write[1:]
        assert control in (first_frame.COMMAND, first_frame.DATA)
        if control == first_frame.COMMAND:
            panel.command(*payload)
        else:
            panel.data(payload)


@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_the_panel_is_set_up_as_luma_sets_it_up(driver):
    serial = Commands()
    DRIVERS[driver](serial, width=128, height=64)
    assert serial.sent[0] == first_frame.SETUP[driver]


@pytest.mark.parametrize("rotate", [0, 2])
@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_the_panel_holds_what_the_box_writes_for_the_same_frame_and_is_lit(driver, rotate):
    theirs = ModelPanel(driver)
    box = PageDiffDisplay(DRIVERS[driver](theirs, width=128, height=64, rotate=rotate), driver,
                          lambda: 0.0)
    box.show(splash.frame())
    ours = ModelPanel(driver)
    written(first_frame.transfers(splash.FRAME.read_bytes(), driver, rotate, 120), ours)
    assert ours.ram == theirs.ram
    assert ours.image().tobytes() != bytes(1024)  # something is drawn
    assert ours.on and ours.contrast == 120


def test_the_defaults_are_the_configs():
    configs = {key: SCHEMA["display"][key].default for key in first_frame.DEFAULTS}
    assert configs == first_frame.DEFAULTS


def settings_of(tmp_path: Path, text: str) -> dict:
    config = tmp_path / "config.toml"
    config.write_text(text)
    return first_frame.display_settings(config)


def test_the_display_settings_are_read_from_the_config_over_the_defaults(tmp_path):
    found = settings_of(tmp_path, '[display]\ndriver = "sh1106"\ni2c_address = 0x3D\nrotate = 2\n')
    assert found == {**first_frame.DEFAULTS, "driver": "sh1106", "i2c_address": 0x3D, "rotate": 2}
    assert first_frame.display_settings(tmp_path / "missing.toml") == first_frame.DEFAULTS


@pytest.mark.parametrize(("text", "why"), [
    ('[display]\ninterface = "spi"\n', "on spi"),
    ("[display]\nrotate = 1\n", "turned 1 quarters"),
    ('[display]\ni2c_bus = "one"\n', "no number"),
    ("[display]\ndriver = [1]\n", "a \\[1\\] panel"),
    ("[display\n", "unreadable"),
    ("display = 3\n", "not a table"),
])
def test_what_it_cannot_draw_is_left_to_the_box_with_the_reason(tmp_path, text, why):
    with pytest.raises(first_frame.Skipped, match=why):
        settings_of(tmp_path, text)


def test_a_bus_that_is_not_there_is_named(tmp_path):
    with pytest.raises(first_frame.Skipped, match="/dev/i2c-19: No such file"):
        first_frame.open_bus(19, 0x3C, wait_s=0)


def copied(tmp_path: Path) -> Path:
    """The copy the image keeps on its root filesystem: this file and the frame, nothing else."""
    folder = tmp_path / "first-frame"
    folder.mkdir()
    shutil.copy(first_frame.__file__, folder)
    shutil.copy(splash.FRAME, folder)
    return folder / "first_frame.py"


def run(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", "-S", str(script), *args], capture_output=True,
                          text=True, timeout=60)


def test_a_bare_interpreter_notes_the_frame_as_the_simulated_panel_does(tmp_path):
    io = tmp_path / "io"
    io.mkdir()
    result = run(copied(tmp_path), "--config", str(tmp_path / "none.toml"), "--stand-in", str(io))
    assert result.returncode == 0, result.stderr
    at, what, digest = (io / "frames").read_text().split()
    # hardware.sim.StandIn's hash of the image the box shows first
    assert (what, digest) == ("frame", hashlib.sha1(splash.frame().tobytes()).hexdigest()[:16])
    assert int(at) > 0
    panel = ModelPanel("ssd1306")
    written([(io / "panel").read_bytes()[:1 + len(first_frame.SETUP["ssd1306"]) + 2]], panel)
    assert panel.contrast == first_frame.DEFAULTS["contrast"]


def test_no_panel_leaves_the_frame_to_the_box_and_the_boot_goes_on(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[display]\ni2c_bus = 19\n")
    result = run(copied(tmp_path), "--config", str(config))
    assert result.returncode == 0
    assert "first frame left to the box: /dev/i2c-19" in result.stderr


def test_a_wrong_option_says_how_to_call_it(tmp_path):
    result = run(copied(tmp_path), "--colour", "red")
    assert result.returncode == 2 and "usage: first_frame.py" in result.stderr


SPLASH_UNIT = Path(__file__).resolve().parent.parent / "systemd" / "companion-splash.service"


def unit_values(key: str) -> list[str]:
    return [line.partition("=")[2] for line in SPLASH_UNIT.read_text().splitlines()
            if line.startswith(f"{key}=")]


def test_the_unit_runs_once_the_bus_driver_is_loaded_and_is_done_before_the_box_starts():
    assert unit_values("DefaultDependencies") == ["no"]
    assert unit_values("After") == ["systemd-modules-load.service"]
    assert "companion.service" in unit_values("Before")[0].split()
    assert unit_values("Type") == ["oneshot"]  # "started" only once it has exited
    exec_start = unit_values("ExecStart")[0].split()
    assert exec_start[:3] == ["/usr/bin/python3", "-I", "-S"]
    assert exec_start[3] == "/usr/lib/companion/first-frame/first_frame.py"
    assert unit_values("DeviceAllow") == ["char-i2c rw"] and unit_values("DevicePolicy") == ["closed"]
    assert unit_values("CapabilityBoundingSet") == [""] and unit_values("User") == ["companion"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_the_unit_is_sandboxed_as_tightly_as_the_box():
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", "--no-pager",
                             str(SPLASH_UNIT)], capture_output=True, text=True)
    if "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (needs systemd 250 or later)")
    found = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
    assert found and float(found[1]) <= 0.6, result.stdout + result.stderr
