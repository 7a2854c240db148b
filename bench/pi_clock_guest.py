"""The measuring half of ``bench/pi_clock.py``: runs inside the emulated Cortex-A53, where the
clock counts guest instructions (one nanosecond each), and prints one JSON line.

Every figure is taken with ``time.perf_counter_ns`` in the guest (the one core's whole time,
interrupts and the journal's fsync on the guest's ext4 included); the same code measured on
any machine would give wall times. Not meant to be run by hand outside the guest, though it
runs anywhere (``python bench/pi_clock_guest.py --quick``) and then prints wall-clock figures.

    python bench/pi_clock_guest.py [--quick] [--profile SECTION]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_box
import bench_display
import bench_history
import bench_miams_odds

from companion.commands.replay import read_actions
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens, run_steps

ROOT = Path(__file__).resolve().parent.parent
MAKAN_EXAMPLE = ROOT / "docs" / "examples" / "makan_4p.jsonl"
SECTIONS = ("imports", "startup", "screens", "coach", "cafe", "replay", "history")


def ms(ns: float) -> float:
    return round(ns / 1e6, 3)


class Ns(int):
    """A time measured in the guest, in ns (instructions); printed in ms (or s for ``*_s``)
    with the exact count under ``ns``."""


def p99(values: list[int]) -> int:
    """Nearest-rank p99 (an exact sample, so the figure is one measured press)."""
    ordered = sorted(values)
    return ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


def say(message: str) -> None:
    print(f"pi-clock guest: {message}", file=sys.stderr, flush=True)


# ----- presses -----------------------------------------------------------------------------

def settle() -> None:
    """Let the coach's warm-up thread finish (the dice typed slower than it works), so that
    no press or render is timed while another thread holds the one core."""
    for thread in threading.enumerate():
        if thread.name == "miams-odds-warm":
            thread.join()


def on_drawn(box: SimBox, record: Callable[[int], None]) -> None:
    """Call ``record(ns)`` with the time of each of the box's loop pumps that drew a frame."""
    display = box.app.hardware.display
    pump = box.app.pump

    def timed_pump() -> None:
        written = display.frames_written
        began = time.perf_counter_ns()
        pump()
        took = time.perf_counter_ns() - began
        if display.frames_written != written:
            record(took)

    box.app.pump = timed_pump


class PressTimer:
    """Times each press of a simulated box: its slowest pump that drew a frame while the press
    was made (the edge that acted, from the pin to the frame handed to the display)."""

    def __init__(self, box: SimBox) -> None:
        self.presses: list[tuple[int, str]] = []
        self.pressing: list[int] | None = None
        on_drawn(box, lambda ns: self.pressing is not None and self.pressing.append(ns))
        press = box.press

        def timed_press(button: str, long: bool = False) -> None:
            settle()
            self.pressing = []
            try:
                press(button, long)
            finally:
                drawn, self.pressing = self.pressing, None
            if drawn:
                self.presses.append((max(drawn), f"{box.screen.name()} after {button}"))

        box.press = timed_press


def walks() -> dict[tuple[str, ...], list[tuple[int, str]]]:
    """The named screens' walks grouped: each walk that is no other's beginning, with the named
    screens it passes (step count, name), so that no press is made twice."""
    named = named_screens()
    longest = [steps for steps in named.values()
               if not any(len(other) > len(steps) and other[:len(steps)] == steps
                          for other in named.values())]
    grouped: dict[tuple[str, ...], list[tuple[int, str]]] = {steps: [] for steps in longest}
    for name, steps in named.items():
        walk = next(w for w in longest if w[:len(steps)] == steps)
        grouped[walk].append((len(steps), name))
    return {walk: sorted(stops) for walk, stops in grouped.items()}


def walk_screens(renders: int) -> tuple[list[tuple[int, str]], dict[str, int]]:
    """Every press of the named screens' walks from a fresh box (the menus, each game's setup
    and play screens with their actions journaled, an fsync each, history and stats), and
    ``App.render`` on each named screen as the walk passes it, its slowest of ``renders`` (as
    ``bench_display``'s ``render_times``: composed and compared with the frame on the panel)."""
    pressed, rendered = [], {}
    for walk, stops in walks().items():
        with tempfile.TemporaryDirectory() as state:
            box = SimBox(state)
            try:
                timer = PressTimer(box)
                done = 0
                for at, name in stops:
                    run_steps(box, walk[done:at])
                    done = at
                    settle()
                    box.app.panel.render()
                    times = []
                    for _ in range(renders):
                        began = time.perf_counter_ns()
                        box.app.panel.render()
                        times.append(time.perf_counter_ns() - began)
                    rendered[name] = max(times)
                pressed += [(ns, f"{stops[-1][1]}: {where}") for ns, where in timer.presses]
            finally:
                box.close()
    return pressed, rendered


def screens(quick: bool) -> dict[str, Any]:
    walked, rendered = walk_screens(3 if quick else 10)
    gc.collect()
    with tempfile.TemporaryDirectory() as folder:
        journaled, _games = bench_box.journaled_press_times(Path(folder), 10 if quick else 60,
                                                             time.perf_counter_ns, 1)
    times = [ns for ns, _ in walked]
    slowest = sorted(walked, reverse=True)[:5]
    worst = max(rendered, key=rendered.__getitem__)
    return {"press_to_frame_ms_p50": Ns(round(statistics.median(times))),
            "press_to_frame_ms_p99": Ns(p99(times)),
            "press_to_frame_ms_max": Ns(max(times)),
            "presses": len(times),
            "slowest_presses": [[ms(ns), where] for ns, where in slowest],
            "journaled_press_to_frame_ms_p50": Ns(round(statistics.median(journaled))),
            "journaled_press_to_frame_ms_p99": Ns(p99([round(ns) for ns in journaled])),
            "journaled_presses": len(journaled),
            "render_ms_max": Ns(rendered[worst]), "render_ms_max_screen": worst,
            "rendered_screens": len(rendered)}


def cafe_tick(seconds: int) -> dict[str, Any]:
    """One second of a running round: the pump that read the clock, redrew the digits and
    wrote the changed pages through the page-diff writer onto a recording bus."""
    box = bench_display.fresh("cafe-timer")
    try:
        bench_display.attach(box, "page_diff")
        ticks: list[int] = []
        on_drawn(box, ticks.append)
        box.advance(1.0)
        ticks.clear()  # the first second fills the digits' caches
        box.advance(float(seconds))
    finally:
        box.close()
    return {"cafe_tick_ms": Ns(max(ticks)), "cafe_tick_ms_p50": Ns(round(statistics.median(ticks))),
            "cafe_ticks": len(ticks)}


# ----- the coach -----------------------------------------------------------------------------

def coach(quick: bool) -> dict[str, Any]:
    """``bench_miams_odds.timed`` on the guest's clock, on that benchmark's positions without a sheet
    (the sensor case: the first reading after a game opens, before "My sheet" is touched):
    cold (the memo emptied before each) and warm (the same positions in a row), one and two
    rerolls; and cold on the positions that carry a sheet (no shipped values)."""
    out: dict[str, Any] = {}
    for rerolls, name, count in ((1, "one_reroll", 10 if quick else 40),
                                 (2, "two_rerolls", 10 if quick else 40)):
        cases = bench_miams_odds.positions(count, 1 + rerolls)
        sensor = [(white, red, None) for white, red, _weights in cases]
        sheets = [case for case in cases if case[2] is not None][:2 if quick else 6]
        for kind, positions, cold in (("cold", sensor, True), ("warm", sensor, False),
                                      ("cold_with_sheet", sheets, True)):
            times = bench_miams_odds.timed(rerolls, positions, cold, time.perf_counter_ns, 1)
            out[f"coach_ms_p99_{name}_{kind}"] = Ns(p99(times))
        out[f"coach_positions_{name}"] = [len(sensor), len(sheets)]
    return out


# ----- start-up and imports (each in a fresh interpreter) ------------------------------------

def import_ms(*modules: str) -> int:
    code = ("import time, importlib; t = time.perf_counter_ns(); "
            f"[importlib.import_module(m) for m in {modules!r}]; print(time.perf_counter_ns() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


def imports() -> dict[str, Any]:
    # The box's app (its games' screens among them) loads after its first frame, not with
    # the command's module.
    return {"import_ms_box": Ns(import_ms("companion.commands.run", "companion.box.app")),
            "import_ms_replay": Ns(import_ms("companion.commands.replay"))}


def startup(idle_s: float) -> dict[str, Any]:
    """``bench_box.idle_process``: ``companion run --sim`` from exec to the log line after the
    first frame, then idle on the home menu (wake-ups from the threads' schedstat)."""
    idle = bench_box.idle_process(idle_s)
    return {"startup_to_first_frame_s": idle["startup_to_first_frame_s"],
            "idle_wakeups_per_s": idle["idle_wakeups_per_s"], "idle_seconds": idle["idle_seconds"]}


# ----- replay, history ------------------------------------------------------------------------

def replay(runs: int) -> dict[str, Any]:
    """The example Makan game through ``apply`` action by action, as ``companion replay`` does."""
    spec = GAMES["makan"]
    lines = MAKAN_EXAMPLE.read_text(encoding="utf-8").splitlines()
    times = []
    for _ in range(runs):
        began = time.perf_counter_ns()
        state = spec.rules.initial_state()
        for _number, action in read_actions(lines, str(MAKAN_EXAMPLE)):
            state = spec.rules.apply(state, action)
        times.append(time.perf_counter_ns() - began)
    assert spec.rules.is_finished(state)
    return {"replay_makan_ms": Ns(round(statistics.median(times)))}


def history(runs: int) -> dict[str, Any]:
    """``bench_history``'s list and stats queries on 1,000 generated games, median of ``runs``."""
    with tempfile.TemporaryDirectory() as state:
        bench_history.generate(Path(state), 1_000)
        book = bench_history.open_book(state)
        try:
            figures = {}
            for name, query in bench_history.screen_queries(book).items():
                times = []
                for _ in range(runs):
                    began = time.perf_counter_ns()
                    query()
                    times.append(time.perf_counter_ns() - began)
                figures[name] = Ns(round(statistics.median(times)))
            return figures
        finally:
            book.close()


def measure(quick: bool, only: tuple[str, ...] = SECTIONS,
            profile: str | None = None) -> dict[str, Any]:
    """Each section from a collected heap (as the journaled presses after the walk): where the
    garbage collector next runs then hangs on what is measured, not on what ran before it."""
    sections: dict[str, Callable[[], dict[str, Any]]] = {
        "imports": imports,
        "startup": lambda: startup(2.0 if quick else 10.0),
        "screens": lambda: screens(quick),
        "coach": lambda: coach(quick),
        "cafe": lambda: cafe_tick(5 if quick else 20),
        "replay": lambda: replay(3 if quick else 9),
        "history": lambda: history(3 if quick else 9),
    }
    figures: dict[str, Any] = {"ns": {}, "section_s": {}}
    for name in only:
        say(f"{name}…")
        gc.collect()
        began = time.perf_counter_ns()
        if name == profile:
            profiler = cProfile.Profile(time.perf_counter_ns, 1e-9)
            found = profiler.runcall(sections[name])
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(40)
            figures["profile"] = text.getvalue()
        else:
            found = sections[name]()
        for key, value in found.items():
            if isinstance(value, Ns):
                figures["ns"][key] = int(value)
                value = round(value / 1e9, 3) if key.endswith("_s") else ms(value)
            figures[key] = value
        figures["section_s"][name] = round((time.perf_counter_ns() - began) / 1e9, 3)
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples (the CI gate)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="these sections only")
    parser.add_argument("--profile", choices=SECTIONS, help="cProfile this section (top 40)")
    args = parser.parse_args(argv)
    figures = measure(args.quick, tuple(args.only or SECTIONS), args.profile)
    figures["guest"] = {"python": sys.version.split()[0], "machine": os.uname().machine}
    print("PI-CLOCK " + json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
