"""3 Minute Crazy Café: the round timer, order counts, win/lose and Double Trouble."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.contract.facts import Example, Records
from companion.contract.play_facts import PlayFacts
from companion.contract.rules import Rules
from companion.contract.spec import CONTRACT, GameSpec, Lazy, Screens

from . import live, records, rules
from .options import CONFIG, TITLE

# Named screens for the walk and the golden PNGs: steps from the home menu.
_MANUAL_DT = ("game:cafe", "menu:Double", "menu:Dice", "menu:Start")
_MANUAL = ("game:cafe", "menu:Dice", "menu:Start")
_ROUND_2 = ("game:cafe", "menu:Start", "OK", "+181", "OK")
_ROUND_3 = (*_ROUND_2, "OK", "+181", "OK")
WALK: dict[str, tuple[str, ...]] = {
    "setup": ("game:cafe",),
    "setup-round-length": ("game:cafe", "menu:Round", "UP"),
    "ready": ("game:cafe", "menu:Start"),
    "ready-special-menu": ("game:cafe", "menu:Special", "menu:Start"),
    "round-1": _MANUAL,
    "timer": ("game:cafe", "menu:Start", "OK", "+65"),
    "timer-last-seconds": ("game:cafe", "menu:Start", "OK", "+172.5"),
    "timer-manual": (*_MANUAL, "OK", "+30"),
    "paused": ("game:cafe", "menu:Start", "OK", "+20", "OK"),
    "table": ("game:cafe", "menu:Start", "OK", "DOWN"),
    "dice-pick": ("game:cafe", "menu:Start", "OK", "+2", "ACTION~"),
    "dice-pick-none-ticked": ("game:cafe", "menu:Start", "OK", "+2", "ACTION~", "ACTION"),
    "double-trouble": ("game:cafe", "menu:Double", "menu:Start", "OK", "+3", "ACTION"),
    "double-trouble-manual": (*_MANUAL_DT, "OK", "+3", "ACTION"),
    "draw-new": (*_MANUAL_DT, "OK", "ACTION", "OK", "ACTION", "OK", "ACTION", "OK", "ACTION", "OK",
                 "ACTION", "OK", "ACTION"),
    "times-up": ("game:cafe", "menu:Start", "OK", "+181"),
    "round-2": _ROUND_2,
    "round-1-all-done": (*_MANUAL, "OK", "+8", *("ACTION",) * 5),
    "round-2-after-all-done": (*_MANUAL, "OK", "+8", *("ACTION",) * 5, "OK"),
    "round-2-times-up": (*_ROUND_2, "OK", "+181"),
    "round-3": _ROUND_3,
    "round-3-timer": (*_ROUND_3, "OK", "+20"),
    "round-3-times-up": (*_ROUND_3, "OK", "+181"),
    "result": ("game:cafe", "menu:Dice", "menu:Start",
               "OK", "+181", "OK", "OK", "+181", "OK", "OK", "ACTION", "ACTION", "ACTION",
               "+181", "OK"),
}



def _board(final: Mapping[str, Any]) -> str:
    return "Double Trouble" if (final.get("setup") or {}).get("double_trouble") else ""


def _rounds(final: Mapping[str, Any]) -> int:
    return int(final.get("round") or 0)


# Scoreless (and cooperative, in the spec): every seat has the table's one result.
PLAY_FACTS = PlayFacts(name="3 Minute Crazy Café", bgg_name="3 Minute Crazy Cafe",
                       bgg_year=2023, no_points=True, board=_board, rounds=_rounds,
                       variant=lambda board: "double" if board else "plain")

SPEC = GameSpec(
    contract=CONTRACT, key=rules.KEY, title=TITLE, short="Café", order=2, config=CONFIG,
    rules=Rules(
        initial_state=rules.initial_state, apply=rules.apply, is_finished=rules.is_finished,
        summary=rules.summary, describe=rules.describe, describe_action=rules.describe_action,
        is_undoable=rules.is_undoable,
        follow_up=rules.follow_up, after_undo=rules.after_undo),
    screens=Screens(
        new_game=Lazy(f"{__name__}.screens:new_game"), play=Lazy(f"{__name__}.screens:play"),
        walk=WALK, example=Example("cafe_game.jsonl", 1763812800.0, 12)),
    records=Records(summarise=records.summarise, stats=records.STATS, cooperative=True,
                    play_facts=PLAY_FACTS),
    live=live.VIEW,
    dice=("yellow", "yellow", "blue", "blue"),   # "Yellow die = dishes", "Blue die = drinks"
)
