"""What the Live page shows of the game being played, read from the journal.

The game is replayed from its actions with its own rules and read from its state and its
``summary`` (never from the box's screens), so the page says what the box says. Each game's
spec has a ``live`` view turning its state into plain data, drawn by the template the game
ships or, without one, as the list of facts it gives.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from companion.contract.spec import GameSpec
from companion.games.catalog import GAMES

Read = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]

def current_game(read: Read) -> tuple[int, str, str] | None:
    """(id, game, status) of the game the table is looking at: the one whose action was written
    last (actions are numbered in the order written), or a newer one not yet played; abandoned
    games never. None when there is none."""
    last = read("SELECT g.id, g.game, g.status FROM actions a JOIN games g ON g.id = a.game_id "
                "WHERE g.status != 'abandoned' ORDER BY a.rowid DESC LIMIT 1", ())
    newest = read("SELECT id, game, status FROM games WHERE status != 'abandoned' "
                  "ORDER BY id DESC LIMIT 1", ())
    if last and newest and newest[0][0] > last[0][0]:
        last = newest
    found = last or newest
    return tuple(found[0]) if found else None


def live(read: Read, games: dict[str, GameSpec[Any]] = GAMES) -> dict[str, Any]:
    """The Live page's data: ``kind`` is none (no game yet), unknown (a game this release
    cannot show) or game; ``template`` names the game's own template, if it ships one."""
    found = current_game(read)
    if found is None:
        return {"kind": "none", "now": time.time()}
    game_id, key, status = found
    spec = games.get(key)
    rows = read("SELECT action, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
    actions = [json.loads(text) for text, _ in rows]
    base = {"id": game_id, "key": key, "title": spec.title if spec else key, "status": status,
            "actions": len(actions), "now": time.time()}
    if spec is None:
        return {**base, "kind": "unknown"}
    try:
        state = spec.rules.replay(actions)
    except Exception:  # a journal from a newer release: say so rather than guess
        return {**base, "kind": "unknown"}
    base["last"] = spec.rules.describe_action(actions[-1], state) if actions else ""
    base["describe"] = spec.rules.describe(state)
    view = spec.live
    if view is None:
        return {**base, "kind": "unknown"}
    stamped = [(a, at) for a, (_, at) in zip(actions, rows, strict=True)]
    return {**base, "kind": "game", "template": template_name(key) if view.template else None,
            **view.data(state, spec.rules, stamped)}


def template_name(key: str) -> str:
    """The name the page's template loader gives a game's own Live template."""
    return f"games/{key}/live.html"


def game_template(name: str, games: dict[str, GameSpec[Any]] = GAMES) -> str | None:
    """The text of the game template ``name`` (see :func:`template_name`), None if none."""
    key = name.removeprefix("games/").removesuffix("/live.html")
    spec = games.get(key)
    if spec is None or spec.live is None or spec.live.template is None:
        return None
    return spec.live.template.read_text(encoding="utf-8")
