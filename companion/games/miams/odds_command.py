"""``companion odds miams``: the exact chance of each skewer for the best keeps of a Miams roll."""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction
from typing import Any

from companion.games.miams.odds import (
    MAX_REROLLS,
    Keep,
    Odds,
    Pick,
    percent,
    table,
)
from companion.games.miams.odds_search import MAX_HEARTS, Weights
from companion.games.miams.sheet import SKEWER_NAMES, SKEWERS
from companion.ui.words import plural
from firmware_bridge.faces import RED, WHITE

EXAMPLE = "fruit1,fruit1,fruit3,cross,fruit5"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "odds", help="exact odds of each skewer for every keep of a Miams roll",
        description="For the dice showing and the rerolls left, print the chance of each Miams "
        "skewer with the keep that makes it likeliest, and the overall best keep (docs/miams.md, "
        "Coach). Every later reroll keeps what is best for the skewer in question.",
    )
    parser.add_argument("game", choices=["miams"], help="the game (miams)")
    parser.add_argument("--dice", help=f"the five white dice, comma-separated: {', '.join(WHITE)} "
                        f"(e.g. {EXAMPLE})")
    parser.add_argument("--red", help=f"the red die, when its token was spent: {', '.join(RED)}")
    parser.add_argument("--rerolls", default="1",
                        help="rerolls left: 1, plus one per reroll token you will spend (default 1)")
    parser.add_argument("--hearts", help="your sheet: the hearts of the next free space of each row, "
                        "Pair to Yums, comma-separated (default: only the chances count)")
    parser.add_argument("--cross-cost", help="with --hearts: what each cross given to Arthur costs you, "
                        "in hearts (e.g. 1 or 0.5; default 0)")
    parser.add_argument("--json", action="store_true", help="print JSON with exact fractions")
    parser.set_defaults(handler=handle)


def _weights(args: argparse.Namespace) -> Weights | None:
    """The sheet options as Weights, or None; ValueError with the option's name."""
    if args.hearts is None:
        if args.cross_cost is not None:
            raise ValueError("--cross-cost needs --hearts (your next space's hearts per row)")
        return None
    parts = args.hearts.split(",")
    if len(parts) != len(SKEWERS) or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--hearts: six whole numbers 0-{MAX_HEARTS}, Pair to Yums, e.g. 2,3,4,5,6,8")
    try:
        cost = Fraction(args.cross_cost or "0")
    except ValueError:
        raise ValueError(f"--cross-cost: {args.cross_cost!r} is not a number of hearts") from None
    return Weights(tuple(int(p) for p in parts), cost)


def _position(args: argparse.Namespace) -> tuple[list[str], str | None, int, Weights | None]:
    if not args.dice:
        raise ValueError(f"give the five white dice, e.g. --dice {EXAMPLE}")
    white = [face.strip() for face in args.dice.split(",")]
    if not args.rerolls.strip().isdigit():
        raise ValueError(f"--rerolls {args.rerolls!r}: rerolls left: 0 to {MAX_REROLLS}")
    return white, args.red, int(args.rerolls), _weights(args)


def handle(args: argparse.Namespace) -> int:
    try:
        white, red, rerolls, weights = _position(args)
        odds = table(white, red, rerolls, weights)
    except ValueError as exc:
        print(f"companion odds: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(to_json(odds, weights), sys.stdout, indent=2)
        print()
    else:
        print(to_text(odds, weights is not None))
    return 0


def _exact(value: Fraction) -> str:
    return str(value)


def _keep(keep: Keep) -> dict[str, Any]:
    return {"white": list(keep.white), "red": keep.red}


def _pick(pick: Pick) -> dict[str, Any]:
    return {"keep": _keep(pick.keep), "chance": _exact(pick.chance), "crosses": _exact(pick.crosses),
            "value": _exact(pick.value)}


def to_json(odds: Odds, weights: Weights | None) -> dict[str, Any]:
    """The table as JSON: every number an exact fraction as text ("95/216")."""
    return {
        "game": "miams", "white": list(odds.white), "red": odds.red, "rerolls": odds.rerolls,
        "hearts": list(weights.hearts) if weights else None,
        "cross_cost": _exact(weights.cross_cost) if weights else None,
        "now": list(odds.now),
        "skewers": {
            skewer: {**_pick(pick), "percent": round(float(pick.chance) * 100, 2),
                     "at_least": _exact(odds.line(pick.keep).at_least[i])}
            for i, (skewer, pick) in enumerate(odds.best.items())
        },
        "best": _pick(odds.overall),
        "keeps": [
            {"keep": _keep(line.keep),
             "available": {s: _exact(c) for s, c in zip(SKEWERS, line.available, strict=True)},
             "at_least": {s: _exact(c) for s, c in zip(SKEWERS, line.at_least, strict=True)},
             "crosses": _exact(line.crosses), "value": _exact(line.value)}
            for line in odds.lines
        ],
    }


def _rerolled(odds: Odds, keep: Keep) -> int:
    return len(odds.white) + (odds.red is not None) - len(keep.white) - keep.red


def to_text(odds: Odds, weighted: bool) -> str:
    """A table a person reads: per skewer the chance with its best keep, then the best keep."""
    red = f" + red {odds.red}" if odds.red else ""
    left = f"{plural(odds.rerolls, 'reroll')} left"
    out = [f"Dice: {' '.join(odds.white)}{red} · {left}",
           f"Now: {', '.join(SKEWER_NAMES[s] for s in odds.now) or 'no skewer'}",
           "",
           f"{'skewer':<16} {'chance':>7} {'or better':>9}{'  value' if weighted else ''}  "
           "best keep for it"]
    for i, (skewer, pick) in enumerate(odds.best.items()):
        at_least = odds.line(pick.keep).at_least[i]
        value = f" {float(pick.value):>6.2f}" if weighted else ""
        out.append(f"{SKEWER_NAMES[skewer]:<16} {percent(pick.chance):>7} {percent(at_least):>9}{value}  "
                   f"{pick.keep.label(odds.red)} (reroll {_rerolled(odds, pick.keep)})")
    best = odds.overall
    worth = f"value {float(best.value):.2f} hearts" if weighted else f"any skewer {percent(best.chance)}"
    out += ["", f"Best keep: {best.keep.label(odds.red)} (reroll {_rerolled(odds, best.keep)}) · "
                f"{worth} · crosses {float(best.crosses):.2f}"]
    return "\n".join(out)
