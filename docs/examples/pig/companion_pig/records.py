"""Pig in the history and on the phone: a finished game's summary, its stats (wins and the
best score per player) and the Live page's facts, all plain data the box shows as it is."""

from __future__ import annotations

from typing import Any

from companion.contract.facts import Line, LiveView, Read, Seat, Stats, Summary
from companion.contract.rules import Action, Rules
from companion.ui.words import played

from .rules import KEY, PigState, summary


def summarise(final: dict[str, Any], setup: Action) -> Summary:
    """"Ana 104 – Ben 61": the scores, high to low; the winner first."""
    seats = tuple(Seat(p["name"], p["score"], p["name"] == final.get("winner"), start=i == 0)
                  for i, p in enumerate(final.get("players", ())))
    ranked = sorted(seats, key=lambda seat: -(seat.score or 0))
    headline = " – ".join(f"{seat.name} {seat.score}" for seat in ranked)
    return Summary(seats, headline, f"{ranked[0].name} {ranked[0].score}" if ranked else "-")


def lines(read: Read) -> list[Line]:
    """Per player: games, wins and their best score."""
    out: list[Line] = []
    for name, games, wins, best in read(
            "SELECT name, COUNT(*), SUM(winner), MAX(score) FROM summary_players "
            "WHERE game = ? GROUP BY name ORDER BY SUM(winner) DESC, name", (KEY,)):
        out += [*played(name, games, wins), Line("  best score", str(best))]
    return out


STATS = Stats("wins", lines)


def live(state: PigState, game: Rules[PigState], actions: list[tuple[Action, float | None]]
         ) -> dict[str, Any]:
    """The facts the phone's Live page lists, in order: every score, whose turn, the pot."""
    facts: dict[str, Any] = dict(zip(state.players, state.scores, strict=True))
    final = summary(state)
    if final["winner"]:
        facts["Winner"] = final["winner"]
    elif state.started:
        facts["Turn"] = final["turn"]
        facts["Pot"] = state.pot
        facts["Last roll"] = state.last if state.last is not None else "–"
    facts["Target"] = state.target
    return {"facts": facts}


LIVE = LiveView(live)
