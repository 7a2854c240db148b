"""Full Miams solo games per second on one core (target: 10,000). Prints JSON.

Timed in process CPU time (one core, whatever else the machine runs). The player model's dice
table is built at the start of each window and counted in it, as every ``companion simulate``
run builds it. The games of each difficulty are played in several windows: ``games_per_s`` is
the median window, with the slowest and fastest beside it; ``table_s`` is the model's build.
"""

from __future__ import annotations

import argparse
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
        rates, tables = [], []
        for _ in range(windows):
            # Each window builds its player model, as every `companion simulate` run does.
            began = time.process_time()
            model = player_model.PlayerModel(start.options.sheet, rng)
            tables.append(time.process_time() - began)
            for _ in range(per_window):
                player_model.play_game(start, model, rng)
            rates.append(per_window / (time.process_time() - began))
        median = statistics.median(rates)
        figures[difficulty] = {
            "games_per_s": round(median),
            "min_games_per_s": round(min(rates)),
            "max_games_per_s": round(max(rates)),
            "table_s": round(statistics.median(tables), 3),
            "ok": median >= TARGET,
        }
    return figures


def cli(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 games instead of 20,000")
    parser.add_argument("--json", action="store_true", help="one JSON object on one line")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    figures = main(2_000 if args.quick else 20_000, args.seed)
    print(json.dumps(figures, indent=None if args.json else 2))


if __name__ == "__main__":
    cli()
