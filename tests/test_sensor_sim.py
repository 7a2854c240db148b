"""``companion sensor-sim``: the virtual sensor's command line, script files and seeded throws.

Quotes are from issue 6: "`companion sensor-sim` ... speaks the real protocol on a
pseudo-terminal and prints its path, with a scriptable mode (faces from a file or a seed)".
"""

from __future__ import annotations

import subprocess
import sys

from firmware_bridge.events import DiceSettled
from firmware_bridge.virtual import VirtualSensor
from tests.test_sensor_link import Events


def sensor_sim(*args: str, timeout: float = 10) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "sensor-sim", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_a_script_file_runs_and_reports_each_line(tmp_path):
    """"faces from a file": each command is acknowledged; a bad one names its line."""
    script = tmp_path / "session.txt"
    script.write_text("# a Café reroll\nsettle pizza donut cola bill\nsettle pizza pizza\n"
                      "dance\nquit\n")
    done = sensor_sim("--kinds", "cafe", "--script", str(script))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].startswith("sensor-sim: /dev/pts/")
    assert lines[1:] == [
        "ok settle pizza donut cola bill",
        "error line 3: settle needs 4 faces (- keeps a die, ? is crooked)",
        "error line 4: unknown command 'dance'",
        "ok quit",
    ]


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
        process.wait(5)
    assert process.returncode == 0
    assert not link_path.exists()  # SIGTERM unplugs cleanly
