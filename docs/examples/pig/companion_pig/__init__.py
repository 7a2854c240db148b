"""Pig for Table Companion: roll as often as you dare, hold to bank your turn, bust on a 1;
the first to 100 wins. Everything the box knows about the game is named here."""

from __future__ import annotations

from companion.config import Field, between
from companion.contract.spec import GameSpec, Lazy

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

SPEC = GameSpec.from_rules(
    rules.KEY, "Pig", rules,
    new_game=Lazy(f"{__name__}.screens:SetupScreen"),
    play=Lazy(f"{__name__}.screens:PlayScreen"),
    config=CONFIG, walk=WALK, summarise=records.summarise, stats=records.STATS, live=records.LIVE,
)
