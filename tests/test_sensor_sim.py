"""``companion sensor-sim``: the virtual sensor's command line, script files and seeded throws.

Quotes are from issue 6: "`companion sensor-sim` ... speaks the real protocol on a
pseudo-terminal and prints its path, with a scriptable mode (faces from a file or a seed)".
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from firmware_bridge.events import DiceSettled
from firmware_bridge.virtual import VirtualSensor
from tests.test_sensor_link import Events

pytestmark = pytest.mark.slow


def sensor_sim(*args: str, timeout: float = 10) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "sensor-sim", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_a_script_file_runs_and_reports_each_line(tmp_path):
    """"faces from a file": each command is acknowledged."""
    script = tmp_path / "session.txt"
    script.write_text("# a Café reroll\nsettle pizza donut cola bill\nface 3 bill\nquit\n")
    done = sensor_sim("--kinds", "cafe", "--script", str(script))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("sensor-sim: /dev/pts/")
    assert lines[1:] == ["ok settle pizza donut cola bill", "ok face 3 bill", "ok quit"]


@pytest.mark.parametrize(("line", "reason"), [
    ("settle pizza pizza", "settle needs 4 faces (- keeps a die, ? is crooked)"),
    ("dance", "unknown command 'dance'"),
    ("face 9 x", "face: die '9': 0 to 3"),
    ("face 0 cola", "die 0 (yellow) has no face 'cola'"),
    ("wait abc", "wait 'abc': seconds from 0 to 86400"),
    ("quiet nan", "quiet 'nan': seconds from 0 to 86400"),
    ("garbage -3", "garbage '-3': a whole number from 0 to 1000000"),
    ("crooked", "crooked takes DIE"),
])
def test_a_script_file_with_a_bad_line_is_refused_before_it_starts(tmp_path, line, reason):
    script = tmp_path / "session.txt"
    script.write_text(f"throw\n{line}\nquit\n")
    done = sensor_sim("--kinds", "cafe", "--script", str(script))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"companion sensor-sim: {script}:2: {reason}\n"


def test_on_standard_input_a_bad_line_is_answered_and_the_rest_goes_on():
    done = subprocess.run([sys.executable, "-m", "companion", "sensor-sim", "--script", "-"],
                          input="face 9 x\nthrow 2\nthrow\nquit\n", capture_output=True,
                          text=True, timeout=10)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[1:] == [
        "error line 1: face: die '9': 0 to 3", "error line 2: throw takes nothing",
        "ok throw", "ok quit"]


@pytest.mark.parametrize(("args", "words"), [
    (("--link", "/proc/x/dice"), "--link /proc/x/dice: no folder /proc/x"),
    (("--link", "/proc/dice"), "--link /proc/dice: cannot make a link there"),
    (("--heartbeat", "nan"), "--heartbeat: 'nan': seconds from 0.01 to 3600"),
    (("--heartbeat", "0"), "--heartbeat: '0': seconds from 0.01 to 3600"),
    (("--every", "inf"), "--every: 'inf': seconds from 0 to 3600"),
])
def test_bad_options_get_one_line(args, words):
    done = sensor_sim(*args)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr


def test_unknown_dice_and_missing_scripts_are_refused(tmp_path):
    """An installer's mistake gets one line naming the option and the choices."""
    bad = sensor_sim("--kinds", "yellow,purple")
    assert bad.returncode == 2 and "--kinds" in bad.stderr and "purple" in bad.stderr
    missing = sensor_sim("--script", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_the_same_seed_throws_the_same_faces():
    """"or a seed": a seeded run is repeatable."""
    first = VirtualSensor(("white",) * 5 + ("red",), seed=11)
    second = VirtualSensor(("white",) * 5 + ("red",), seed=11)
    throws = [first.throw() for _ in range(5)]
    assert throws == [second.throw() for _ in range(5)]
    assert len(set(throws)) > 1
    assert first.faces() == throws[-1]


def test_without_a_script_the_dice_are_thrown_again_and_again(tmp_path):
    """The default mode keeps throwing, so the box can be tried with no hands on dice."""
    link_path = tmp_path / "dice-sensor"
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "sensor-sim", "--link", str(link_path), "--seed", "4",
         "--every", "0.3", "--heartbeat", "0.05"], stdout=subprocess.PIPE, text=True)
    events = Events()
    link = events.connect(str(link_path))
    try:
        assert process.stdout.readline().startswith("sensor-sim: ")
        link.start()
        first = events.wait(lambda e: isinstance(e, DiceSettled), timeout=5)
        second = events.wait(lambda e: isinstance(e, DiceSettled), timeout=5)
        assert None not in first.faces and None not in second.faces
    finally:
        link.stop()
        process.terminate()
        process.wait(60)  # generous: a loaded machine can stall the exit
    assert process.returncode == 0
    assert not link_path.exists()  # SIGTERM unplugs cleanly
