"""Miams with both sheets kept by the box ("Track my sheet too"): the player's marks, scored by
the rulebook's sentences, and the same game as before without the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.contract.rules import RuleError
from companion.games.miams import rules
from tests.test_miams_rules import SHEET, TILE

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"


def start(**options) -> rules.State:
    return rules.apply(rules.initial_state(), {"type": "setup", "sheet": SHEET, "tile": TILE,
                                               "own_sheet": True, **options})


def play(state: rules.State, face: str = "fruit5", **turn) -> rules.State:
    """Arthur's roll, then the player's turn (``crosses`` 0 unless given)."""
    state = rules.apply(state, {"type": "roll", "face": face, "source": "box"})
    return rules.apply(state, {"type": "player", "crosses": 0, **turn})


def own(state: rules.State):
    assert state.own is not None
    return state.own


def test_the_cross_for_arthurs_turn_takes_the_spaces_bonus_and_no_hearts():
    """"During the AI's Crossing phase, you always play as if the AI had obtained one Cross
    face. Cross off your own game sheet like in a multiplayer game." and "cross off the
    leftmost free space ... on the row of their choice, and obtain only the bonus tokens
    depicted on the crossed off space"."""
    state = play(start(), crossed="four")
    assert own(state).side.rows[3] == "x"
    assert (own(state).side.hearts, own(state).stars) == (0, 1)   # four's 1st space: stars:1
    state = play(state, crossed="pair")
    state = play(state, crossed="pair")                          # pair's 2nd space: a red die
    assert own(state).side.rows[0] == "xx" and own(state).tokens == 1
    assert own(state).side.hearts == 0


def test_a_scored_skewer_circles_the_leftmost_free_box_and_fills_its_hearts():
    """"Circle the leftmost free box (meaning it is neither ticked nor circled) on the row of
    the skewer you obtained." "Fill as many Hearts on your Hearts track as the value of the
    space you circled." "If you had already crossed off or circled all spaces of the row, you
    still obtain hearts: as many as the value at the end of the row.\""""
    state = play(start(), crossed="three", scored="three")
    assert own(state).side.rows[1] == "xo" and own(state).side.hearts == 3
    state = play(state, crossed="pair", scored="three")         # the row is full: its end, 2
    assert own(state).side.rows[1] == "xo" and own(state).side.hearts == 5


def test_a_catch_up_space_gives_its_bonus_token():
    """"If you cannot score a skewer, you may instead cross off a free Catch-up space. You then
    obtain the Bonus token printed below the space." A crossed one is not free."""
    state = play(start(), crossed="pair", scored="catch_up")
    assert own(state).catch_up == (0,) and own(state).stars == 1
    with pytest.raises(RuleError, match="No Catch-up"):
        play(state, crossed="pair", scored="catch_up")


def test_the_buy_phase_spends_stars_held_and_no_more():
    """"Pay the cost printed next to the card you want to buy. You may instead, for 3 stars,
    buy the top card of the deck." The stars paid leave the player's score ("adding up the
    filled Hearts on their game sheet and their Star tokens")."""
    state = play(start(), crossed="four", scored="pair")        # 1 star
    with pytest.raises(RuleError, match="You hold 1★"):
        play(state, crossed="pair", paid=3)
    state = play(state, crossed="pair", scored="pair", paid=1)  # pair 3rd circled: 2 stars
    assert (own(state).side.stars, own(state).paid, own(state).stars) == (3, 1, 2)


def test_the_first_column_gives_its_three_stars():
    """"You also gain 3 stars for crossing or circling all the spaces in the first column.\""""
    state = start()
    for row in rules.SKEWERS:
        state = play(state, crossed=row)
    assert own(state).side.column
    assert own(state).stars == 1 + 3     # four's 1st space, then the column


def test_the_player_filling_their_50_ends_the_game_with_both_sheets_scored():
    """"As soon as a player has filled all 50 Hearts of their Hearts track, take turns until
    everyone has taken the same number of turns." Arthur plays first, so the player's turn
    that fills their track is the last; "Count your score and the AI's, like you would in a
    multiplayer game." and "You win if your score is higher than Arthur the Insatiable's!\""""
    state = start()
    turns = 0
    while state.phase != "over":
        state = play(state, face="fruit1", crossed=rules.SKEWERS[turns % 6], scored="yums")
        turns += 1
    mine = own(state)
    assert mine.side.hearts == 50 and state.player_filled
    assert state.player_score == (50, mine.stars)
    assert state.turns == state.player_turns == turns
    out = rules.summary(state)
    assert out["player"]["rows"]["yums"].endswith("o")
    assert out["player"]["score"] == 50 + mine.stars
    assert out["winner"] == ("player" if out["player"]["score"] > out["arthur"]["score"] else "arthur")


def test_arthurs_50_make_the_players_next_turn_the_last():
    """"take turns until everyone has taken the same number of turns": Arthur's 50 end the
    game after the player's turn, which the box scores from their sheet."""
    state = start(difficulty="snacking")
    while state.arthur.hearts < 50:
        state = rules.apply(state, {"type": "roll", "face": "marshmallow", "source": "box"})
        if state.arthur.hearts >= 50:
            break
        state = rules.apply(state, {"type": "player", "crosses": 0, "crossed": "pair"})
    state = rules.apply(state, {"type": "player", "crosses": 0, "crossed": "three", "scored": "pair"})
    assert state.phase == "over" and not state.player_filled
    assert state.player_score == (own(state).side.hearts, own(state).stars)


@pytest.mark.parametrize(("turn", "said"), [
    ({}, "Which row"),                                   # a row is free: say which was crossed
    ({"crossed": "toast"}, "Crossed: not a skewer"),
    ({"crossed": "pair", "scored": 3}, "Scored: not a skewer"),
    ({"crossed": "pair", "filled": True}, "Your sheet says"),
    ({"crossed": "pair", "paid": -1}, "Paid"),
    ({"crossed": "pair", "catch_up": 0}, "without"),
    ({"crossed": "pair", "scored": "catch_up", "catch_up": 9}, "Catch-up"),
])
def test_a_tracked_turn_that_does_not_fit_the_sheet_is_refused(turn, said):
    state = rules.apply(start(), {"type": "roll", "face": "fruit1", "source": "box"})
    with pytest.raises(RuleError, match=said):
        rules.apply(state, {"type": "player", "crosses": 0, **turn})


def test_a_full_row_cannot_take_the_cross():
    """"cross off the leftmost free space (meaning the leftmost space that is neither crossed
    off nor circled) on the row of their choice": a full row has none."""
    state = play(play(start(), crossed="three"), crossed="three")
    with pytest.raises(RuleError, match="3 of a kind is full"):
        play(state, crossed="three")


def test_without_the_option_the_game_is_as_before():
    """Old journals replay the same: no sheet kept, the new fields refused, the score asked."""
    plain = rules.apply(rules.initial_state(), {"type": "setup", "sheet": SHEET, "tile": TILE})
    assert plain.own is None and rules.summary(plain)["own_sheet"] is False
    rolled = rules.apply(plain, {"type": "roll", "face": "fruit1", "source": "box"})
    with pytest.raises(RuleError, match="not kept"):
        rules.apply(rolled, {"type": "player", "crosses": 0, "crossed": "pair"})
    done = rules.apply(rolled, {"type": "player", "crosses": 0, "filled": True})
    assert done.phase == "score"


def test_the_example_game_with_both_sheets_replays_to_both_scores_and_the_winner(capsys):
    """docs/examples/miams_two_sheets.jsonl: a whole game with the option on; the replay shows
    the player's sheet as Arthur's is shown, both scores and the winner."""
    assert main(["replay", "miams", str(EXAMPLES / "miams_two_sheets.jsonl")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["phase"] == "over" and out["own_sheet"] is True
    player, arthur = out["player"], out["arthur"]
    assert set(player["rows"]) == set(arthur["rows"]) == set(rules.SKEWERS)
    assert any(player["rows"].values())
    assert player["score"] == player["hearts"] + player["stars"]
    assert player["stars"] == player["stars_gained"] - player["stars_paid"]
    assert player["stars_paid"] > 0 and player["catch_up"]
    assert out["winner"] in ("player", "arthur")
    assert out["winner"] == ("player" if player["score"] > arthur["score"] else "arthur")


def test_the_old_example_replays_as_before(capsys):
    """The example without the option: the same scores as before the player's sheet existed."""
    assert main(["replay", "miams", str(EXAMPLES / "miams_game.jsonl")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["own_sheet"] is False and "rows" not in out["player"]
    assert out["player"]["score"] == 59
