"""Replays per second of a scripted 4-player, 5-round Makan Mania game on one core.

Usage: python bench/bench_makan_replay.py [--seconds S]
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
    parser.add_argument("--seconds", type=float, default=2.0, help="how long to measure")
    args = parser.parse_args()
    spec = GAMES["makan"]
    actions = [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]
    assert spec.is_finished(spec.replay(actions)), "the scripted game must reach the end"
    replays, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < args.seconds:
        spec.replay(actions)
        replays += 1
    print(json.dumps({"benchmark": "makan_replay", "actions": len(actions), "replays": replays,
                      "seconds": round(elapsed, 3), "replays_per_s": round(replays / elapsed, 1),
                      "target": TARGET}))


if __name__ == "__main__":
    main()
