"""The Café in the history: a finished game's summary and the table's stats (rounds survived,
win rate with and without Double Trouble), read from the journal's summaries."""

from __future__ import annotations

from typing import Any

from companion.contract.facts import TABLE_SEAT, Line, Read, Seat, Stats, Summary
from companion.contract.rules import Action
from companion.ui.words import played

from .rules import KEY


def summarise(final: dict[str, Any], setup: Action) -> Summary:
    """"won in round 3" / "lost in round 2", grouped by Double Trouble or plain."""
    won = final.get("result") == "won"
    reached = int(final.get("round") or 1)
    seats = (Seat(TABLE_SEAT, None, won, start=True),)
    double = bool(final.get("setup", {}).get("double_trouble"))
    said = "won" if won else "lost"
    return Summary(seats, f"{said} in round {reached}", f"{said} R{reached}", won,
                   "double" if double else "plain", 3 if won else reached - 1)


def lines(read: Read) -> list[Line]:
    """The table's Café: games, rounds survived, win rate with and without Double Trouble."""
    rows = read("SELECT variant, COUNT(*), SUM(won), SUM(survived) FROM summaries "
                "WHERE game = ? GROUP BY variant", (KEY,))
    games, wins = sum(r[1] for r in rows), sum(r[2] for r in rows)
    survived = sum(r[3] or 0 for r in rows)
    by = {r[0]: r for r in rows}
    out = [*played("Games", games, wins),
           Line("Survived", f"{survived / games:.1f} rounds" if games else "-")]
    for variant, label in (("double", "With Double Trouble"), ("plain", "No Double Trouble")):
        row = by.get(variant)
        out += [Line(label, ""), *(played("  games", row[1], row[2], "    ") if row
                                   else [Line("  games", "none")])]
    return out


STATS = Stats("the table", lines)
