"""The Café on the phone's Live page: the state as plain data for the game's own template
(``live.html`` beside this module), read from the rules' state and its ``summary``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from companion.contract.facts import LiveView
from companion.contract.rules import Action, Rules

from .state import CafeState

TROUBLE = {
    "flip": "Double Trouble! Flip one order to its dark side.",
    "draw": "Double Trouble! All orders are dark: draw a new order, light side up.",
}


def data(state: CafeState, game: Rules[CafeState], actions: list[tuple[Action, float | None]]
         ) -> dict[str, Any]:
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
    summary = game.summary(state)
    setup = summary.get("setup", {})
    last = actions[-1][0] if actions else {}
    data = {"round": state.round, "phase": state.phase, "light": state.light,
            "dark": state.dark, "ends": ends, "left": left, "result": state.result,
            "double_trouble": bool(setup.get("double_trouble")),
            "trouble": TROUBLE.get(state.trouble, "") if last.get("type") != "setup" else "",
            "rounds": summary["rounds"], "now": time.time()}
    return {**data, "board": _board(data)}


def _board(g: dict[str, Any]) -> dict[str, Any]:
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


VIEW = LiveView(data, Path(__file__).with_name("live.html"))
