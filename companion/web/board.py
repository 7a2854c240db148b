"""The table view's scoreboard: one game-neutral board that a tablet or a TV shows full width
(an optional big clock, a few big facts, one row per player, a notice, and the sentence a
screen reader announces when the turn changes, never the ticking clock).

Each game's Live data (a plain dict, :mod:`.live`) carries its own ``board``; a game without
one shows the ``facts`` its data gives, as big facts.
"""

from __future__ import annotations

from typing import Any

Board = dict[str, Any]


def board(data: dict[str, Any]) -> Board:
    """The scoreboard of the Live data ``data`` (no game, or one this release cannot show: an
    empty board)."""
    base: Board = {"title": data.get("title", ""), "status": data.get("status", ""),
                   "clock": None, "facts": [], "columns": [], "rows": [], "announce": "",
                   "notice": ""}
    if data.get("kind") in ("none", "unknown"):
        return base
    made = data.get("board") or {"facts": list((data.get("facts") or {}).items()),
                                 "announce": data.get("describe", "")}
    return {**base, **made}
