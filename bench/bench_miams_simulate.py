"""Full Miams solo games per second on one core (target: 10,000). Prints JSON.

Timed in process CPU time (one core, whatever else the machine runs). The player model's dice
table is sampled once per run and timed apart from the games.
"""

from __future__ import annotations

import json
import random
import sys
import time
import timeit

from companion.games.miams import ai

TARGET = 10_000


def main(games: int = 20_000, seed: int = 1) -> dict[str, object]:
    # How fast this core runs plain Python (a recent desktop core: about 8-10 µs), so figures
    # from different machines can be compared.
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    figures: dict[str, object] = {"benchmark": "miams_simulate", "games": games, "target_per_s": TARGET,
                                  "python": sys.version.split()[0],
                                  "calibration_sum_range_1000_us": round(calibration, 1)}
    for difficulty in ("snacking", "lunch", "munchies"):
        rng = random.Random(seed)
        start = ai.start_state(difficulty)
        began = time.process_time()
        model = ai.PlayerModel(start.options.sheet, rng)
        table_s = time.process_time() - began
        began = time.process_time()
        for _ in range(games):
            ai.play_game(start, model, rng)
        games_s = time.process_time() - began
        figures[difficulty] = {
            "games_per_s": round(games / games_s),
            "games_per_s_with_table": round(games / (games_s + table_s)),
            "table_s": round(table_s, 3),
            "ok": games / games_s >= TARGET,
        }
    return figures


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
