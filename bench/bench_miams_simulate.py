"""Full Miams solo games per second on one core (target: 10,000). Prints JSON.

Timed in process CPU time (one core, whatever else the machine runs). The player model's dice
table is sampled once per run and timed apart from the games. The games of each difficulty are
played in several windows: ``games_per_s`` is the best window, as timeit does (other processes
on a shared machine only ever slow a window down), ``median_games_per_s`` the median one.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
import timeit

from companion.games.miams import player_model

TARGET = 10_000


def main(games: int = 20_000, seed: int = 1, windows: int = 5) -> dict[str, object]:
    # How fast this core runs plain Python (a recent desktop core: about 8-10 µs), so figures
    # from different machines can be compared.
    calibration = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    figures: dict[str, object] = {"benchmark": "miams_simulate", "games": games, "windows": windows,
                                  "target_per_s": TARGET, "python": sys.version.split()[0],
                                  "calibration_sum_range_1000_us": round(calibration, 1)}
    per_window = games // windows
    for difficulty in ("snacking", "lunch", "munchies"):
        rng = random.Random(seed)
        start = player_model.start_state(difficulty)
        began = time.process_time()
        model = player_model.PlayerModel(start.options.sheet, rng)
        table_s = time.process_time() - began
        rates = []
        for _ in range(windows):
            began = time.process_time()
            for _ in range(per_window):
                player_model.play_game(start, model, rng)
            rates.append(per_window / (time.process_time() - began))
        best = max(rates)
        figures[difficulty] = {
            "games_per_s": round(best),
            "median_games_per_s": round(statistics.median(rates)),
            "games_per_s_with_table": round(games / (games / best + table_s)),
            "table_s": round(table_s, 3),
            "ok": best >= TARGET,
        }
    return figures


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
