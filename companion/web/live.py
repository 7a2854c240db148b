"""What the Live page shows of the game being played, read from the journal.

The game is replayed from its actions with its own rules and read from its state and its
``summary`` (never from the box's screens), so the page says what the box says. Each game has
a function turning its state into plain data for the template.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from companion.games.base import GameSpec
from companion.games.catalog import GAMES
from companion.games.miams.sheet import SKEWER_NAMES, SKEWERS

Read = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]

TROUBLE = {
    "flip": "Double Trouble! Flip one order to its dark side.",
    "draw": "Double Trouble! All orders are dark: draw a new order, light side up.",
}


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


def live(read: Read, games: dict[str, GameSpec] = GAMES) -> dict[str, Any]:
    """The Live page's data: ``kind`` says which game's part of the template to use."""
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
        state = spec.replay(actions)
    except Exception:  # a journal from a newer release: say so rather than guess
        return {**base, "kind": "unknown"}
    base["last"] = spec.describe_action(actions[-1], state) if actions else ""
    base["describe"] = spec.describe(state)
    view = VIEWS.get(key)
    if view is None:
        return {**base, "kind": "unknown"}
    return {**base, "kind": key, **view(state, spec, [(a, at) for a, (_, at) in zip(actions, rows,
                                                                                     strict=True)])}


def _makan(state: Any, spec: GameSpec, actions: list[tuple[dict, float | None]]) -> dict[str, Any]:
    summary = spec.summary(state)
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
    return {**data, "board": _makan_board(data)}


def _cafe(state: Any, spec: GameSpec, actions: list[tuple[dict, float | None]]) -> dict[str, Any]:
    """The round clock as wall time: the box's clock readings ("at" in its actions) differ from
    wall time by a constant, read from the last action that carries one and the moment the
    journal wrote it."""
    running = state.phase == "running" and state.deadline is not None
    ends = left = None
    if running:
        stamped = [(a["at"], wall) for a, wall in actions
                   if isinstance(a.get("at"), int | float) and wall is not None]
        if stamped:
            box_at, wall_at = stamped[-1]
            ends = wall_at + (state.deadline - box_at)
        else:
            running = False
    if not running:
        left = state.remaining if state.phase in ("paused", "ready") else 0.0
    summary = spec.summary(state)
    setup = summary.get("setup", {})
    last = actions[-1][0] if actions else {}
    data = {"round": state.round, "phase": state.phase, "light": state.light,
            "dark": state.dark, "ends": ends, "left": left, "result": state.result,
            "double_trouble": bool(setup.get("double_trouble")),
            "trouble": TROUBLE.get(state.trouble, "") if last.get("type") != "setup" else "",
            "rounds": summary["rounds"], "now": time.time()}
    return {**data, "board": _cafe_board(data)}


def _miams(state: Any, spec: GameSpec, actions: list[tuple[dict, float | None]]) -> dict[str, Any]:
    if state.options is None:
        return {"rows": [], "phase": state.phase}
    sheet = state.options.sheet
    marks = state.arthur.rows
    rows = []
    for r, row in enumerate(sheet.rows):
        done = marks[r] if r < len(marks) else ""
        spaces = [{"hearts": hearts, "bonus": bonus.label(),
                   "mark": done[s] if s < len(done) else ""}
                  for s, (hearts, bonus) in enumerate(zip(row.hearts, row.bonuses, strict=True))]
        rows.append({"name": SKEWER_NAMES[row.skewer], "spaces": spaces, "end": row.end,
                     "end_mark": done[len(spaces)] if len(done) > len(spaces) else ""})
    summary = spec.summary(state)
    last = state.last
    tile = state.options.tile
    # The table's words: the tile's name of the face and the skewer it scores, never its id.
    roll_words = None if last is None else (
        f"{tile.names.get(last.face, last.face)} → {SKEWER_NAMES[SKEWERS[tile.skewer_of[last.face]]]}"
        if last.face in tile.skewer_of else tile.names.get(last.face, last.face))
    player, winner = summary.get("player", {}), summary.get("winner")
    arthur_score = summary["arthur"]["score"]
    outcome = None if winner is None else (
        f"You win: you {player.get('score')}, Arthur {arthur_score}." if winner == "player"
        else f"Arthur wins: Arthur {arthur_score}, you {player.get('score')}.")
    data = {"rows": rows, "phase": state.phase, "difficulty": state.options.difficulty,
            "hearts": state.arthur.hearts, "stars": state.arthur.stars,
            "score": arthur_score, "turns": state.turns,
            "roll": None if last is None else {"face": last.face, "source": last.source},
            "roll_words": roll_words, "outcome": outcome,
            "player": player, "winner": winner,
            "circled": sum(m.count("o") for m in marks), "describe": spec.describe(state)}
    return {**data, "board": _miams_board(data)}


def _makan_board(g: dict[str, Any]) -> dict[str, Any]:
    finished = bool(g["players"]) and g["players"][0]["total"] is not None
    columns = ["Player", "Coins", "Drinks", *(["Score"] if finished else [])]
    rows = [{"cells": [p["name"] + (" ★" if p["winner"] else ""), p["coins"], len(p["drinks"]),
                       *([p["total"]] if finished else [])], "current": p["current"]}
            for p in g["players"]]
    now = f"{g['current']}'s turn" if g["current"] else g["phase"]
    return {"facts": [("Round", g["round"]), ("Pot", g["pot"]), ("Now", now)],
            "columns": columns, "rows": rows,
            "announce": "Final scores." if finished else f"Round {g['round']}: {now}."}


def _cafe_board(g: dict[str, Any]) -> dict[str, Any]:
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


def _miams_board(g: dict[str, Any]) -> dict[str, Any]:
    player = g.get("player") or {}
    you = player.get("hearts")
    rows = [{"cells": ["Arthur", g.get("hearts", 0), g.get("stars", 0), g.get("score", 0)],
             "current": g.get("phase") == "arthur"},
            {"cells": ["You", "–" if you is None else you, player.get("stars", "–"),
                       player.get("score", "–")], "current": g.get("phase") == "player"}]
    facts = [("Turn", g.get("turns", 0)), ("Roll", g.get("roll_words") or "–")]
    return {"facts": facts, "columns": ["", "Hearts", "Stars", "Score"], "rows": rows,
            "announce": g.get("outcome") or g.get("describe", "")}


VIEWS: dict[str, Callable[[Any, GameSpec, list[tuple[dict, float | None]]], dict[str, Any]]] = {
    "makan": _makan, "cafe": _cafe, "miams": _miams,
}
