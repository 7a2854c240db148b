"""The table view's scoreboard: each game's Live data (a plain dict, :mod:`.live`) turned into
one game-neutral board that a tablet or a TV shows full width: an optional big clock, a few
big facts, one row per player, and the sentence a screen reader announces when the turn
changes (never the ticking clock).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Board = dict[str, Any]


def board(data: dict[str, Any]) -> Board:
    """The scoreboard of the Live data ``data`` (``kind`` none or unknown: an empty board)."""
    make = BOARDS.get(data.get("key", ""))
    base: Board = {"title": data.get("title", ""), "status": data.get("status", ""),
                   "clock": None, "facts": [], "columns": [], "rows": [], "announce": "",
                   "notice": ""}
    if make is None or data.get("kind") in ("none", "unknown"):
        return base
    return {**base, **make(data)}


def _makan(g: dict[str, Any]) -> Board:
    finished = bool(g["players"]) and g["players"][0]["total"] is not None
    columns = ["Player", "Coins", "Drinks", *(["Score"] if finished else [])]
    rows = [{"cells": [p["name"] + (" ★" if p["winner"] else ""), p["coins"], len(p["drinks"]),
                       *([p["total"]] if finished else [])], "current": p["current"]}
            for p in g["players"]]
    now = f"{g['current']}'s turn" if g["current"] else g["phase"]
    return {"facts": [("Round", g["round"]), ("Pot", g["pot"]), ("Now", now)],
            "columns": columns, "rows": rows,
            "announce": f"Round {g['round']}: {now}." if g["status"] != "finished" else
            "Final scores."}


def _cafe(g: dict[str, Any]) -> Board:
    if g["result"]:
        said = f"Game {g['result']}"
    elif g["phase"] == "running":
        said = f"Round {g['round']} of 3"
    else:
        said = f"Round {g['round']}: {'paused' if g['phase'] == 'paused' else 'ready'}"
    return {"clock": {"ends": g["ends"], "left": g["left"], "now": g["now"]},
            "facts": [("Round", f"{g['round']} of 3"), ("Light orders", g["light"]),
                      ("Dark orders", g["dark"])],
            "announce": said + ".", "notice": g["trouble"]}


def _miams(g: dict[str, Any]) -> Board:
    player = g.get("player") or {}
    you = player.get("hearts")
    rows = [{"cells": ["Arthur", g.get("hearts", 0), g.get("stars", 0), g.get("score", 0)],
             "current": g.get("phase") == "arthur"},
            {"cells": ["You", "–" if you is None else you, player.get("stars", "–"),
                       player.get("score", "–")], "current": g.get("phase") == "player"}]
    facts = [("Turn", g.get("turns", 0)), ("Roll", g.get("roll_words") or "–")]
    return {"facts": facts, "columns": ["", "Hearts", "Stars", "Score"], "rows": rows,
            "announce": g.get("outcome") or g.get("describe", "")}


BOARDS: dict[str, Callable[[dict[str, Any]], Board]] = {
    "makan": _makan, "cafe": _cafe, "miams": _miams,
}
