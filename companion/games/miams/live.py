"""Miams on the phone's Live page: the state as plain data for the game's own template
(``live.html`` beside this module), read from the rules' state and its ``summary``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.contract.facts import LiveView
from companion.contract.rules import Action

from .sheet import SKEWER_NAMES


def data(state: Any, spec: Any, actions: list[tuple[Action, float | None]]) -> dict[str, Any]:
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
    return {"rows": rows, "phase": state.phase, "difficulty": state.options.difficulty,
            "hearts": state.arthur.hearts, "stars": state.arthur.stars,
            "score": summary["arthur"]["score"], "turns": state.turns,
            "roll": None if last is None else {"face": last.face, "source": last.source},
            "player": summary.get("player", {}), "winner": summary.get("winner"),
            "circled": sum(m.count("o") for m in marks)}


VIEW = LiveView(data, Path(__file__).with_name("live.html"))
