"""Odd input never crashes the Makan engine: garbage or mutated actions are refused with a short
RuleError and leave the state as it was."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.commands.replay import read_actions
from companion.frame.canvas import TOAST_LINE
from companion.frame.font import SMALL
from companion.games import RuleError
from companion.games.makan_mania import rules
from companion.games.makan_mania.data import COIN, DRINKS_FILE, LINE_LETTERS, load_drinks
from companion.games.makan_mania.rules.state import Book

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "makan_4p.jsonl"


def _steps() -> list[tuple[rules.State, dict]]:
    """(state, the action that came next) at every step of the example game."""
    actions = [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]
    state, steps = rules.initial_state(), []
    for action in actions:
        steps.append((state, action))
        state = rules.apply(state, action)
    return steps


STEPS = _steps()
scalars = (st.none() | st.booleans() | st.integers(-3, 100) | st.floats(allow_nan=False)
           | st.sampled_from(["", "x", "red", "cola", "dice", "coins", "setup", "1"]))
garbage = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["type", "name", "tray", "1", "x"]), inner,
                                         max_size=3), max_leaves=6)


def mutate(data: st.DataObject, action: dict) -> object:
    """The action with one field (or one item of a list field) replaced, or plain garbage."""
    how = data.draw(st.sampled_from(["field", "item", "drop", "whole"]))
    if how == "whole":
        return data.draw(garbage)
    action = copy.deepcopy(action)
    key = data.draw(st.sampled_from([*sorted(action), "extra"]))
    if how == "drop":
        action.pop(key, None)
    elif how == "item" and isinstance(action.get(key), list) and action[key]:
        index = data.draw(st.integers(0, len(action[key]) - 1))
        item = action[key][index]
        if isinstance(item, dict) and item:
            item[data.draw(st.sampled_from(sorted(item)))] = data.draw(garbage)
        else:
            action[key][index] = data.draw(garbage)
    else:
        action[key] = data.draw(garbage)
    return action


def assert_short(error: RuleError) -> None:
    lines = str(error).split("\n")
    assert 1 <= len(lines) <= 2 and all(SMALL.width(line) <= TOAST_LINE for line in lines), str(error)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_mutated_actions_are_refused_or_applied_never_crash(data):
    """Whatever arrives (bool is not int, 1.0 is not a die, lists are not drinks), apply either
    returns a new state or raises RuleError, and the state it was given is unchanged."""
    state, action = data.draw(st.sampled_from(STEPS))
    before = copy.deepcopy(state)
    odd = mutate(data, action)
    try:
        rules.apply(state, odd)
    except RuleError as error:
        assert_short(error)
    assert state == before


@pytest.mark.parametrize("action", [
    {"type": "seat", "player": 0, "table": 1.0, "dice": 2},
    {"type": "seat", "player": True, "table": 1, "dice": 2},
    {"type": "seat", "player": 0, "table": [1], "dice": 2},
])
def test_floats_bools_and_lists_are_not_table_numbers(action):
    """"The first player to finish sits at Table 1": a table is a whole number, 1.0 or [1] is
    refused rather than stored as a seat."""
    state = next(s for s, a in STEPS if a["type"] == "seat")
    with pytest.raises(RuleError):
        rules.apply(state, action)


@pytest.mark.parametrize("action", [
    {"type": ["setup"]},
    {"type": "setup", "players": [{"name": "A", "tray": ["red"]}, {"name": "B", "tray": "black"}]},
    {"type": "setup", "players": [{"name": "A", "tray": "red"}, {"name": "B", "tray": "black"}],
     "options": ["push"]},
    {"type": "setup", "players": [{"name": "A", "tray": "red"}, {"name": "B", "tray": "black"}],
     "options": {"coin_supply": True}},
])
def test_unhashable_or_mistyped_setup_fields_are_refused(action):
    """"Each player chooses a Tray card": a tray is named by its colour; anything else is refused."""
    with pytest.raises(RuleError):
        rules.apply(rules.initial_state(), action)


def test_a_list_as_a_drink_is_refused():
    """"Reveal ... Drink cards": a revealed card is one drink key, not a list or a table."""
    state = next(s for s, a in STEPS if a["type"] == "reveal")
    with pytest.raises(RuleError, match="No drink"):
        rules.apply(state, {"type": "reveal", "drinks": [["cola"], {}, "cola", "cola"], "private": "cola"})


def test_an_action_out_of_turn_is_refused_in_players_words():
    """"After 5 rounds, players add up the point values": a seat at final scoring is refused
    with what the table must do, not the engine's phase name."""
    state = next(s for s, a in STEPS if a["type"] == "score")
    with pytest.raises(RuleError) as caught:
        rules.apply(state, {"type": "seat", "player": 0, "table": 1, "dice": 0})
    assert str(caught.value) == "Not now:\nscore everyone first"
    assert_short(caught.value)


WIDEST = max((chr(code) for code in range(32, 256) if chr(code).isprintable() and chr(code) != COIN),
             key=SMALL.width)
NAMES = sorted({d.name for d in load_drinks(DRINKS_FILE)} | {WIDEST * LINE_LETTERS}, key=SMALL.width)
BUYS = [(s, a) for s, a in STEPS if a["type"] == "buy"]


@pytest.mark.parametrize("name", NAMES)
def test_every_refusal_naming_a_drink_fits_two_lines(name):
    """A refusal box holds two lines: every buy refused, for every shipped drink name and the
    widest name a drinks file may hold, fits them uncut and names the drink whole."""
    named = 0
    for state, action in BUYS:
        book = Book(tuple(dataclasses.replace(d, name=name) for d in state.book.drinks))
        state = dataclasses.replace(state, book=book)
        for slot in range(len(state.row)):
            for drink in (state.row[slot][0], "cola" if state.row[slot][0] != "cola" else "kopi_o"):
                for pay in ("dice", "coins"):
                    try:
                        rules.apply(state, {**action, "slot": slot, "drink": drink, "pay": pay})
                    except RuleError as error:
                        assert_short(error)
                        named += name in str(error).split("\n")
    assert named


def test_the_power_up_question_names_the_stage_as_the_screen_title_does():
    """Between rounds the screen shows the scoreboard "After R1"; resuming there says so too."""
    said = {(s.phase, s.round): rules.describe(s) for s, _ in STEPS}
    assert said[("reveal", 1)] == "round 1"
    assert said[("reveal", 2)] == "after round 1" and said[("queue", 2)] == "round 2"
