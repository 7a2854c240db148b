"""``companion simulate miams``: whole solo games headless, win rates and scores as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from companion.games.miams import player_model
from companion.games.miams.rules import DIFFICULTIES, SETUP_COLUMN
from companion.games.miams.sheet import TIES

MAX_GAMES = 10_000_000  # per difficulty: hours on a Pi, and far past any figure's precision


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play many solo games headless and print win rates as JSON",
        description="Play Arthur the Insatiable (the box's rules, stand-in sheet and tile) against "
        "the simple player model documented in docs/miams.md, and print the player's and "
        "Arthur's win rates and score distributions as JSON.",
    )
    parser.add_argument("game", choices=["miams"], help="the game to simulate (miams)")
    parser.add_argument("--games", type=int, default=10_000, help="games to play (default 10000)")
    parser.add_argument("--difficulty", default="all", choices=[*DIFFICULTIES, "all"],
                        help="Arthur's difficulty, or all three (default)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--tie", default="top", choices=TIES,
                        help="ruling: highest least advanced skewer on a tie (default top)")
    parser.add_argument("--setup-column", default="counts", choices=SETUP_COLUMN,
                        help="ruling: setup crosses and the first-column stars (default counts)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not 1 <= args.games <= MAX_GAMES:
        print(f"companion simulate: --games: 1 to {MAX_GAMES:,}", file=sys.stderr)
        return 2
    levels = list(DIFFICULTIES) if args.difficulty == "all" else [args.difficulty]
    out = {
        "game": "miams", "seed": args.seed, "player_model": "docs/miams.md#simulation",
        "rulings": {"tie": args.tie, "setup_column": args.setup_column},
        "difficulties": {
            level: player_model.report(
                player_model.simulate(args.games, level, args.seed, args.tie, args.setup_column))
            for level in levels
        },
    }
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0
