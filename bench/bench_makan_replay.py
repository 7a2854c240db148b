"""Replays per second of a scripted 4-player, 5-round Makan Mania game on one core.

Usage: python bench/bench_makan_replay.py [--seconds S] [--windows N]
Replays docs/examples/makan_4p.jsonl (every action of a whole game) from a fresh state, as the
box does on resume and on every undo, and action by action through ``apply`` as live play and
``companion replay`` do; prints one JSON line.

Timed in process CPU time (one core, whatever else the machine runs), in several windows:
``replays_per_s`` is the best window, as timeit does (other processes on a shared machine only
ever slow a window down), ``median_replays_per_s`` the median one (the figure that counts), and
``apply_replays_per_s`` the median window of the action-by-action replays. ``calibration`` is the time
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
from collections.abc import Callable
from pathlib import Path

from companion.commands.replay import read_actions
from companion.games.catalog import GAMES

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "makan_4p.jsonl"
TARGET = 2000


def rates(replay: Callable[[], object], seconds: float, windows: int) -> list[float]:
    """Replays a second in each of ``windows`` windows of process CPU time."""
    out = []
    for _ in range(windows):
        replays, start = 0, time.process_time()
        while (elapsed := time.process_time() - start) < seconds / windows:
            replay()
            replays += 1
        out.append(replays / elapsed)
    return out


def measure(seconds: float = 6.0, windows: int = 12) -> dict[str, object]:
    """``replays_per_s`` through ``rules.replay`` (one draft for the whole game, as on resume and
    undo) and ``apply_replays_per_s`` action by action through ``apply``, as live play and
    ``companion replay`` do; the best window and the median with its spread."""
    spec = GAMES["makan"]
    actions = [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]
    assert spec.rules.is_finished(spec.rules.replay(actions)), "the scripted game must reach the end"

    def one_by_one() -> None:
        state = spec.rules.initial_state()
        for action in actions:
            state = spec.rules.apply(state, action)

    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    drafts = rates(lambda: spec.rules.replay(actions), seconds / 2, windows)
    applied = rates(one_by_one, seconds / 2, windows)
    best = max(drafts)
    return {"benchmark": "makan_replay", "actions": len(actions), "windows": windows,
            "python": sys.version.split()[0], "python_home": sys.base_prefix,
            "calibration_sum_range_1000_us": round(calibration, 1),
            "replays_per_s": round(best, 1),
            "median_replays_per_s": round(statistics.median(drafts), 1),
            "min_replays_per_s": round(min(drafts), 1),
            "us_per_action": round(1e6 / best / len(actions), 2),
            "apply_replays_per_s": round(statistics.median(applied), 1),
            "apply_replays_per_s_min_max": [round(min(applied), 1), round(max(applied), 1)],
            "target": TARGET, "ok": statistics.median(drafts) >= TARGET}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="how long to measure in all")
    parser.add_argument("--windows", type=int, default=12, help="measuring windows of each kind")
    args = parser.parse_args()
    print(json.dumps(measure(args.seconds, args.windows)))


if __name__ == "__main__":
    main()
