"""Miams solo: the box plays Arthur the Insatiable on a data-driven score sheet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.contract.config import Field, one_of
from companion.contract.facts import Example, Records
from companion.contract.play_facts import PlayFacts, bgg_id_field
from companion.contract.rules import Rules
from companion.contract.spec import CONTRACT, GameSpec, Lazy, Screens

from . import cards, doctor, ending, live, records, rules
from .sheet import HEARTS_TRACK, TIES

CONFIG = {
    "difficulty": Field("snacking", str, "difficulty offered first: snacking, lunch or munchies",
                        one_of(*rules.DIFFICULTIES)),
    "sheet": Field("", str, "your sheet file (TOML, see docs/miams.md); empty for the stand-in"),
    "tile": Field("", str, "your solo tile file (TOML); empty for the stand-in"),
    "sheets_dir": Field("/etc/companion/miams", str,
                        "folder whose *.toml sheet files the setup screen lists"),
    "tie": Field("top", str, "highest least advanced skewer on a tie: top (Pair first) or bottom",
                 one_of(*TIES)),
    "setup_column": Field("counts", str,
                          "do setup crosses earn the first-column stars: counts or ignored",
                          one_of(*rules.SETUP_COLUMN)),
    "bgg_id": bgg_id_field(0),  # not known to this release: see docs/history.md
}


def _board(final: Mapping[str, Any]) -> str:
    return str(final.get("difficulty") or "").capitalize()


def _rounds(final: Mapping[str, Any]) -> int:
    return int((final.get("player") or {}).get("turns") or 0)


# Solo against Arthur, the box's own opponent: the play file marks him a bot (summary seats).
PLAY_FACTS = PlayFacts(name="Miams", board=_board, rounds=_rounds,
                       variant=lambda board: board.lower() or None)

SETUP = ("game:miams",)
STARTED = (*SETUP, "menu:Start")
MUNCHIES = (*SETUP, "menu:Difficulty", "menu:Munchies", "menu:Start")
# "Track my sheet too": the box asks what the player marked (docs/miams.md)
TRACKED = (*SETUP, "menu:Track my sheet", "menu:Start", "ACTION", "OK", "OK")
# A turn where the player rolled no cross and has not filled their track: Arthur's roll, his
# turn read, then the player's two presses (no cross; "Not full yet"). The track question is
# asked only from the turn the track could be full (rules.player_may_fill): on the stand-in
# sheet, whose richest space is worth 7 hearts, from the 8th turn; before it, one press.
QUIET_TURN = ("ACTION", "OK", "OK", "OK", "OK")
ASKED_FROM = next(turn for turn in range(1, HEARTS_TRACK + 1)
                  if ending.may_fill_by(turn, ending.richest(rules.DEFAULT_SHEET)))


def quiet_turns(count: int, first: int = 1) -> tuple[str, ...]:
    """The presses of ``count`` quiet turns on the stand-in sheet from the player's turn
    ``first`` (Arthur not yet at 50), for walks and benchmarks."""
    return tuple(press for turn in range(first, first + count)
                 for press in (QUIET_TURN if turn >= ASKED_FROM else QUIET_TURN[:-1]))

# The coach from "cross one space on your sheet", dice typed in: fruit1 fruit1 fruit3 cross
# fruit5, no red die, one reroll.
# The first turn the track question is asked, on its screen.
FILLED_ASKED = (*quiet_turns(ASKED_FROM - 1), "ACTION", "OK", "OK", "OK")
ODDS_DICE = (*STARTED, "ACTION", "OK", "DOWN")
ODDS = (*ODDS_DICE, "OK", "OK", "UP", "UP", "OK", "DOWN", "OK", "UP", "UP", "UP", "UP", "OK",
        "OK", "OK")

WALK: dict[str, tuple[str, ...]] = {
    "setup": SETUP,
    "difficulty": (*SETUP, "menu:Difficulty"),
    "sheet": STARTED,
    "own-die": (*STARTED, "OK"),
    "turn": (*STARTED, "ACTION"),
    "cross": (*STARTED, "ACTION", "OK"),
    "crosses": (*STARTED, "ACTION", "OK", "OK"),
    "filled": (*STARTED, *FILLED_ASKED),
    "munchies-sheet": (*MUNCHIES, *quiet_turns(4)),
    "row-full": (*MUNCHIES, *quiet_turns(3), "ACTION"),
    "cascade": (*STARTED, *quiet_turns(10), "ACTION"),
    # the screenshot box's Arthur (seed 7) fills his 50 on his 21st roll: the last turn
    "last-turn": (*STARTED, *quiet_turns(20), "ACTION", "OK"),
    "munchies-gift": (*MUNCHIES, *quiet_turns(1), "ACTION", "OK", "OK", "UP", "UP", "OK"),
    "game-over": (*STARTED, *FILLED_ASKED, "DOWN", "OK"),
    "result": (*STARTED, *FILLED_ASKED, "DOWN", "OK", "OK", "OK", "UP", "UP", "UP", "OK"),
    "sheet-row": (*MUNCHIES, *quiet_turns(4), "DOWN", "DOWN"),
    "odds-dice": (*ODDS_DICE, "OK", "OK", "UP", "UP"),
    "odds": ODDS,
    "odds-skewer": (*ODDS, "DOWN", "DOWN", "OK"),
    "my-sheet": (*STARTED, "ACTION", "OK", "UP"),
    "own-crossed": TRACKED,
    "own-scored": (*TRACKED, "OK", "OK"),
    "result-sheet": (*STARTED, *FILLED_ASKED, "DOWN", "OK", "OK", "OK", "UP", "UP", "UP",
                     "OK", "DOWN"),
}

SPEC = GameSpec(
    contract=CONTRACT, key=rules.KEY, title="Miams solo", short="Miams", order=3, config=CONFIG,
    rules=Rules(
        initial_state=rules.initial_state, apply=rules.apply, is_finished=rules.is_finished,
        summary=rules.summary, describe=rules.describe, describe_action=rules.describe_action,
        is_undoable=rules.is_undoable),
    screens=Screens(
        new_game=Lazy(f"{__name__}.screens:SetupScreen"),
        play=Lazy(f"{__name__}.screens:PlayScreen"),
        walk=WALK, example=Example("miams_game.jsonl", 1764072000.0, 25)),
    records=Records(summarise=records.summarise, stats=records.STATS, play_facts=PLAY_FACTS),
    live=live.VIEW, cards=cards.CARDS, doctor=doctor.check_files,
    dice=("white",) * 5 + ("red",),   # five white dice and the red one
    commands={"odds": f"{__name__}.odds_command", "simulate": f"{__name__}.simulate_command"},
)
