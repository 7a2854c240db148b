"""Miams on the phone's Live page: the state as plain data for the game's own template
(``live.html`` beside this module), read from the rules' state and its ``summary``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.contract.facts import LiveView
from companion.contract.rules import Action, Rules

from .rules import State
from .sheet import SKEWER_NAMES, SKEWERS


def data(state: State, game: Rules[State], actions: list[tuple[Action, float | None]]
         ) -> dict[str, Any]:
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
    summary = game.summary(state)
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
            "circled": sum(m.count("o") for m in marks), "describe": game.describe(state)}
    return {**data, "board": _board(data)}


def _board(g: dict[str, Any]) -> dict[str, Any]:
    player = g.get("player") or {}
    you = player.get("hearts")
    rows = [{"cells": ["Arthur", g.get("hearts", 0), g.get("stars", 0), g.get("score", 0)],
             "current": g.get("phase") == "arthur"},
            {"cells": ["You", "–" if you is None else you, player.get("stars", "–"),
                       player.get("score", "–")], "current": g.get("phase") == "player"}]
    facts = [("Turn", g.get("turns", 0)), ("Roll", g.get("roll_words") or "–")]
    return {"facts": facts, "columns": ["", "Hearts", "Stars", "Score"], "rows": rows,
            "announce": g.get("outcome") or g.get("describe", "")}


VIEW = LiveView(data, Path(__file__).with_name("live.html"))
