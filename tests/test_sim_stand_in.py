"""``companion run --sim --sim-io DIR``: the simulated panel and buttons as files, for a program
outside the box's process (the emulated box's boot measurement, issue 40: "something in the
guest presses OK and sees the frame change")."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from companion.box.app import App
from companion.box.boot import build_app
from companion.games import box_config

BOUND_S = 30  # a bound on waiting for the box's threads, not a timed assertion


def frames(folder: Path) -> list[list[str]]:
    path = folder / "frames"
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def pump_until(app: App, folder: Path, done) -> list[list[str]]:
    deadline = time.monotonic() + BOUND_S
    while not done(lines := frames(folder)) and time.monotonic() < deadline:
        app.pump()
        time.sleep(0.01)
    return lines


def press(folder: Path, *names: str) -> None:
    with (folder / "buttons").open("w") as fifo:  # waits for the box's reader to open it
        fifo.write("".join(f"{name}\n" for name in names))


def test_each_frame_is_noted_with_its_time_and_a_press_through_the_fifo_changes_the_frame(tmp_path):
    io = tmp_path / "io"
    io.mkdir()
    app = build_app(box_config.parse({}), sim=True, state_dir=tmp_path / "state", stand_in=io)
    try:
        assert (io / "buttons").is_fifo()
        app.start()
        app.pump()
        first = frames(io)
        assert [what for _at, what, _hash in first] == ["frame"]
        press(io, "ok")
        lines = pump_until(app, io, lambda lines: len(lines) >= 3)
    finally:
        app.shutdown()
    assert [what for _at, what, _detail in lines[:3]] == ["frame", "press", "frame"]
    assert lines[1][2] == "OK"
    assert lines[2][2] != lines[0][2]  # the home menu opened what OK chose
    times = [int(at) for at, _what, _detail in lines]
    assert times == sorted(times) and times[0] > 0


def test_a_line_that_names_no_button_presses_nothing_and_says_so(tmp_path, caplog):
    io = tmp_path / "io"
    io.mkdir()
    app = build_app(box_config.parse({}), sim=True, state_dir=tmp_path / "state", stand_in=io)
    try:
        app.start()
        app.pump()
        press(io, "OKAY", "DOWN")
        lines = pump_until(app, io, lambda lines: any(what == "press" for _at, what, _d in lines))
    finally:
        app.shutdown()
    assert [line[1:] for line in lines if line[1] == "press"] == [["press", "DOWN"]]
    assert "'OKAY' is no button" in caplog.text


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion", "run", *args], capture_output=True,
                          text=True, cwd=cwd, env={**os.environ, "HOME": str(cwd)})


def test_sim_io_needs_sim_and_a_folder_with_one_line_each(tmp_path):
    without = run("--sim-io", str(tmp_path), cwd=tmp_path)
    assert without.returncode == 2
    assert without.stderr == "companion: --sim-io needs --sim (the real panel and buttons are not files)\n"
    missing = run("--sim", "--sim-io", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == f"companion: --sim-io {tmp_path / 'nowhere'}: no such folder\n"
