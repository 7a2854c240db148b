"""Miams in the history: a finished game's summary and the stats against Arthur per
difficulty, read from the journal's summaries."""

from __future__ import annotations

from typing import Any

from companion.contract.facts import UNNAMED, Line, Read, Seat, Stats, Summary
from companion.contract.rules import Action
from companion.ui.words import played

from .rules import KEY


def summarise(final: dict[str, Any], setup: Action) -> Summary:
    """"Arthur 74 – you 61, Munchies"; Arthur's seat is the box's (a bot), and he starts: "The
    AI plays first." (rules/miams.txt, the solo game)."""
    name = setup.get("name") if isinstance(setup.get("name"), str) and setup.get("name") else None
    you = final.get("player", {}).get("score")
    arthur = final.get("arthur", {}).get("score")
    won = final.get("winner") == "player"
    seats = (Seat(name or UNNAMED, you, won),
             Seat("Arthur", arthur, not won, start=True, bot=True))
    difficulty = str(final.get("difficulty", "")).capitalize()
    first, second = ((name or "you", you), ("Arthur", arthur)) if won else (
        ("Arthur", arthur), (name or "you", you))
    headline = f"{first[0]} {first[1]} – {second[0]} {second[1]}, {difficulty}"
    short = f"{'won' if won else 'lost'} {you}-{arthur}"  # the OLED font has no en dash
    return Summary(seats, headline, short, won, final.get("difficulty"))


def lines(read: Read, name: str | None = None) -> list[Line]:
    """Miams against Arthur per difficulty: games, win rate, best score."""
    who, args = ("AND name = ?", (KEY, name)) if name else ("", (KEY,))
    rows = read(
        "SELECT variant, COUNT(*), SUM(winner), MAX(score) FROM summary_players "
        f"WHERE bot = 0 AND game = ? {who} GROUP BY variant", args)
    order = {"snacking": 0, "lunch": 1, "munchies": 2}
    out = []
    for difficulty, games, wins, best in sorted(rows, key=lambda r: order.get(r[0], 9)):
        label = f"{'  ' if name else ''}{str(difficulty).capitalize()}"
        out += played(label, games, wins, "    " if name else "  ")
        if not name:
            out.append(Line("  best score", str(best)))
    return out


def player(read: Read, name: str, average: float | None) -> list[Line]:
    """Under a player's Miams games: their record per difficulty."""
    return lines(read, name)


STATS = Stats("vs Arthur", lines, player)
