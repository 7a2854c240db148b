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


class Hog:
    """A CPU hog in a process of its own, left to the scheduler, or (``pin``, with two cores)
    on the other core than the box."""

    def __init__(self, on: bool, pin: bool) -> None:
        cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.box_core = self.hog_core = None
        if pin and len(cores) >= 2:
            self.box_core, self.hog_core = cores[0], cores[1]
            os.sched_setaffinity(0, {self.box_core})
        self.stop = multiprocessing.Event()
        self.process = None
        if on:
            self.process = multiprocessing.Process(target=_hog, args=(self.stop, self.hog_core),
                                                   daemon=True)
            self.process.start()

    def end(self) -> None:
        self.stop.set()
        if self.process is not None:
            self.process.join(5)


class Timed:
    """The box running its loop in a thread, with shortened rounds of ``round_seconds``, and
    what it was late by: the buzzer's cues, the clock's redraws and (``probe_ms``) the probes."""

    def __init__(self, round_seconds: float, probe_ms: float | None) -> None:
        self.app = build_app(config.parse({}), sim=True, state_dir=tempfile.mkdtemp(prefix="cafe-bench-"))
        self.clock = screens.clock_for(self.app.table)
        # Shortened rounds: warnings and ticks scaled into the round.
        self.clock.warn_at = (round_seconds - 1.0, round_seconds - 2.0)
        self.clock.tick_from = max(1, int(round_seconds) - 3)
        self.round_seconds, self.probe_ms = round_seconds, probe_ms
        self.alarm = threading.Event()
        self.app.hardware.buzzer.listeners.append(lambda pattern: pattern == "alarm" and self.alarm.set())
        self.errors_ms: list[float] = []
        self.redraws_ms: list[float] = []
        self.probes_ms: list[float] = []
        self.cpu: list[float] = []
        self.missed = 0
        self.app.panel.frame_listeners.append(self.on_frame)
        self.loop = threading.Thread(target=self.app.run, name="loop", daemon=True)
        self.loop.start()

    def on_frame(self, _image: Any) -> None:
        # A frame while the clock runs shows ceil(left) whole seconds; it is due when that
        # second began (other frames, e.g. a warning's toast, come well after one).
        if self.clock.deadline is not None:
            left = self.clock.deadline - self.app.clock.now()
            late = math.ceil(left) - left
            if left > 0 and late < 0.5:
                self.redraws_ms.append(late * 1000)

    def probe(self, at: float) -> None:
        self.probes_ms.append((self.app.clock.now() - at) * 1000)
        if self.clock.deadline is not None and self.probe_ms:
            follow = self.app.clock.now() + self.probe_ms / 1000 * (1 + random.random() / 2)
            self.app.schedule(follow, lambda: self.probe(follow))

    def on_loop(self, fn: Any) -> None:
        """``fn`` run by the loop's thread; back when it is done."""
        done = threading.Event()

        def call() -> None:
            fn()
            done.set()

        self.app.events.put(Call(call))
        done.wait(5)

    def play_round(self, number: int) -> None:
        app = self.app
        if number % 3 == 0:
            # The shortest round a setup allows; each round starts that much earlier than now
            # minus round_seconds, so it ends round_seconds from now.
            setup = {"type": "setup", "round_seconds": LOW_S, "dice": "manual"}
            self.on_loop(lambda: app.table.games.start("cafe", setup))
        self.alarm.clear()
        played = app.hardware.buzzer.played
        first = len(played)
        wall0, cpu0 = time.monotonic(), time.process_time()
        self.on_loop(lambda: screens.act(app.table, {"type": "round_start",
                                               "at": app.clock.now() - (LOW_S - self.round_seconds)}))
        deadline = self.clock.deadline
        if self.probe_ms:
            first_probe = app.clock.now() + self.probe_ms / 1000
            self.on_loop(lambda: app.schedule(first_probe, lambda: self.probe(first_probe)))
        self.alarm.wait(self.round_seconds + 5)
        time.sleep(0.05)  # let the alarm's time-up dispatch finish
        wall, used = time.monotonic() - wall0, time.process_time() - cpu0
        self.cpu.append(100 * used / wall)
        heard = played[first:]
        cues = self.clock.cues(deadline)
        self.missed += max(0, len(cues) - len(heard))
        for (at, pattern), (when, got) in zip(cues, heard, strict=False):
            if pattern == got:
                self.errors_ms.append((when - at) * 1000)
        self.on_loop(app.table.pop)  # close TIME'S UP

    def end(self) -> None:
        self.app.events.put(Stop())
        self.loop.join(5)

    def close(self) -> None:
        self.app.hardware.close()
        if self.app.play.journal is not None:
            self.app.play.journal.close()


def run(rounds: int, round_seconds: float, hog: bool, probe_ms: float | None = None,
        pin: bool = False) -> dict[str, Any]:
    hogging = Hog(hog, pin)
    timed = Timed(round_seconds, probe_ms)
    for number in range(rounds):
        timed.play_round(number)
    timed.end()
    hogging.end()
    timed.close()
    return report(timed, hogging, rounds, round_seconds, hog, pin)


def report(timed: Timed, hogging: Hog, rounds: int, round_seconds: float, hog: bool,
           pin: bool) -> dict[str, Any]:
    errors_ms, redraws_ms, cpu = timed.errors_ms, timed.redraws_ms, timed.cpu
    every = errors_ms + redraws_ms + timed.probes_ms
    return {
        "bench": "cafe_timer",
        "clock": type(timed.app.hardware.clock).__name__,
        "rounds": rounds,
        "round_seconds": round_seconds,
        "cpu_hog": hog,
        "box_core": hogging.box_core,
        "hog_core": hogging.hog_core,
        "pinned": pin,
        "cues": len(errors_ms),
        "cues_missed": timed.missed,
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
        "probes": len(timed.probes_ms),
        "deadline_late_ms": {"samples": len(every), "p50": round(_percentile(every, 50), 3),
                             "p99": round(_percentile(every, 99), 3), "max": round(max(every), 3)},
        "cpu_percent_of_one_core": {
            "mean": round(sum(cpu) / len(cpu), 3),
            "max": round(max(cpu), 3),
        },
        "targets": {"late_ms_p99": 5.0, "cpu_percent": 3.0},
        "ok": _percentile(every, 99) < 5.0 and max(cpu) < 3.0 and timed.missed == 0,
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
