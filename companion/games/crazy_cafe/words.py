"""What the Café's actions and states say to the table: undoable or not, what undo takes
back together, the resume question, the undo toast and the replay's summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.contract.rules import Action

from .state import SIDES, CafeState


def is_undoable(action: Action) -> bool:
    """The setup, the dice rolls the table asked for, time running out and the pause at
    power-up are not taken back; the reroll of freed dice goes with its "order done".

    Undoing the setup would leave a game with no setup that no screen can show or resume; a
    roll the table asked for is what it plays on now (docs/games.md, "What undo takes back");
    before the pause at power-up the deadline was on the clock of another boot.
    """
    kind = action.get("type")
    if kind == "roll":
        return action.get("kind") == "freed"
    if kind == "pause":
        return "left" not in action
    return kind not in ("setup", "time_up")


def follow_up(action: Action, earlier: Sequence[Action]) -> str | None:
    """The steps the box adds by itself, undone with the action before them: a clock reading
    (unseen: no words) and the reroll of the dice an order freed, right after its "order
    done" (clock readings aside)."""
    kind = action.get("type")
    if kind == "clock":
        return ""
    if kind == "roll" and action.get("kind") == "freed":
        lead = next((a for a in reversed(earlier) if a.get("type") != "clock"), {})
        return "its reroll" if lead.get("type") == "order_done" else None
    return None


def describe(state: CafeState) -> str:
    """A few words for the resume question."""
    if state.phase == "finished":
        return "result"
    if state.phase == "setup":
        return "setup"
    return f"round {state.round}"


ROLL_WORDS = {"setup": "roll", "reroll": "reroll", "freed": "freed roll"}
ACTION_WORDS = {
    "setup": "setup",
    "double": "the double",
    "round_start": "round start",
    "pause": "pause",
    "resume": "resume",
    "time_up": "time up",
    "clock": "clock reading",
}


def describe_action(action: Action, state: CafeState | None = None) -> str:
    """A few words for "Undone: ..." and "Can't undo: ..." (one short line); a Café action
    says all it did, so the state it was applied to is not needed."""
    kind = action.get("type")
    side = action.get("side", "light")
    side = side if side in SIDES else "light"
    if kind == "roll":
        source = "sensor" if action.get("source") == "sensor" else "box"
        roll_kind = action.get("kind")
        return f"{source} {ROLL_WORDS.get(roll_kind, 'roll') if isinstance(roll_kind, str) else 'roll'}"
    if kind == "place":
        die = action.get("die")
        number = f" {die + 1}" if isinstance(die, int) and not isinstance(die, bool) else ""
        return f"die{number} {'placed' if action.get('placed', True) is not False else 'freed'}"
    if kind == "order_done":
        return f"{side} order done"
    if kind == "pause" and "left" in action:
        return "power cut"
    if kind in ("add_order", "remove_order"):
        return f"{'+' if kind == 'add_order' else '-'}1 {side} order"
    return ACTION_WORDS.get(kind, "step") if isinstance(kind, str) else "step"


def summary(state: CafeState) -> dict[str, Any]:
    """The game as JSON: per round what was laid out, fulfilled, carried, flipped, drawn."""
    rounds = []
    for log in state.rounds:
        rounds.append({
            "round": log.number,
            "orders_laid_out": log.laid_out,
            "fulfilled": log.fulfilled,
            "carried_to_round_3": log.carried,
            "left_open": log.left,
            "dark_flips": log.dark_flips,
            "extra_orders_drawn": log.extra_drawn,
            "corrections": log.corrections,
            "ended": log.ended or "playing",
            "time_left_s": None if log.time_left is None else round(log.time_left, 3),
            # Each reroll of the unused dice: what was read and what Double Trouble made of it.
            "rerolls": [{"dice": [i + 1 for i in r.rolled], "faces": list(r.faces),
                         "doubles": [[a + 1, b + 1] for a, b in r.doubles],
                         "new_doubles": [[a + 1, b + 1] for a, b in r.new],
                         "double_trouble": r.verdict, "light": r.light, "dark": r.dark}
                        for r in log.rerolls],
        })
    setup = state.setup
    out: dict[str, Any] = {
        "game": "cafe",
        "phase": state.phase,
        "round": state.round,
        "rounds": rounds,
        "result": state.result or None,
        "orders_left": state.rounds[-1].left if state.result else state.open_orders,
    }
    if setup is not None:
        out["setup"] = {"round_seconds": setup.round_seconds, "double_trouble": setup.double_trouble,
                        "special_menus": setup.special_menus, "dice": setup.dice}
    return out
