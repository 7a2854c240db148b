"""Pig for Table Companion: roll as often as you dare, hold to bank your turn, bust on a 1;
the first to 100 wins. Everything the box knows about the game is named here."""

from __future__ import annotations

from companion.contract.config import Field, between
from companion.contract.facts import Records
from companion.contract.rules import Rules
from companion.contract.spec import GameSpec, Lazy, Screens

from . import records, rules

# ``[games.pig]`` in the box's config file: checked at load and by ``companion doctor``.
CONFIG = {"target": Field(rules.TARGET, int, "the target score the setup offers first",
                          between(*rules.TARGETS))}

SETUP = ("game:pig",)
STARTED = (*SETUP, "menu:Start")
# Ana rolls twice and holds, Ben busts at once (rolls are drawn from the walk's seeded RNG).
WALK = {
    "setup": SETUP,
    "players": (*SETUP, "menu:Players"),
    "turn": STARTED,
    "rolled": (*STARTED, "OK", "OK"),
    "held": (*STARTED, "OK", "OK", "ACTION"),
    "scores": (*STARTED, "OK", "OK", "ACTION", "DOWN"),
}

SPEC = GameSpec(
    contract=2,     # the version of the box's plugin contract this game is written for
    key=rules.KEY, title="Pig", config=CONFIG,
    rules=Rules(
        initial_state=rules.initial_state, apply=rules.apply, is_finished=rules.is_finished,
        summary=rules.summary, describe=rules.describe, describe_action=rules.describe_action,
        is_undoable=rules.is_undoable),
    screens=Screens(new_game=Lazy(f"{__name__}.screens:SetupScreen"),
                    play=Lazy(f"{__name__}.screens:PlayScreen"), walk=WALK),
    records=Records(summarise=records.summarise, stats=records.STATS),
    live=records.LIVE,
)
