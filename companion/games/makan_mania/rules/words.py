"""What Makan Mania's actions and states say to the table: the resume question, the undo toast
and the replay's summary."""

from __future__ import annotations

from typing import Any

from companion.contract.rules import Action

from .state import DICE_PER_PLAYER, State, _name, current, free_tables, pending_jump, winners


def describe(state: State) -> str:
    if state.phase == "over":
        return "finished"
    if state.phase == "scoring":
        return "final scoring"
    if state.phase == "reveal" and state.round > 1:  # the screen's scoreboard: "After R2"
        return f"after round {state.round - 1}"
    return f"round {state.round}"


def describe_action(action: Action, state: State) -> str:
    """Who did what, e.g. "Ben bought Cola", for "Undone: ..."; ``state`` is the one the action
    was applied to (whose turn it was, what the slot held)."""
    kind = action.get("type")
    if kind == "seat":
        table = action.get("table")
        if table is None and state.phase == "rush":
            table = free_tables(state)[0]  # the last player still rolling takes the last one
        return f"{_name(state, action.get('player'))} at Table {table}"
    if kind == "jump":
        jump = pending_jump(state)
        who = _name(state, jump and jump[0])
        return f"{who}'s jump to {jump[1]}" if jump and action.get("go") else f"{who}: no jump"
    if kind == "buy":
        slot = action.get("slot")
        card = state.row[slot] if type(slot) is int and 0 <= slot < len(state.row) else None
        drink = state.book.by_key[card.drink].name if card else "a drink"
        return f"{_name(state, current(state))} bought {drink}"
    if kind == "end_turn":
        return f"end of {_name(state, current(state))}'s turn"
    if kind == "score":
        return f"{_name(state, action.get('player'))}'s score"
    return _ACTION_WORDS.get(kind, "a step") if isinstance(kind, str) else "a step"


_ACTION_WORDS = {"setup": "game setup", "reveal": "drinks entered", "deal": "drinks dealt"}


def summary(state: State) -> dict[str, Any]:
    """The state as JSON: coins, pot, seats, drinks and scores."""
    return {
        "round": state.round,
        "phase": state.phase,
        "pot": state.pot,
        "supply": None if state.options.coin_supply == 0 else state.supply,
        "options": state.options.as_dict(),
        "stand_in_values": list(state.stand_in),
        "players": [
            {
                "name": p.name, "tray": p.tray, "ability": p.ability, "coins": p.coins,
                "table": p.table, "drinks": [state.book.by_key[k].name for k in p.drinks],
                "score": None if p.score is None else {**dict(p.score), "total": p.total},
            }
            for p in state.players
        ],
        "winners": [state.players[i].name for i in winners(state)],
        "bonus_dice": bonus_dice(state),
    }


def bonus_dice(state: State) -> list[dict[str, Any]]:
    """Per round from the second, who holds Table 88's bonus dice ("Gain 1 bonus die for the
    next round only") and their use: the dice rolled in the Rush with them, and the unplaced
    dice brought to the Queue (None while the holder is still rolling)."""
    out = [{"round": b.round, "holder": state.players[b.player].name, "dice": b.dice,
            "dice_rolled": DICE_PER_PLAYER + b.dice, "unplaced_to_queue": b.unplaced}
           for b in state.bonus_log]
    seated = {(b.round, b.player) for b in state.bonus_log}
    out += [{"round": state.round, "holder": p.name, "dice": p.bonus,
             "dice_rolled": DICE_PER_PLAYER + p.bonus, "unplaced_to_queue": None}
            for i, p in enumerate(state.players) if p.bonus and (state.round, i) not in seated]
    return out

