"""History benchmark: the history list's and the stats screens' queries on a journal of
10,000 recorded games (generated: the three example games with other names, scores and
results), opening that journal read-only (checked, as the CLI does; unchecked, as the
screens do), the phone's "Log in BG Stats" links of a history page (100 games) and the whole
journal exported as a BG Stats play file and as CSV. Prints JSON.

    python bench/bench_history.py [--games 10000] [--runs 20]

Targets: history_list_ms and stats_ms < 50 (the median of the runs); page_links_ms < 200.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.games.catalog import GAMES  # noqa: E402
from companion.journal.journal import Journal  # noqa: E402
from companion.journal.store import Op, commit  # noqa: E402
from companion.records.bgstats import add_play_link, play_file_text  # noqa: E402
from companion.records.export import plays, to_csv  # noqa: E402
from companion.records.history import Book, open_book  # noqa: E402
from companion.records.store import import_statements, save_statements  # noqa: E402
from companion.ui.words import player_lines  # noqa: E402

EXAMPLES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}
NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou")


def examples() -> dict[str, tuple[list, dict]]:
    out = {}
    for key, name in EXAMPLES.items():
        lines = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8").splitlines()
        actions = [json.loads(t) for t in lines if t.strip() and not t.startswith("#")]
        spec = GAMES[key]
        out[key] = (actions, spec.rules.summary(spec.rules.replay(actions)))
    return out


def varied(key: str, final: dict, rng: random.Random) -> dict:
    """The example's final state with other names, scores and results."""
    final = copy.deepcopy(final)
    if key == "makan":
        names = rng.sample(NAMES, len(final["players"]))
        for player, name in zip(final["players"], names, strict=True):
            player["name"] = name
            player["score"]["total"] = rng.randint(20, 80)
            rng.shuffle(player["drinks"])
        best = max(p["score"]["total"] for p in final["players"])
        final["winners"] = [p["name"] for p in final["players"] if p["score"]["total"] == best]
    elif key == "cafe":
        final["result"] = rng.choice(("won", "lost"))
        final["round"] = 3 if final["result"] == "won" else rng.randint(1, 3)
        final["setup"]["double_trouble"] = rng.random() < 0.5
    else:
        final["difficulty"] = rng.choice(("snacking", "lunch", "munchies"))
        final["player"]["score"] = rng.randint(30, 90)
        final["arthur"]["score"] = rng.randint(30, 90)
        final["winner"] = "player" if final["player"]["score"] > final["arthur"]["score"] else "arthur"
    return final


def generate(state_dir: Path, count: int, seed: int = 5) -> None:
    """A journal of ``count`` games (1 in 100 still playing), written in a few transactions."""
    rng = random.Random(seed)
    games = examples()
    journal, _ = Journal.open(state_dir)
    journal.close()
    conn = sqlite3.connect(state_dir / Journal.FILENAME, isolation_level=None)
    ops = []
    start = 1_700_000_000.0
    for game_id in range(1, count + 1):
        key = rng.choice(tuple(games))
        actions, final = games[key]
        started = start + game_id * 3600
        rows = import_statements(game_id, GAMES[key], actions, started, 1800)
        if rng.random() < 0.01:
            rows = (rows[0][0].replace("'finished'", "'playing'"), rows[0][1]), *rows[1:]
        else:
            rows += save_statements(game_id, GAMES[key], actions, varied(key, final, rng),
                                    (started + 1800, 1800.0))
        ops.append(Op("summary", rows))
        if len(ops) == 500:
            commit(conn, ops)
            ops = []
    commit(conn, ops)
    conn.close()


def timed(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        begun = time.perf_counter()
        fn()
        times.append((time.perf_counter() - begun) * 1000)
    return round(statistics.median(times), 2)


def screen_queries(book: Book) -> dict[str, Callable[[], object]]:
    """What the History screen's list and the stats screens ask the journal, by figure."""
    top = book.players()[0][0]

    def stats() -> None:
        book.players()
        player_lines(book.player_record(top), {key: spec.short for key, spec in GAMES.items()})
        for spec in GAMES.values():
            if spec.records.stats is not None:
                spec.records.stats.lines(book.read)

    return {"history_list_ms": lambda: book.games(limit=50), "stats_ms": stats}


def measure(games: int = 10_000, runs: int = 20) -> dict[str, object]:
    """The history list's and the stats screens' queries on a generated journal of ``games``."""
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = Path(tmp)
        begun = time.perf_counter()
        generate(state_dir, games)
        generated_s = time.perf_counter() - begun
        book = open_book(state_dir)
        queries = screen_queries(book)
        result = {
            "games": games,
            "journal_mb": round((state_dir / Journal.FILENAME).stat().st_size / 1e6, 1),
            "history_list_ms": timed(queries["history_list_ms"], runs),
            "stats_ms": timed(queries["stats_ms"], runs),
            "open_checked_ms": timed(lambda: open_book(state_dir).close(), max(3, runs // 4)),
            "open_screen_ms": timed(lambda: open_book(state_dir, check=False, fill=False).close(),
                                    runs),
            "page_links_ms": timed(lambda: [add_play_link(p) for p in plays(
                book, listed=[g for g in book.games(limit=100) if g.headline])], runs),
            "export_bgsplay_ms": timed(lambda: play_file_text(book), max(1, runs // 10)),
            "export_csv_ms": timed(lambda: to_csv(book), max(1, runs // 10)),
            "generate_s": round(generated_s, 1),
            "target_ms": 50,
        }
        book.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(measure(args.games, args.runs), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
