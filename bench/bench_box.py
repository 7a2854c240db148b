"""The whole box's own figures: journaled presses, idle cost, start-up, the simulate command.

- ``journaled_presses``: presses in a Miams game whose action the journal writes (SQLite,
  WAL, synchronous=FULL, so an fsync each): wall time from the pin edge to the frame handed to
  the display, on the simulator with its journal on this machine's disk; ``fsync`` is a 4 KB
  write and ``os.fsync`` in the same folder, the floor under them.
- ``idle_process``: ``companion run --sim`` in its own process: from its start to the log line
  it writes once the first frame is drawn; then, left idle, its CPU share and the times its
  threads were scheduled (wake-ups) a second, from ``/proc/PID/task/*/schedstat``, and its RSS.
- ``display_writes_idle``: frames written a minute on screens left alone (virtual clock).
- ``simulate_command``: ``companion simulate miams`` as a user runs it, start-up included, on
  the command's CPU time (``*_wall``: on wall time, which waits for a core on a busy machine).
- ``test_suite``: the README's test command, wall time.

    python bench/bench_box.py [--quick]

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_display import spread

from companion.games.miams import STARTED, quiet_turns
from companion.simulator.simbox import PRESS_S, SimBox
from companion.simulator.walk import named_screens, run_steps

ROOT = Path(__file__).resolve().parent.parent
IDLE_SCREENS = ("home", "settings", "makan-scoreboard", "cafe-ready", "miams-sheet")


def fsync_ms(folder: Path, samples: int) -> list[float]:
    """A 4 KB write and its fsync, as the journal's commit makes."""
    times = []
    with open(folder / "fsync-probe", "wb") as probe:
        for _ in range(samples):
            began = time.perf_counter()
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
            times.append((time.perf_counter() - began) * 1000)
    return times


def journaled_presses(samples: int) -> dict[str, Any]:
    """Pin edge → frame for presses that write the journal (Miams turns: roll, keep, cross)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-journal-"))
    times, games = journaled_press_times(folder, samples)
    fsync = fsync_ms(folder, max(200, samples))
    return {"presses": spread(times), "games": games, "fsync_ms": spread(fsync, 3)}


def journaled_press_times(folder: Path, samples: int, clock: Callable[[], float] = time.perf_counter,
                          unit: float = 1000) -> tuple[list[float], int]:
    """At least ``samples`` journaled presses' times on ``clock`` (in ms by default: ``unit`` per
    clock unit), from as many Miams games in ``folder`` as it takes; and that number of games."""
    times: list[float] = []
    games = 0
    while len(times) < samples:
        box = SimBox(folder / f"game{games}", seed=games + 1)
        games += 1
        writes = [0]
        run_ops = box.app.play.journal._run

        def counted(op: Any, writes: list[int] = writes, run_ops: Any = run_ops) -> None:
            writes[0] += 1
            run_ops(op)

        box.app.play.journal._run = counted
        run_steps(box, STARTED)
        for turn in range(1, 41):
            for button in quiet_turns(1, turn):
                before = writes[0]
                box.finger.down(button)
                box.app.pump()
                box.advance(PRESS_S)
                began = clock()
                box.finger.up(button)  # these buttons act on release
                box.app.pump()
                took = (clock() - began) * unit
                box.advance(PRESS_S)
                if writes[0] > before:
                    times.append(took)
            session = box.app.play.session
            if session is None or session.spec.rules.is_finished(session.state):
                break
        box.close()
    return times, games


def _schedstat(pid: int) -> tuple[int, int]:
    """CPU nanoseconds and times scheduled in, summed over the process's threads."""
    cpu = runs = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns, _wait, slices = (int(x) for x in (task / "schedstat").read_text().split())
        except (OSError, ValueError):  # a thread that just ended
            continue
        cpu, runs = cpu + ns, runs + slices
    return cpu, runs


def idle_process(seconds: float) -> dict[str, Any]:
    """``companion run --sim``: start-up to first frame, then idle CPU, wake-ups and RSS."""
    state = tempfile.mkdtemp(prefix="bench-idle-")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    began = time.perf_counter()
    box = subprocess.Popen([sys.executable, "-m", "companion", "run", "--sim", "--state-dir", state],
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        for line in box.stderr:
            if "box running" in line:  # logged once the first frame is on the panel
                break
        startup = time.perf_counter() - began
        time.sleep(1.0)  # let start-up's last work finish
        cpu0, runs0 = _schedstat(box.pid)
        wall0 = time.perf_counter()
        time.sleep(seconds)
        cpu1, runs1 = _schedstat(box.pid)
        wall = time.perf_counter() - wall0
        rss_kb = int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{box.pid}/status").read_text())[1])
        threads = len(list(Path(f"/proc/{box.pid}/task").iterdir()))
    finally:
        box.send_signal(signal.SIGTERM)
        box.communicate(timeout=10)
    return {"startup_to_first_frame_s": round(startup, 3), "idle_seconds": round(wall, 1),
            "idle_cpu_percent": round((cpu1 - cpu0) / 1e9 / wall * 100, 4),
            "idle_wakeups_per_s": round((runs1 - runs0) / wall, 2),
            "threads": threads, "rss_mb": round(rss_kb / 1024, 1)}


def display_writes_idle(minutes: float) -> dict[str, float]:
    """Frames written a minute on each screen left alone (the clock moved a second at a time)."""
    out = {}
    walks = named_screens()
    for name in IDLE_SCREENS:
        box = SimBox(tempfile.mkdtemp(prefix="bench-idle-screen-"))
        run_steps(box, walks[name])
        box.advance(1.0)
        display = box.app.hardware.display
        written = display.frames_written
        box.advance(minutes * 60, step=1.0)
        out[name] = round((display.frames_written - written) / minutes, 2)
        box.close()
    return out


def simulate_command(games: int) -> dict[str, Any]:
    """``companion simulate miams --games N --difficulty D``, start-up included: games a second
    of the command's CPU time (as the in-process figures), and of wall time."""
    out: dict[str, Any] = {"games": games}
    for difficulty in ("snacking", "lunch", "munchies"):
        began, cpu = time.perf_counter(), _children_cpu()
        subprocess.run([sys.executable, "-m", "companion", "simulate", "miams", "--games", str(games),
                        "--difficulty", difficulty], check=True, stdout=subprocess.DEVNULL)
        out[difficulty] = round(games / (_children_cpu() - cpu))
        out[f"{difficulty}_wall"] = round(games / (time.perf_counter() - began))
    return out


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_suite() -> dict[str, Any]:
    """The README's test command (``python -m pytest``), wall time and what it reports."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider"], cwd=ROOT,
                          capture_output=True, text=True)
    wall = time.perf_counter() - began
    summary = re.findall(r"^=*\s*(\d+ passed.*?)\s*=*$", done.stdout, re.MULTILINE)
    return {"test_suite_s": round(wall, 1), "summary": summary[-1] if summary else done.stdout[-300:],
            "ok": done.returncode == 0}


def measure(quick: bool = False) -> dict[str, Any]:
    """Every figure above except the test suite; ``quick`` takes few samples."""
    return {
        "journaled": journaled_presses(20 if quick else 300),
        "idle": idle_process(2.0 if quick else 10.0),
        "display_writes_idle_per_min": display_writes_idle(1 if quick else 10),
        "simulate_command_games_per_s": simulate_command(1000 if quick else 10_000),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples: checks it runs")
    parser.add_argument("--tests", action="store_true", help="also time the test suite")
    args = parser.parse_args()
    result = measure(args.quick)
    if args.tests:
        result["test_suite"] = test_suite()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
