"""Makan Mania referee: table order, the Queue, the coin ledger and final scoring."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.contract.config import Field, one_of
from companion.contract.facts import Example, Records
from companion.contract.play_facts import PlayFacts, bgg_id_field
from companion.contract.rules import Rules
from companion.contract.spec import CONTRACT, GameSpec, Lazy, Screens

from . import data, doctor, live, records, rules

# What each house reading means; the choices and defaults come from rules.Options.
_MEANING = {
    "push": "a jump moves everyone it passes one table (shift) or only trades seats with the "
            "target table (swap)",
    "discount": "a dice discount is one total for the turn's purchases (pool) or applies to each "
                "drink (each)",
    "new_drinks": "a bought Bandung/Ice Kachang/Milo Dino/Chendol acts from the next Queue "
                  "(next_queue) or at once (at_once)",
    "double_88": "the doubling tray at Table 88 doubles the pot coin, bonus die and round-5 pot "
                 "(all), only the bonus die (dice), or nothing (none)",
}
_DEFAULTS = rules.Options()
CONFIG = {
    **{key: Field(getattr(_DEFAULTS, key), str, meaning, one_of(*rules.Options.CHOICES[key]))
       for key, meaning in _MEANING.items()},
    "coin_supply": rules.COIN_SUPPLY,
    "trays": Field("", str, "a trays file checked against your tray cards (empty: the stand-in "
                   "shipped with the box; see docs/makan_mania.md)"),
    "drinks": Field("", str, "a drinks file checked against your drink cards and deck (empty: "
                    "the shipped one)"),
    "bgg_id": bgg_id_field(0),  # not known to this release: see docs/history.md
}


def _rounds(final: Mapping[str, Any]) -> int:
    return int(final.get("round") or 0)


PLAY_FACTS = PlayFacts(bgg_name="Makan Mania", bgg_year=2024, rounds=_rounds)


def _walk() -> dict[str, tuple[str, ...]]:
    """Named screens: a 4-player game with drinks entered by hand, default trays."""
    setup = ("game:makan",)
    start = (*setup, "OK")
    # Open, then Cola, Bandung, Milo Dino, Kopi O and the private Teh O (list order of drinks.toml).
    enter = ("OK", *("DOWN",) * 7, "OK", "DOWN", "DOWN", "OK", *("DOWN",) * 4, "OK", "OK", "DOWN", "OK")
    # Seats in sitting order: Ana T1 with 2 dice, Ben T2 1 die, Cai T3, Dee (last) T88 3 dice.
    seats = ("OK", "OK", "OK", "UP", "UP", "OK",
             "OK", "OK", "OK", "UP", "OK",
             "OK", "OK", "OK", "OK",
             "OK", "UP", "UP", "UP", "OK")
    rush = (*start, *enter)
    jumps = (*rush, *seats)
    queue = (*jumps, "OK", "OK")              # Ana (red) jumps from Table 1 to 88; trays moved
    # Each ◆ a second after the turn came up; OK closes "take N coins for unspent dice" after
    # Ben (1 die), Dee (3 dice) and Ana (2 dice); Cai spent all.
    to_ana = ("+1", "ACTION", "OK", "+1", "ACTION", "+1", "ACTION", "OK")
    turns = (*to_ana, "+1", "ACTION", "OK")
    round_1 = (*queue, *turns)
    later = ("+3", "OK", *("OK",) * 6, *seats, "OK", "OK", *turns)   # rounds 2-5, no buys
    scoring = (*round_1, *later * 4, "+3")
    # Food points by UP presses: Ana 12, Ben 9, then Cai 15 and Dee 9.
    first_two = ("OK", *("UP",) * 12, "OK", "DOWN", "OK", *("UP",) * 9, "OK")
    final = (*scoring, *first_two, "DOWN", "OK", *("UP",) * 15, "OK", "DOWN", "OK", *("UP",) * 9, "OK")
    return {
        "setup": setup,
        "setup-trays": (*setup, "menu:Trays"),
        "names": (*setup, "menu:Names"),
        "name-pick": (*setup, "menu:Names", "OK"),
        # "New name…" (UP from the top), then M, o and the wheel turned to e: "Mo[e]"
        "name-wheel": (*setup, "menu:Names", "OK", "UP", "OK", *("DOWN",) * 12, "OK",
                       *("DOWN",) * 14, "OK", *("DOWN",) * 4),
        "round-start": start,
        "reveal-drink": (*start, "OK"),
        "rush": (*rush, "OK", "OK", "OK", "UP", "UP", "OK"),
        "rush-who": (*rush, "OK"),
        "rush-deal": (*setup, "menu:Drinks", "menu:Start", "OK"),
        "rush-table": (*rush, "OK", "OK"),
        "jumps": jumps,
        "jump-to-1": (*jumps, "ACTION"),         # Ana stays; Ben (black, Table 2) may jump
        "jump-moves": (*jumps, "OK"),            # who moves to which table, and Ana's 4 coins
        "tch": (*jumps, "ACTION", "OK"),
        "queue": queue,                          # Ben's turn at Table 1
        "queue-drinks": (*queue, "DOWN"),
        "queue-pay": (*queue, "DOWN", "DOWN", "OK"),     # Bandung: 1 die or 1 coin
        "queue-88": (*queue, *to_ana, "+3"),   # Ana at Table 88
        "scoreboard": (*round_1, "+3"),
        "scoring": (*scoring, *first_two, "+3"),
        "score-food": (*scoring, "OK", "UP", "UP"),
        "final": (*final, "+3"),
        "breakdown": (*final, "OK"),
    }


SPEC = GameSpec(
    contract=CONTRACT, key=rules.KEY, title="Makan Mania", short="Makan", order=1, config=CONFIG,
    rules=Rules(
        initial_state=rules.initial_state, apply=rules.apply, is_finished=rules.is_finished,
        summary=rules.summary, describe=rules.describe, describe_action=rules.describe_action,
        is_undoable=rules.is_undoable, replay_all=rules.replayer()),
    screens=Screens(
        new_game=Lazy(f"{__name__}.screens:new_game"), play=Lazy(f"{__name__}.screens:play"),
        walk=_walk(), example=Example("makan_4p.jsonl", 1763640000.0, 48)),
    records=Records(summarise=records.summarise, stats=records.STATS, play_facts=PLAY_FACTS),
    live=live.VIEW, cards=data.CARDS, doctor=doctor.check_data,
)
