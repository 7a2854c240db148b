"""Makan Mania on the phone's Live page: the state as plain data for the game's own template
(``live.html`` beside this module), read from the rules' state and its ``summary``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.contract.facts import LiveView
from companion.contract.rules import Action, Rules

from .rules import State


def data(state: State, game: Rules[State], actions: list[tuple[Action, float | None]]
         ) -> dict[str, Any]:
    summary = game.summary(state)
    names = [p["name"] for p in summary["players"]]
    order = list(state.queue) or sorted(
        range(len(state.players)), key=lambda i: (state.players[i].table is None,
                                                  state.players[i].table or 0, i))
    turn = (state.queue[state.turn] if state.phase == "queue" and state.turn < len(state.queue)
            else None)
    row = [{"drink": state.book.by_key[card.drink].name if card.drink in state.book.by_key
            else card.drink,
            "buyer": None if card.buyer is None else names[card.buyer],
            "private": None if card.owner is None else names[card.owner]}
           for card in state.row]
    players = []
    for i, p in enumerate(summary["players"]):
        players.append({"name": p["name"], "coins": p["coins"], "table": p["table"],
                        "drinks": p["drinks"], "current": i == turn,
                        "total": (p["score"] or {}).get("total"),
                        "winner": p["name"] in summary.get("winners", ())})
    data = {"round": summary["round"], "phase": summary["phase"], "pot": summary["pot"],
            "supply": summary["supply"], "players": players,
            "order": [names[i] for i in order], "current": None if turn is None else names[turn],
            "row": row}
    return {**data, "board": _board(data)}


def _board(g: dict[str, Any]) -> dict[str, Any]:
    finished = bool(g["players"]) and g["players"][0]["total"] is not None
    columns = ["Player", "Coins", "Drinks", *(["Score"] if finished else [])]
    rows = [{"cells": [p["name"] + (" ★" if p["winner"] else ""), p["coins"], len(p["drinks"]),
                       *([p["total"]] if finished else [])], "current": p["current"]}
            for p in g["players"]]
    now = f"{g['current']}'s turn" if g["current"] else g["phase"]
    return {"facts": [("Round", g["round"]), ("Pot", g["pot"]), ("Now", now)],
            "columns": columns, "rows": rows,
            "announce": "Final scores." if finished else f"Round {g['round']}: {now}."}


VIEW = LiveView(data, Path(__file__).with_name("live.html"))
