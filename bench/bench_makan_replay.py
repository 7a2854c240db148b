"""Replays per second of a scripted 4-player, 5-round Makan Mania game on one core.

Usage: python bench/bench_makan_replay.py [--seconds S] [--windows N]
Replays docs/examples/makan_4p.jsonl (every action of a whole game) from a fresh state, as the
box does on resume and on every undo, and prints one JSON line.

Timed in process CPU time (one core, whatever else the machine runs), in several windows:
``replays_per_s`` is the best window, as timeit does (other processes on a shared machine only
ever slow a window down), ``median_replays_per_s`` the median one. ``calibration`` is the time
of ``sum(range(1000))`` in µs on this core (a recent desktop core: about 8-10 µs), so figures
from different machines can be compared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import timeit
from pathlib import Path

from companion.commands.replay import read_actions
from companion.games.catalog import GAMES

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "makan_4p.jsonl"
TARGET = 2000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="how long to measure in all")
    parser.add_argument("--windows", type=int, default=12, help="measuring windows; the best counts")
    args = parser.parse_args()
    spec = GAMES["makan"]
    actions = [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]
    assert spec.is_finished(spec.replay(actions)), "the scripted game must reach the end"
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    rates = []
    for _ in range(args.windows):
        replays, start = 0, time.process_time()
        while (elapsed := time.process_time() - start) < args.seconds / args.windows:
            spec.replay(actions)
            replays += 1
        rates.append(replays / elapsed)
    best = max(rates)
    print(json.dumps({"benchmark": "makan_replay", "actions": len(actions), "windows": len(rates),
                      "python": sys.version.split()[0], "python_home": sys.base_prefix,
                      "calibration_sum_range_1000_us": round(calibration, 1),
                      "replays_per_s": round(best, 1),
                      "median_replays_per_s": round(statistics.median(rates), 1),
                      "us_per_action": round(1e6 / best / len(actions), 2), "target": TARGET,
                      "ok": best >= TARGET}))


if __name__ == "__main__":
    main()
