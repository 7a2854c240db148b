"""Pig's rules, each test quoting the rule of RULES.md it checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from companion_pig import rules

from companion.contract.rules import RuleError

EXAMPLE = Path(__file__).resolve().parent.parent / "pig_game.jsonl"


def started(*names: str, target: int = 100) -> rules.PigState:
    return rules.apply(rules.initial_state(), {"type": "setup", "game": "pig",
                                               "players": list(names), "target": target})


def play(state: rules.PigState, *moves: int | str) -> rules.PigState:
    for move in moves:
        action = {"type": "hold"} if move == "hold" else {"type": "roll", "face": move}
        state = rules.apply(state, action)
    return state


def test_two_to_six_players_start_at_zero():
    """"Two to six players sit in turn order; every score starts at 0.\""""
    assert started("Ana", "Ben").scores == (0, 0)
    assert started(*"ABCDEF").scores == (0,) * 6
    for names in (["Ana"], list("ABCDEFG")):
        with pytest.raises(RuleError, match="Players must be"):
            rules.apply(rules.initial_state(), {"type": "setup", "players": names})


def test_rolls_add_to_the_turn_total():
    """"On your turn you roll the die as often as you like, adding each roll to your turn total.\""""
    state = play(started("Ana", "Ben"), 3, 5, 6)
    assert (state.pot, state.turn, state.last) == (14, 0, 6)


def test_a_one_busts_the_turn():
    """"If you roll a 1, you bust: your turn total is lost and your turn ends.\""""
    state = play(started("Ana", "Ben"), 6, 6, 1)
    assert (state.pot, state.scores, state.turn) == (0, (0, 0), 1)


def test_holding_banks_the_turn_total():
    """"you may hold: your turn total is added to your score and your turn ends.\""""
    state = play(started("Ana", "Ben"), 4, 5, "hold")
    assert (state.scores, state.pot, state.turn) == ((9, 0), 0, 1)
    with pytest.raises(RuleError, match="Roll at least once"):
        rules.apply(state, {"type": "hold"})     # "a player holds after at least one roll"


def test_the_first_to_the_target_wins_at_once():
    """"The first player whose score reaches 100 or more wins at once.\""""
    state = play(started("Ana", "Ben", target=20), 6, 6, 6, "hold")
    assert state.winner is None and state.turn == 1
    state = play(state, 2, "hold", 2, "hold")
    assert rules.is_finished(state) and state.players[state.winner] == "Ana"
    assert rules.summary(state)["winner"] == "Ana"
    with pytest.raises(RuleError, match="over"):
        rules.apply(state, {"type": "roll", "face": 3})


@pytest.mark.parametrize("action, words", [
    ({"type": "roll", "face": 7}, "Face must be"),
    ({"type": "roll", "face": "6"}, "Face must be"),
    ({"type": "roll"}, "Missing face"),
    ({"type": "jump"}, "Unknown action"),
])
def test_a_bad_action_is_refused_in_words(action, words):
    with pytest.raises(RuleError, match=words):
        rules.apply(started("Ana", "Ben"), action)


def test_the_example_game_replays_to_its_winner():
    actions = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    state = rules.initial_state()
    for action in actions:
        state = rules.apply(state, action)
    assert rules.is_finished(state) and state.scores[state.winner] >= 100
