"""Replays per second of a scripted 4-player, 5-round Makan Mania game on one core.

Usage: python bench/bench_makan_replay.py [--seconds S] [--windows N]
Replays docs/examples/makan_4p.jsonl (every action of a whole game) from a fresh state, as the
box does on resume and on every undo, and prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from companion.commands.replay import read_actions
from companion.games import GAMES

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "makan_4p.jsonl"
TARGET = 2000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to measure in all")
    parser.add_argument("--windows", type=int, default=5, help="measuring windows; the best counts")
    args = parser.parse_args()
    spec = GAMES["makan"]
    actions = [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]
    assert spec.is_finished(spec.replay(actions)), "the scripted game must reach the end"
    # Best of several windows, as timeit does: other processes on the machine only ever slow a
    # window down, so the best one is the closest to what the code itself costs.
    rates = []
    for _ in range(args.windows):
        replays, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < args.seconds / args.windows:
            spec.replay(actions)
            replays += 1
        rates.append(replays / elapsed)
    rates.sort()
    print(json.dumps({"benchmark": "makan_replay", "actions": len(actions), "windows": len(rates),
                      "replays_per_s": round(rates[-1], 1),
                      "median_replays_per_s": round(rates[len(rates) // 2], 1),
                      "us_per_action": round(1e6 / rates[-1] / len(actions), 2), "target": TARGET}))

if __name__ == "__main__":
    main()
