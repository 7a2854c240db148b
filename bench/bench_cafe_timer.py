"""Crazy Café round clock on the real monotonic clock, with a CPU hog on the other core.

Runs the whole box (sim hardware, ``App.run`` in a thread) through shortened rounds and
measures how late the loop acted on each deadline: every warning, tick and alarm (the buzzer
call's clock reading minus the cue's deadline), every redraw of the clock's digits (the frame
handed to the display minus the whole second it shows), and, with ``--probe-ms``, a probe
deadline every few milliseconds (enough samples for a true p99), plus the CPU the box process
used while a round ran. The hog is a separate process left to the scheduler (``--pin`` puts
the box and the hog on separate cores). Targets: p99 lateness < 5 ms, CPU < 3 % of one core.
Prints JSON.

    python bench/bench_cafe_timer.py [--rounds 9] [--round-seconds 6] [--no-hog] [--probe-ms 20]
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import tempfile
import threading
import time
from typing import Any

from companion.box.boot import build_app
from companion.box.events import Call, Stop
from companion.games import box_config as config
from companion.games.crazy_cafe import rules, screens

LOW_S = rules.ROUND_S_RANGE[0]


def _hog(stop: Any, core: int | None) -> None:
    """Burn one core until told to stop."""
    if core is not None:
        os.sched_setaffinity(0, {core})
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(0, math.ceil(q / 100 * len(ordered)) - 1)  # nearest rank
    return ordered[rank]


def run(rounds: int, round_seconds: float, hog: bool, probe_ms: float | None = None,
        pin: bool = False) -> dict[str, Any]:
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    box_core = hog_core = None
    if pin and len(cores) >= 2:
        box_core, hog_core = cores[0], cores[1]
        os.sched_setaffinity(0, {box_core})
    stop_hog = multiprocessing.Event()
    hog_proc = None
    if hog:
        hog_proc = multiprocessing.Process(target=_hog, args=(stop_hog, hog_core), daemon=True)
        hog_proc.start()

    state_dir = tempfile.mkdtemp(prefix="cafe-bench-")
    app = build_app(config.parse({}), sim=True, state_dir=state_dir)
    clock = screens.clock_for(app)
    # Shortened rounds: warnings and ticks scaled into the round.
    clock.warn_at = (round_seconds - 1.0, round_seconds - 2.0)
    clock.tick_from = max(1, int(round_seconds) - 3)
    alarm = threading.Event()
    app.hardware.buzzer.listeners.append(lambda pattern: pattern == "alarm" and alarm.set())
    redraws_ms: list[float] = []
    probes_ms: list[float] = []

    def on_frame(_image: Any) -> None:
        # A frame while the clock runs shows ceil(left) whole seconds; it is due when that
        # second began (other frames, e.g. a warning's toast, come well after one).
        if clock.deadline is not None:
            left = clock.deadline - app.clock.now()
            late = math.ceil(left) - left
            if left > 0 and late < 0.5:
                redraws_ms.append(late * 1000)

    def probe(at: float) -> None:
        probes_ms.append((app.clock.now() - at) * 1000)
        if clock.deadline is not None:
            follow = app.clock.now() + probe_ms / 1000 * (1 + random.random() / 2)
            app.schedule(follow, lambda: probe(follow))

    app.frame_listeners.append(on_frame)
    loop = threading.Thread(target=app.run, name="loop", daemon=True)
    loop.start()

    def on_loop(fn: Any) -> None:
        done = threading.Event()

        def call() -> None:
            fn()
            done.set()

        app.post(Call(call))
        done.wait(5)

    errors_ms: list[float] = []
    cpu: list[float] = []
    missed = 0
    played = app.hardware.buzzer.played
    for number in range(rounds):
        if number % 3 == 0:
            # The shortest round a setup allows; each round starts that much earlier than now
            # minus round_seconds, so it ends round_seconds from now.
            setup = {"type": "setup", "round_seconds": LOW_S, "dice": "manual"}
            on_loop(lambda setup=setup: app.games.start("cafe", setup))
        alarm.clear()
        first = len(played)
        wall0, cpu0 = time.monotonic(), time.process_time()
        on_loop(lambda: screens.act(app, {"type": "round_start",
                                          "at": app.clock.now() - (LOW_S - round_seconds)}))
        deadline = clock.deadline
        if probe_ms:
            first_probe = app.clock.now() + probe_ms / 1000
            on_loop(lambda at=first_probe: app.schedule(at, lambda: probe(at)))
        alarm.wait(round_seconds + 5)
        time.sleep(0.05)  # let the alarm's time-up dispatch finish
        wall, used = time.monotonic() - wall0, time.process_time() - cpu0
        cpu.append(100 * used / wall)
        heard = played[first:]
        cues = clock.cues(deadline)
        missed += max(0, len(cues) - len(heard))
        for (at, pattern), (when, got) in zip(cues, heard, strict=False):
            if pattern == got:
                errors_ms.append((when - at) * 1000)
        on_loop(app.pop)  # close TIME'S UP
    app.post(Stop())
    loop.join(5)
    stop_hog.set()
    if hog_proc is not None:
        hog_proc.join(5)
    app.hardware.close()
    if app.journal is not None:
        app.journal.close()
    every = errors_ms + redraws_ms + probes_ms
    return {
        "bench": "cafe_timer",
        "clock": type(app.hardware.clock).__name__,
        "rounds": rounds,
        "round_seconds": round_seconds,
        "cpu_hog": hog,
        "box_core": box_core,
        "hog_core": hog_core,
        "pinned": pin,
        "cues": len(errors_ms),
        "cues_missed": missed,
        "late_ms": {
            "p50": round(_percentile(errors_ms, 50), 3),
            "p99": round(_percentile(errors_ms, 99), 3),
            "max": round(max(errors_ms), 3),
            "min": round(min(errors_ms), 3),
        },
        "redraws": len(redraws_ms),
        "redraw_late_ms": {"p50": round(_percentile(redraws_ms, 50), 3),
                           "p99": round(_percentile(redraws_ms, 99), 3),
                           "max": round(max(redraws_ms), 3)},
        "probes": len(probes_ms),
        "deadline_late_ms": {"samples": len(every), "p50": round(_percentile(every, 50), 3),
                             "p99": round(_percentile(every, 99), 3), "max": round(max(every), 3)},
        "cpu_percent_of_one_core": {
            "mean": round(sum(cpu) / len(cpu), 3),
            "max": round(max(cpu), 3),
        },
        "targets": {"late_ms_p99": 5.0, "cpu_percent": 3.0},
        "ok": _percentile(every, 99) < 5.0 and max(cpu) < 3.0 and missed == 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--round-seconds", type=float, default=6.0)
    parser.add_argument("--no-hog", action="store_true", help="run without the CPU hog")
    parser.add_argument("--probe-ms", type=float, help="also a probe deadline every N ms or so")
    parser.add_argument("--pin", action="store_true", help="box on one core, the hog on another")
    args = parser.parse_args()
    print(json.dumps(run(args.rounds, args.round_seconds, not args.no_hog, args.probe_ms, args.pin),
                     indent=2))


if __name__ == "__main__":
    main()
