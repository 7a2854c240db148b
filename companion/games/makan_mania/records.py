"""Makan Mania in the history: a finished game's summary and its stats (average scores and
the drinks people buy), read from the journal's summaries."""

from __future__ import annotations

from typing import Any

from companion.contract.facts import Line, Read, Seat, Stats, Summary
from companion.contract.rules import Action

from .rules import KEY


def summarise(final: dict[str, Any], setup: Action) -> Summary:
    """Scores high to low: "Ana 31 – Ben 27 – Cai 19"; each seat keeps the drinks bought."""
    winners = set(final.get("winners", ()))
    seats = tuple(
        Seat(p["name"], (p.get("score") or {}).get("total"), p["name"] in winners, start=i == 0,
             items=tuple(p.get("drinks", ())))
        for i, p in enumerate(final.get("players", ())))
    ranked = sorted(seats, key=lambda s: -(s.score or 0))
    headline = " – ".join(f"{s.name} {s.score}" for s in ranked)
    short = f"{ranked[0].name} {ranked[0].score}" if ranked else "-"
    return Summary(seats, headline, short)


def lines(read: Read) -> list[Line]:
    """Per Makan player: average score and the drink they bought most."""
    out = []
    for name, average in read(
            "SELECT name, AVG(score) FROM summary_players WHERE bot = 0 AND game = ? "
            "GROUP BY name ORDER BY AVG(score) DESC", (KEY,)):
        drink = top_drink(read, name)
        out.append(Line(name, f"average {round(average or 0)}"))
        if drink:
            out.append(Line("  drink", drink))
    return out


def top_drink(read: Read, name: str) -> str | None:
    """The drink ``name`` bought most in Makan Mania (the first by name on a tie)."""
    row = read("SELECT item FROM summary_items WHERE name = ? GROUP BY item "
               "ORDER BY COUNT(*) DESC, item LIMIT 1", (name,))
    return row[0][0] if row else None


def player(read: Read, name: str, average: float | None) -> list[Line]:
    """Under a player's Makan games: their average and favourite drink."""
    drink = top_drink(read, name)
    out = [Line("  average", str(round(average or 0)))]
    return out + ([Line("  drink", drink)] if drink else [])


STATS = Stats("scores", lines, player, title="Makan Mania: scores")
