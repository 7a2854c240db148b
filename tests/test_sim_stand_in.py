"""``companion run --sim --sim-io DIR``: the simulated panel and buttons as files, for a program
outside the box's process (the emulated box's boot measurement, issue 40: "something in the
guest presses OK and sees the frame change")."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


def test_the_splash_file_is_the_drawing():
    """"a first frame (logo + "Starting…")" (issue 40), shown from its file."""
    from companion.box import splash

    assert splash.FRAME.read_bytes() == splash.drawn().tobytes()
    assert splash.frame().tobytes() == splash.drawn().tobytes()
    assert splash.frame().getbbox() is not None  # something is drawn


@pytest.mark.slow
def test_the_box_process_shows_the_splash_first_then_its_home_screen(tmp_path):
    from companion.box import splash

    io = tmp_path / "io"
    io.mkdir()
    box = subprocess.Popen([sys.executable, "-m", "companion", "run", "--sim", "--sim-io", str(io),
                            "--state-dir", str(tmp_path / "state")], cwd=tmp_path,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "HOME": str(tmp_path)})
    try:
        deadline = time.monotonic() + BOUND_S
        while len(lines := frames(io)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        box.terminate()
        box.wait(BOUND_S)
    first, second = lines[:2]
    assert first[1:] == ["frame", hashlib.sha1(splash.FRAME.read_bytes()).hexdigest()[:16]]
    assert second[1] == "frame" and second[2] != first[2]


def test_the_box_s_command_loads_no_game_screen_or_journal_before_its_first_frame():
    """"fewer imports before the first frame" (issue 40): the app, the journal and the games'
    screens load in build_app, after the splash is on the panel."""
    code = ("import sys, companion.commands.run; "
            "print(sorted(m for m in ('companion.box.app', 'companion.journal.journal', "
            "'companion.screens.home') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
