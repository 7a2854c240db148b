"""The simulator's player model reads the dice as the rulebook defines the skewers."""

from __future__ import annotations

import random

import pytest

from companion.games.miams import player_model
from companion.games.miams.rules import Side

P, T, F, K, S, Y = (1 << i for i in range(6))


@pytest.mark.parametrize("dice, made", [
    (["fruit1", "fruit1", "fruit2", "fruit3", "cross"], P),
    (["fruit1", "fruit1", "fruit1", "fruit3", "cross"], P | T),
    (["fruit1", "fruit1", "fruit1", "fruit3", "fruit3"], P | T | F),
    (["fruit2", "fruit2", "fruit2", "fruit2", "fruit3"], P | T | K),
    (["fruit1", "fruit2", "fruit3", "fruit4", "fruit5"], S),
    (["fruit4"] * 5, P | T | K | Y),
    (["fruit1", "fruit2", "fruit3", "fruit4", "cross"], 0),
    (["cross"] * 5, 0),
])
def test_skewers_made(dice, made):
    """"Pair: 2 identical fruits ... Full house: 3 identical fruits and 2 other identical fruits
    ... Straight: 5 different fruits ... Yums: 5 identical fruits". "Crosses on the dice do not
    contribute towards fruit skewers"."""
    assert player_model.skewers_made(dice) == made


def test_model_scores_the_richest_skewer_and_crosses_the_cheapest_space():
    """"During the Scoring phase, you may only score one skewer ... choose which one": the model
    takes the most hearts, and for Arthur's cross face gives up the cheapest space."""
    start = player_model.start_state("snacking")
    model = player_model.PlayerModel(start.options.sheet, random.Random(1))
    # the model marks the player's sheet in place: a fresh blank sheet for each question
    scored = Side()
    catch_up = model.own_turn(scored, 0, P | T | F)
    assert scored.rows[2] == "o" and catch_up == 0   # Full house's 2 hearts beat Pair's 1
    crossed = Side()
    model.cross_for_arthur(crossed)
    assert crossed.rows[0] == "x"                     # Pair's first space is the cheapest
    nothing = Side()
    catch_up = model.own_turn(nothing, 0, 0)
    assert catch_up == 1 and nothing.stars == start.options.sheet.catch_up[0].stars


def test_every_simulated_game_ends_when_someone_fills_fifty():
    """"The game ends when a player has filled all 50 Hearts of their Hearts track": the winner's
    score (hearts plus stars) of every simulated game is at least 50."""
    results = player_model.simulate(200, "munchies", seed=9)
    assert len(results) == 200
    assert all(max(r.arthur, r.player) >= 50 for r in results)


def test_simulated_games_leave_their_start_state_untouched():
    """"Take a game sheet for you and one for Arthur": every simulated game starts from the same
    set-up sheet, so a game plays on its own copy and leaves that sheet as it was."""
    start = player_model.start_state("lunch")
    before = repr(start)
    rng = random.Random(3)
    model = player_model.PlayerModel(start.options.sheet, rng)
    for _ in range(20):
        player_model.play_game(start, model, rng)
    assert repr(start) == before
