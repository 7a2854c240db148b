"""Miams solo rules: Arthur the Insatiable, checked against the rulebook's sentences."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.contract.rules import RuleError
from companion.games.miams import ending, rules
from firmware_bridge.faces import RED

# A small sheet whose numbers make each rule visible (rows in rulebook order).
SHEET = {
    "name": "Test sheet",
    "catch_up": ["stars:1"],
    "rows": {
        "pair": {"hearts": [1, 2, 3], "bonus": ["", "red", "stars:2"], "end": 1},
        "three": {"hearts": [2, 3], "bonus": ["reroll", ""], "end": 2},
        "full_house": {"hearts": [3, 4, 5], "end": 3},
        "four": {"hearts": [4, 5], "bonus": ["stars:1", ""], "end": 4},
        "straight": {"hearts": [5, 6], "end": 5},
        "yums": {"hearts": [10, 20], "end": 10},
    },
}
TILE = {
    "name": "Test tile",
    "faces": {"fruit1": "pair", "fruit2": "three", "fruit3": "full_house", "fruit4": "four",
              "fruit5": "straight", "marshmallow": "yums"},
}
PAIR, THREE, FULL, FOUR, STRAIGHT, YUMS = range(6)


def start(difficulty: str = "snacking", **options: str) -> rules.State:
    return rules.apply(rules.initial_state(), {"type": "setup", "difficulty": difficulty,
                                               "sheet": SHEET, "tile": TILE, **options})


def roll(state: rules.State, face: str, source: str = "box") -> rules.State:
    return rules.apply(state, {"type": "roll", "face": face, "source": source})


def player(state: rules.State, crosses: int = 0, filled: bool = False) -> rules.State:
    return rules.apply(state, {"type": "player", "crosses": crosses, "filled": filled})


def turn(state: rules.State, face: str, crosses: int = 0, filled: bool = False) -> rules.State:
    return player(roll(state, face), crosses, filled)


def with_arthur(state: rules.State, rows: tuple[str, ...], hearts: int = 0, stars: int = 0,
                column: bool = False) -> rules.State:
    """The same game with Arthur's sheet already marked (a shortcut to a mid-game position)."""
    return dataclasses.replace(state, arthur=rules.Side(rows, hearts, stars, column))


# ----- setup ------------------------------------------------------------------------------------

def test_arthur_plays_first():
    """"The AI plays first. Circle the 1 space of its sheet." """
    state = start()
    assert state.phase == "arthur"
    assert state.turns == 0 and state.player_turns == 0
    with pytest.raises(RuleError):
        player(state)


def test_snacking_changes_nothing():
    """"Snacking: No change" """
    assert start("snacking").arthur == rules.Side(("",) * 6, 0, 0, False)


def test_lunch_crosses_two_leftmost_spaces_of_each_skewer():
    """"Lunch: Cross off the 2 leftmost free spaces of each of its skewers." """
    assert start("lunch").arthur.rows == ("xx",) * 6


def test_munchies_crosses_four_leftmost_spaces_of_each_skewer():
    """"Munchies: Cross off the 4 leftmost free spaces of each of its skewers." A row with fewer
    than four spaces is crossed off whole."""
    assert start("munchies").arthur.rows == ("xxx", "xx", "xxx", "xx", "xx", "xx")


def test_setup_crosses_take_no_bonus_tokens():
    """"During this setup, do not take into account the Bonus tokens printed on the spaces you
    cross." Lunch crosses Pair's red die and Three's reroll spaces: no cascade, no stars."""
    state = start("lunch", setup_column="ignored")
    assert state.arthur.rows == ("xx",) * 6
    assert state.arthur.stars == 0 and state.arthur.hearts == 0


def test_setup_crosses_count_for_the_first_column_by_default():
    """"You also gain 3 stars for crossing or circling all the spaces in the first column."
    Ruling (setup_column = counts): setup crosses are crossings, so Lunch gives Arthur 3 stars."""
    state = start("lunch")
    assert state.arthur.stars == 3 and state.arthur.column


def test_setup_crosses_ignored_for_the_first_column_when_chosen():
    """"do not take into account the Bonus tokens printed on the spaces you cross." Ruling option
    setup_column = ignored: the first-column stars are then never given to Arthur."""
    state = start("lunch", setup_column="ignored")
    assert state.arthur.stars == 0 and state.arthur.column
    state = roll(state, "fruit1")  # Pair's third space: its two printed stars only
    assert state.arthur.stars == 2


# ----- Arthur's turn ----------------------------------------------------------------------------

def test_red_die_face_picks_the_skewer_from_the_tile():
    """"Roll the red die for the AI. The solo mini-board indicates which skewer is scored. Circle
    the first free space of that skewer and fill as many as its value on its Hearts track." """
    state = roll(start(), "fruit3")
    assert state.arthur.rows[FULL] == "o"
    assert state.arthur.hearts == 3
    assert state.last.marks[0] == rules.Mark(FULL, 0, "o", 3, 0, 0)
    state = roll(player(state), "fruit3")
    assert state.arthur.rows[FULL] == "oo" and state.arthur.hearts == 7


def test_marshmallow_scores_its_tile_skewer():
    """"On the red die, the Cross face is replaced with a Marshmallow face." The tile maps the
    Marshmallow like any face (here to Yums)."""
    state = roll(start(), "marshmallow")
    assert state.arthur.rows[YUMS] == "o" and state.arthur.hearts == 10


def test_stars_from_a_circled_space_are_end_points():
    """"The stars the AI gains are placed in front of its sheet and are end-game points." """
    state = with_arthur(start(), ("oo", "", "", "", "", ""), hearts=3)
    state = roll(state, "fruit1")
    assert state.arthur.stars == 2
    assert rules.score(state.arthur) == 3 + 3 + 2


def test_full_row_scores_its_end_value():
    """"If you had already crossed off or circled all spaces of the row, you still obtain
    hearts: as many as the value at the end of the row." """
    state = with_arthur(start(), ("", "", "", "", "", "xo"), hearts=20)
    state = roll(state, "marshmallow")
    assert state.arthur.rows[YUMS] == "xo"
    assert state.arthur.hearts == 30
    assert state.last.marks[0].space == -1


def test_red_die_token_makes_arthur_cross_his_least_advanced_skewer():
    """"The Red die and Reroll tokens the AI gains are immediately discarded. For each token
    discarded this way, the AI crosses the leftmost space of its highest least advanced
    skewer." Pair space 2 has a red die token; Three is the highest of the empty rows; its
    reroll token makes one more cross, in Full house."""
    state = with_arthur(start(), ("o", "", "", "", "", ""), hearts=1)
    state = roll(state, "fruit1")
    assert state.arthur.rows == ("oo", "x", "x", "", "", "")
    assert [(m.row, m.space, m.how) for m in state.last.marks] == [
        (PAIR, 1, "o"), (THREE, 0, "x"), (FULL, 0, "x")]
    assert state.arthur.hearts == 3


def test_cascade_runs_until_no_token_is_left():
    """"The Red die and Reroll tokens the AI gains are immediately discarded. For each token
    discarded this way, the AI crosses the leftmost space of its highest least advanced
    skewer." A token from such a cross is discarded in turn: crossing Pair's red die space
    leads to Three's reroll space and on to Full house."""
    state = with_arthur(start(), ("o", "", "o", "o", "o", "o"))
    state = player(roll(state, "fruit4"), crosses=1)
    # Three is the least advanced: its reroll token sends a cross to Pair, the highest of the
    # rows with one mark; Pair's red die token sends one more to Three.
    assert [(m.row, m.space) for m in state.gift] == [(THREE, 0), (PAIR, 1), (THREE, 1)]
    assert state.arthur.rows[PAIR] == "ox" and state.arthur.rows[THREE] == "xx"


def test_crossed_space_gives_its_stars():
    """"your opponents cross off the leftmost free space ... and obtain only the bonus tokens
    depicted on the crossed off space." Four's first space carries a star (the first-column
    stars are already settled here)."""
    state = with_arthur(start(), ("o", "o", "o", "", "o", "o"), column=True)
    state = player(roll(state, "fruit5"), crosses=1)
    assert state.gift[0].row == FOUR and state.gift[0].stars == 1
    assert state.arthur.stars == 1


def test_highest_least_advanced_skewer_tie_top_by_default():
    """"the AI crosses the leftmost space of its highest least advanced skewer." Ruling: on a
    tie, the highest row on the sheet (Pair first)."""
    state = player(roll(start(), "marshmallow"), crosses=1)
    assert state.gift[0].row == PAIR


def test_highest_least_advanced_skewer_tie_bottom_option():
    """"highest least advanced skewer" read as the most valuable (lowest printed) row: the
    setting tie = bottom picks Straight before the rows above it."""
    state = player(roll(start(tie="bottom"), "marshmallow"), crosses=1)
    assert state.gift[0].row == STRAIGHT


def test_least_advanced_skips_full_rows_and_a_full_sheet_loses_the_cross():
    """"crosses the leftmost space" needs a free space: full rows are never least advanced; with
    every row full the cross has nowhere to go."""
    sheet = start().options.sheet
    assert rules.least_advanced(sheet, ("xxx", "xx", "x", "xx", "xx", "xx")) == FULL
    assert rules.least_advanced(sheet, ("xxx", "xx", "xxx", "xx", "xx", "xx")) is None
    full = with_arthur(start(), ("xxx", "xx", "xxx", "xx", "xx", "xo"), hearts=40)
    state = player(roll(full, "fruit1"), crosses=3)
    assert state.gift == () and state.arthur.rows == full.arthur.rows


def test_hearts_beyond_fifty_become_stars():
    """"If you have already filled all the Hearts of your Hearts track, take a Star token for
    each Heart you cannot fill." """
    state = with_arthur(start(), ("", "", "", "", "", ""), hearts=45)
    state = roll(state, "marshmallow")
    assert state.arthur.hearts == 50 and state.arthur.stars == 5


def test_first_column_gives_three_stars_once():
    """"You also gain 3 stars for crossing or circling all the spaces in the first column." """
    state = with_arthur(start(), ("o", "o", "o", "o", "o", ""))
    state = roll(state, "marshmallow")
    assert state.arthur.stars == 3 and state.arthur.column
    state = roll(player(state), "marshmallow")
    assert state.arthur.stars == 3


# ----- the player's turn and the end ------------------------------------------------------------

def test_each_player_cross_gives_arthur_a_cross():
    """"During your Crossing phase, each of your crosses grants the AI a cross in the leftmost
    space of their highest least advanced skewer." Three crosses; Three's reroll token adds a
    fourth, and Four's space gives its star."""
    state = player(roll(start(), "fruit5"), crosses=3)
    assert [m.row for m in state.gift] == [PAIR, THREE, FULL, FOUR]
    assert state.arthur.rows[:5] == ("x", "x", "x", "x", "o")
    assert state.arthur.stars == 1


def test_end_when_arthur_fills_fifty_after_equal_turns():
    """"As soon as a player has filled all 50 Hearts of their Hearts track, take turns until
    everyone has taken the same number of turns." Arthur fills his track first: the player
    still takes their turn, then the game ends."""
    state = with_arthur(start(), ("", "", "", "", "", ""), hearts=45)
    state = roll(state, "marshmallow")
    assert state.arthur.hearts == 50 and state.phase == "player"
    state = player(state)
    assert state.phase == "score" and state.turns == state.player_turns == 1
    with pytest.raises(RuleError):
        roll(state, "fruit1")


def test_end_when_the_player_fills_fifty():
    """"take turns until everyone has taken the same number of turns": Arthur plays first, so
    when the player fills their 50 the turns are already equal and the game ends."""
    state = turn(turn(start(), "fruit1"), "fruit2", filled=True)
    assert state.phase == "score" and state.turns == state.player_turns == 2


def test_the_track_question_matters_only_once_the_track_could_be_full():
    """"Fill as many Hearts on your Hearts track as the value of the space you circled." and
    "If you had already crossed off or circled all spaces of the row, you still obtain hearts:
    as many as the value at the end of the row." One space a turn: on the test sheet (20
    hearts at most, the Yums row's second space) no track is full before the 3rd turn."""
    state = roll(start(), "fruit1")
    assert ending.richest(state.options.sheet) == 20
    assert not ending.player_may_fill(state)                   # turn 1: 20 hearts at most
    state = roll(player(state), "fruit1")
    assert not ending.player_may_fill(state)                   # turn 2: 40
    assert ending.player_may_fill(state, most=25)              # a richer space of the player's own
    state = roll(player(state), "fruit1")
    assert ending.player_may_fill(state)                       # turn 3: 60 ≥ 50
    assert not ending.may_fill_by(7, 7) and ending.may_fill_by(8, 7)


def test_arthurs_fifty_make_the_players_turn_the_last():
    """"As soon as a player has filled all 50 Hearts of their Hearts track, take turns until
    everyone has taken the same number of turns." Arthur plays first: once his roll fills his
    track the player's turn is the last, whatever their track, so it is not asked about."""
    state = with_arthur(start(), ("", "", "", "", "", ""), hearts=45)
    assert not ending.is_last_turn(state)                      # his turn: not the player's
    state = roll(state, "marshmallow")
    assert ending.is_last_turn(state) and rules.describe(state) == "your last turn 1"
    assert not ending.player_may_fill(state, most=50)
    assert player(state).phase == "score"


def test_game_goes_on_while_nobody_has_fifty():
    """"The game ends when a player has filled all 50 Hearts of their Hearts track." """
    state = turn(start(), "marshmallow")
    assert state.phase == "arthur"


def test_scores_and_winner():
    """"Count your score and the AI's, like you would in a multiplayer game. You win if your
    score is higher than Arthur the Insatiable's!" Ruling: an equal score is not a win."""
    over = with_arthur(turn(start(), "fruit1", filled=True), ("o", "", "", "", "", ""), 50, 10)
    win = rules.apply(over, {"type": "score", "hearts": 50, "stars": 11})
    tie = rules.apply(over, {"type": "score", "hearts": 50, "stars": 10})
    assert rules.winner(win) == "player" and rules.is_finished(win)
    assert rules.winner(tie) == "arthur"
    summary = rules.summary(win)
    assert summary["player"]["score"] == 61 and summary["arthur"]["score"] == 60


def test_filled_player_must_enter_fifty_hearts():
    """"Each player calculates their final score, adding up the filled Hearts ... and their Star
    tokens." A player who filled their 50 has 50 hearts."""
    over = turn(start(), "fruit1", filled=True)
    with pytest.raises(RuleError):
        rules.apply(over, {"type": "score", "hearts": 40, "stars": 0})


@pytest.mark.parametrize("state_kind, action", [
    ("setup", {"type": "roll", "face": "fruit1"}),
    ("arthur", {"type": "roll", "face": "cross"}),
    ("arthur", {"type": "roll", "face": "fruit1", "source": "dice"}),
    ("arthur", {"type": "player", "crosses": 0}),
    ("player", {"type": "player", "crosses": 6}),
    ("player", {"type": "player", "crosses": 1, "filled": "yes"}),
    ("player", {"type": "score", "hearts": 1, "stars": 1}),
    ("arthur", {"type": "setup"}),
    ("arthur", {"type": "eat"}),
])
def test_illegal_actions_are_refused_with_a_short_message(state_kind, action):
    """An illegal action raises RuleError with a message of at most 2 short lines: the red die
    has no cross face ("the Cross face is replaced with a Marshmallow face"), and "each of your
    crosses" counts the 5 white dice."""
    state = {"setup": rules.initial_state(), "arthur": start(),
             "player": roll(start(), "fruit1")}[state_kind]
    with pytest.raises(RuleError) as refused:
        rules.apply(state, action)
    lines = str(refused.value).split("\n")
    assert len(lines) <= 2 and all(len(line) <= 21 for line in lines)


def test_box_and_sensor_rolls_cannot_be_undone_but_hand_entries_can():
    """Chance is an action: a roll by the box or the sensor cannot be undone, while a face
    typed in from a physical red die is an entry like any other."""
    assert not rules.is_undoable({"type": "roll", "face": "fruit1", "source": "box"})
    assert not rules.is_undoable({"type": "roll", "face": "fruit1", "source": "sensor"})
    assert rules.is_undoable({"type": "roll", "face": "fruit1", "source": "hand"})
    assert rules.is_undoable({"type": "player", "crosses": 1})


def test_setup_without_sheet_uses_the_stand_ins():
    """A setup without sheet data plays on the stand-in layout and tile, and says so."""
    state = rules.apply(rules.initial_state(), {"type": "setup"})
    assert state.options.sheet == rules.DEFAULT_SHEET
    assert rules.summary(state)["stand_in_values"] is True


# ----- invariants -------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(
    difficulty=st.sampled_from(sorted(rules.DIFFICULTIES)),
    tie=st.sampled_from(rules.TIES),
    setup_column=st.sampled_from(rules.SETUP_COLUMN),
    default_sheet=st.booleans(),
    turns=st.lists(st.tuples(st.sampled_from(RED), st.integers(0, 5), st.integers(0, 40)),
                   min_size=60, max_size=60),
)
@pytest.mark.slow
def test_random_games_keep_the_invariants(difficulty, tie, setup_column, default_sheet, turns):
    """"The game ends when a player has filled all 50 Hearts": hearts never pass 50, a space is
    marked at most once (marks only grow to the right), and every game ends."""
    action = {"type": "setup", "difficulty": difficulty, "tie": tie, "setup_column": setup_column}
    if not default_sheet:
        action.update(sheet=SHEET, tile=TILE)
    state = rules.apply(rules.initial_state(), action)
    sizes = state.options.sheet.sizes
    for face, crosses, fill_at in turns:
        before = state.arthur.rows
        state = player(roll(state, face), crosses, filled=fill_at == 0)
        for old, new, size in zip(before, state.arthur.rows, sizes, strict=True):
            assert new.startswith(old) and len(new) <= size and set(new) <= {"o", "x"}
        assert 0 <= state.arthur.hearts <= 50
        if state.phase == "score":
            break
    assert state.phase == "score"
    assert state.turns == state.player_turns


def _states() -> list[rules.State]:
    """A state of each phase, reached by legal actions on the test sheet."""
    setup = rules.initial_state()
    arthur = rules.apply(setup, {"type": "setup", "sheet": SHEET, "tile": TILE})
    player = rules.apply(arthur, {"type": "roll", "face": "fruit1"})
    score = rules.apply(player, {"type": "player", "crosses": 0, "filled": True})
    return [setup, arthur, player, score]


GARBAGE = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 60), st.floats(allow_nan=False), st.text(max_size=8),
    st.sampled_from([*RED, "cross", "setup", "roll", "player", "score", "lunch", "top", "hand"]),
    st.lists(st.integers(0, 5), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
LEGAL = [
    {"type": "setup", "difficulty": "lunch", "sheet": SHEET, "tile": TILE, "tie": "top",
     "setup_column": "counts"},
    {"type": "roll", "face": "fruit2", "source": "hand"},
    {"type": "player", "crosses": 2, "filled": False},
    {"type": "score", "hearts": 50, "stars": 3},
]


@settings(max_examples=400, deadline=None)
@given(
    which=st.integers(0, 3),
    base=st.sampled_from(LEGAL),
    changes=st.dictionaries(
        st.sampled_from(["type", "difficulty", "sheet", "tile", "tie", "setup_column", "face",
                         "source", "crosses", "filled", "hearts", "stars"]),
        GARBAGE, min_size=1, max_size=3),
)
@pytest.mark.slow
def test_mutated_actions_raise_only_rule_errors_and_change_nothing(which, base, changes):
    """An illegal action raises RuleError and nothing is half-applied: a legal action with
    fields swapped for garbage (a list difficulty, 1.0 crosses, True hearts) is applied or
    refused with a short RuleError, never a TypeError, and the state is left as it was."""
    state = _states()[which]
    before = repr(state)
    action = {**base, **changes}
    try:
        rules.apply(state, action)
    except RuleError as exc:
        assert all(len(line) <= 21 for line in str(exc).splitlines())
    assert repr(state) == before
    assert rules.describe_action(action)


@pytest.mark.parametrize("action", [
    {"type": "setup", "difficulty": ["lunch"]},
    {"type": "setup", "difficulty": {"a": 1}},
    {"type": "setup", "tie": ["top"]},
    {"type": "setup", "sheet": [1, 2]},
    {"type": ["roll"]},
])
def test_unhashable_fields_are_refused_not_crashed(action):
    """"Take a game sheet for you and one for Arthur": a setup whose fields are of the wrong
    kind is refused with a RuleError, not a TypeError."""
    with pytest.raises(RuleError):
        rules.apply(rules.initial_state(), action)


def test_bool_is_not_a_number_of_crosses():
    """"During your Crossing phase, each of your crosses grants the AI a cross": True is not a
    number of crosses."""
    player = _states()[2]
    with pytest.raises(RuleError, match=r"Crosses must be\na whole number 0\.\.5"):
        rules.apply(player, {"type": "player", "crosses": True, "filled": False})


def test_refusals_before_the_setup_speak_to_players():
    """"Take a game sheet for you and one for Arthur" comes first: a move before it says so in
    players' words, and an unknown move is not named by its internal type."""
    setup = rules.initial_state()
    with pytest.raises(RuleError, match=r"^Start a game first$"):
        rules.apply(setup, {"type": "roll", "face": "fruit1"})
    with pytest.raises(RuleError, match=r"^Not a Miams move$"):
        rules.apply(setup, {"type": "bogus"})


@pytest.mark.parametrize(("action", "words"), [
    ({"type": "roll", "face": "fruit3", "source": "box"}, "Arthur's roll"),
    ({"type": "player", "crosses": 1, "filled": False}, "your turn, 1 cross"),
    ({"type": "player", "crosses": 3, "filled": True}, "your turn, 3 crosses"),
    ({"type": "score", "hearts": 40, "stars": 2}, "your final score"),
    ({"type": "setup", "difficulty": "lunch"}, "the game setup"),
])
def test_describe_action_is_short_and_clear(action, words):
    """Undo says what it takes back ("Roll the red die for the AI" is Arthur's roll), in words
    that fit after "Can't undo: " on one 21-character line."""
    assert rules.describe_action(action) == words
    assert len(f"Can't undo: {words}") <= 32


def test_playing_leaves_the_sheet_in_the_state_untouched():
    """"the AI crosses the leftmost space of its highest least advanced skewer": the answer is
    worked out from the marks alone; nothing is cached on the sheet inside the game state."""
    state = start()
    sheet = state.options.sheet
    before = {name: repr(value) for name, value in vars(sheet).items()}
    for _ in range(3):
        state = rules.apply(roll(state, "fruit2"), {"type": "player", "crosses": 3, "filled": False})
    assert {name: repr(value) for name, value in vars(sheet).items()} == before


def _snapshot(state: rules.State) -> rules.State:
    """An independent copy of ``state``, rebuilt from its readable fields."""
    arthur = state.arthur
    return dataclasses.replace(state, arthur=rules.Side(arthur.rows, arthur.hearts, arthur.stars,
                                                        arthur.column))


@pytest.mark.parametrize("which, action", [
    (1, {"type": "roll", "face": "fruit1"}),
    (2, {"type": "player", "crosses": 3, "filled": False}),
    (3, {"type": "score", "hearts": 50, "stars": 2}),
])
def test_a_played_action_leaves_the_given_state_as_it_was(which, action):
    """The engine is pure: the rules change a draft, so the state handed to apply is the same
    afterwards, and the new state has a sheet of its own."""
    state = _states()[which]
    before = _snapshot(state)
    after = rules.apply(state, action)
    assert state == before and after != before
    assert after.arthur is not state.arthur


@pytest.mark.parametrize("which, action", [
    (2, {"type": "roll", "face": "fruit1"}),
    (2, {"type": "player", "crosses": 6}),
    (3, {"type": "score", "hearts": 40, "stars": 0}),
])
def test_a_refused_action_changes_nothing(which, action):
    """A refused action is not half-applied: the state handed to apply is the same after a
    refusal."""
    state = _states()[which]
    before = _snapshot(state)
    with pytest.raises(RuleError):
        rules.apply(state, action)
    assert state == before


@pytest.mark.parametrize("phase, action", [("arthur", {"type": "roll", "face": RED[0]}),
                                           ("player", {"type": "player", "crosses": 1})])
def test_a_started_game_without_its_options_is_refused_not_crashed(phase, action):
    # Not a rulebook case: a state no action sequence makes (a started game without its
    # sheet and tile) gets a refusal the box can show, never an AttributeError.
    broken = dataclasses.replace(start(), phase=phase, options=None)
    with pytest.raises(RuleError, match="Start a game first"):
        rules.apply(broken, action)
