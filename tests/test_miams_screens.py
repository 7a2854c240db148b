"""Miams solo on the simulated box: real button presses through Arthur's and the player's turns."""

from __future__ import annotations

import pytest

from companion.games import box_config as config
from companion.games.miams import SPEC, ending, rules
from companion.games.miams.screens import PlayScreen, SetupScreen, marks_text
from companion.games.miams.sheet import DEFAULT_SHEET
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from companion.ui.widgets import ChoiceScreen, StepperScreen
from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import RED
from tests.conftest import assert_golden


def started(box, *steps: str) -> PlayScreen:
    run_steps(box, ("game:miams", *steps, "menu:Start"))
    assert isinstance(box.screen, PlayScreen)
    return box.screen


def state(box) -> rules.State:
    return box.app.play.session.state


def actions(box) -> list[dict]:
    return box.app.play.session.actions


def test_setup_journals_difficulty_and_sheet_data(box):
    """Setup: "Lunch: Cross off the 2 leftmost free spaces of each of its skewers"; the setup
    action carries the sheet and tile so the journal replays without files."""
    started(box, "menu:Difficulty", "menu:Lunch")
    first = actions(box)[0]
    assert first["type"] == "setup" and first["difficulty"] == "lunch"
    assert first["sheet"]["stand_in"] is True and set(first["tile"]["faces"]) == set(RED)
    assert state(box).arthur.rows == ("xx",) * 6


def test_box_roll_then_players_turn_and_undo(box):
    """"Roll the red die for the AI" (ACTION); the roll cannot be undone, the player's turn can."""
    screen = started(box)
    box.press("ACTION")
    roll = actions(box)[-1]
    assert roll["type"] == "roll" and roll["source"] == "box" and roll["face"] in RED
    assert state(box).phase == "player" and screen.view == "turn"
    before = state(box)

    box.press("BACK", long=True)  # a box roll stays
    assert actions(box)[-1] == roll and "error" in box.beeps()

    box.press("OK")
    assert screen.view == "cross"
    box.press("OK")           # to the crosses stepper
    box.press("UP")
    box.press("UP")
    box.press("OK")           # 2 crosses (turn 1: no track can be full yet, nothing more asked)
    assert actions(box)[-1] == {"type": "player", "crosses": 2, "filled": False}
    assert len(state(box).gift) >= 2
    assert state(box).phase == "arthur" and box.screen is screen and screen.view == "sheet"

    box.press("BACK", long=True)
    assert actions(box)[-1] == roll
    assert state(box) == before and screen.view == "turn"


def test_quiet_turn_takes_two_presses(box):
    """The player's turn in two presses when nothing special happened (no cross, track not
    full): the crosses, then "Not full yet", once the track could be full (turn 8 on the
    stand-in sheet)."""
    from companion.games.miams import ASKED_FROM, quiet_turns

    screen = started(box)
    run_steps(box, quiet_turns(ASKED_FROM - 1))
    box.press("ACTION")
    box.press("OK")
    assert screen.view == "cross"
    count = len(actions(box))
    box.press("OK")
    box.press("OK")
    assert box.screen.prompt == "Your hearts track:"
    box.press("OK")
    assert len(actions(box)) == count + 1
    assert actions(box)[-1] == {"type": "player", "crosses": 0, "filled": False}


def test_the_hearts_track_is_asked_about_only_when_it_could_be_full(box):
    """Issue 24, item 13: "Fill as many Hearts on your Hearts track as the value of the space
    you circled" and "The game ends when a player has filled all 50 Hearts": one space a turn,
    so on the stand-in sheet (7 hearts at most a space) no track is full before the 8th turn;
    until then OK on the crosses ends the turn, one press."""
    from companion.games.miams import ASKED_FROM

    screen = started(box)
    most = ending.richest(state(box).options.sheet)
    assert most == 7 and ASKED_FROM == 8
    for turn in range(1, ASKED_FROM + 1):
        run_steps(box, ("ACTION", "OK", "OK"))
        assert isinstance(box.screen, StepperScreen)
        box.press("OK")
        asked = isinstance(box.screen, ChoiceScreen)
        assert asked == (turn * most >= 50), turn
        if asked:
            assert box.screen.options == ["Not full yet", "All 50 filled"]
            box.press("OK")
        assert box.screen is screen and state(box).player_turns == turn
        assert actions(box)[-1] == {"type": "player", "crosses": 0, "filled": False}


def test_hand_entered_red_die_can_be_undone(box):
    """A face read off a physical red die is typed in with OK and can be taken back."""
    screen = started(box)
    box.press("OK")
    box.press("DOWN")
    box.press("OK")
    assert actions(box)[-1] == {"type": "roll", "face": RED[1], "source": "hand"}
    assert screen.view == "turn"
    box.press("BACK", long=True)
    assert state(box).phase == "arthur" and screen.view == "sheet"
    assert len(actions(box)) == 1


def test_sensor_red_die_is_arthurs_roll(box):
    """A settled red die on the dice sensor is recorded like a box roll; an unreadable one is
    refused and changes nothing."""
    screen = started(box)
    box.app.events.put(DiceSettled(faces=("fruit1", None), kinds=("white", "red")))
    box.app.pump()
    assert len(actions(box)) == 1 and "error" in box.beeps()
    box.app.events.put(DiceSettled(faces=("cross", "fruit4"), kinds=("white", "red")))
    box.app.pump()
    assert actions(box)[-1] == {"type": "roll", "face": "fruit4", "source": "sensor"}
    assert screen.view == "turn"


def test_player_fills_fifty_then_scores_and_result(box):
    """"As soon as a player has filled all 50 Hearts ... take turns until everyone has taken the
    same number of turns." Then "Count your score and the AI's"."""
    from companion.games.miams import FILLED_ASKED

    screen = started(box)
    run_steps(box, (*FILLED_ASKED, "DOWN", "OK"))
    assert state(box).phase == "score" and screen.view == "final"
    run_steps(box, ("OK", "OK", "UP", "UP", "OK"))  # hearts 50 (filled), stars 2
    assert actions(box)[-1] == {"type": "score", "hearts": 50, "stars": 2}
    assert rules.is_finished(state(box)) and screen.view == "result"
    assert rules.winner(state(box)) == "player"
    box.press("DOWN")
    assert screen.view == "arthur-sheet"


def test_refused_undo_names_arthurs_roll(box):
    """A box roll is dice the table has seen: hold BACK says "Can't undo: Arthur's roll"."""
    started(box)
    box.press("ACTION")
    box.press("BACK", long=True)
    assert " ".join(box.app.stack.toast_lines) == "Can't undo: Arthur's roll"


@pytest.mark.parametrize("name", sorted(SPEC.screens.walk))
def test_every_miams_screen_title_names_the_game(box, name):
    """UX: "the title bar says where we are": the game's name and the place, on every screen."""
    run_steps(box, SPEC.screens.walk[name])
    title = box.screen.title
    assert title.startswith("Miams · ") and len(title) > len("Miams · ")


@pytest.fixture
def bad_sheet_box(tmp_path):
    """A box configured with the stand-in sheet copied, one row's end value broken."""
    bad = tmp_path / "bad_end.toml"
    text = DEFAULT_SHEET.read_text(encoding="utf-8")
    bad.write_text(text.replace("end = ", "end = 'ten' #", 1), encoding="utf-8")
    box = SimBox(tmp_path / "state", cfg=config.parse({"games": {"miams": {"sheet": str(bad)}}}))
    yield box
    box.close()


def test_bad_configured_sheet_is_named_and_the_stand_in_offered(bad_sheet_box):
    """A configured sheet that does not load is not listed as its bare name: the setup screen
    says what is wrong and where to look, and Start plays on the stand-in."""
    box = bad_sheet_box
    run_steps(box, ("game:miams",))
    screen = box.screen
    assert isinstance(screen, SetupScreen)
    assert screen.problem == "Sheet bad_end.toml: end not a number"
    assert {item.label: item.detail for item in screen.items}["Sheet"] == "stand-in"
    assert_golden(box.frame(), "miams-bad-sheet")
    run_steps(box, ("menu:Start",))
    assert box.app.play.session.actions[0]["sheet"]["stand_in"] is True


def test_missing_configured_sheet_says_missing(tmp_path):
    """A sheet path that names no file is "missing", not shown as a sheet called by its name."""
    box = SimBox(tmp_path / "state",
                 cfg=config.parse({"games": {"miams": {"sheet": str(tmp_path / "x.toml")}}}))
    try:
        run_steps(box, ("game:miams",))
        assert box.screen.problem == "Sheet x.toml: missing"
        assert [p.stem for p in box.screen.sheets] == ["default"]
    finally:
        box.close()


def test_sensor_reads_back_the_players_dice_and_presets_the_crosses(box):
    """Issue 6: "the player's five white dice (and red) can be shown read back": the faces
    are shown, the stepper starts at the white crosses, and the player still confirms."""
    screen = started(box)
    box.press("ACTION")            # Arthur's box roll
    box.press("OK")                # "cross one space on your sheet"
    kinds = ("white",) * 5 + ("red",)
    box.app.events.put(DiceSettled(faces=("cross", "fruit2", "cross", "fruit2", None, "marshmallow"),
                             kinds=kinds))
    box.app.pump()
    assert screen.view == "dice" and box.screen is screen
    assert screen.title == "Miams · your dice"
    assert_golden(box.frame(), "miams-read-back")
    count = len(actions(box))
    box.press("OK")                # the stepper, preset to the 2 crosses
    assert box.screen.value == 2
    box.app.events.put(DiceSettled(faces=("cross",) * 3 + ("fruit1",) * 2 + ("fruit1",), kinds=kinds))
    box.app.pump()                 # a re-roll while the stepper is open follows the dice
    assert box.screen.value == 3
    box.press("DOWN")              # the player may change it
    box.press("OK")
    box.press("OK")                # "Not full yet"
    assert len(actions(box)) == count + 1
    assert actions(box)[-1] == {"type": "player", "crosses": 2, "filled": False}
    assert screen.view == "sheet" and screen.dice == ()


def test_crosses_are_named_in_words():
    """"Cross off the leftmost free space of its highest least advanced skewer": the screen
    names the skewer and the space by its place, "3 of a kind 2nd", not a code or a bare number."""
    marks = (rules.Mark(1, 1, rules.CROSS, 0, 0, 1), rules.Mark(0, 4, rules.CROSS, 0, 2, 0))
    assert marks_text(marks) == "3 of a kind 2nd, Pair 5th +★★"
    from companion.games.miams.sheet_view import OVERVIEW_NAMES
    assert marks_text(marks[:1], OVERVIEW_NAMES) == "3-kind 2nd"   # short, for the token line


def test_the_players_last_turn_is_announced(box, monkeypatch):
    """Issue 24, item 13: "As soon as a player has filled all 50 Hearts of their Hearts track,
    take turns until everyone has taken the same number of turns": once Arthur's roll fills
    his 50, the screen says the player's coming turn is the last; the space circled reads as a
    place ("3rd space"), apart from its hearts."""
    from companion.games.miams import STARTED, quiet_turns
    from tests.test_screens import shown

    run_steps(box, STARTED)
    for turn in range(1, 41):
        run_steps(box, ("ACTION",))
        state = box.app.play.session.state
        if state.arthur.hearts >= 50:
            break
        assert box.screen.title.startswith("Miams · Arthur #")
        assert SPEC.rules.describe(state) == f"your turn {turn}"
        drawn, _ = shown(box, monkeypatch)
        assert any(text.endswith(("st space", "nd space", "rd space", "th space", "row full"))
                   for text in drawn)
        run_steps(box, quiet_turns(1, turn)[1:])
    assert box.app.play.session.state.arthur.hearts >= 50
    assert box.screen.title == "Miams · last turn!"
    # every screen of that turn says so, and the phone's live view too
    assert SPEC.rules.describe(box.app.play.session.state) == f"your last turn {turn}"
    box.press("OK")
    drawn, cut = shown(box, monkeypatch)
    assert box.screen.title == "Miams · last turn!" and "Then your last turn!" in drawn
    assert cut == []
    box.press("OK")
    assert box.screen.title == "Miams · last turn!"      # the crosses on the dice
    box.press("OK")                                       # the game ends whatever the track
    assert box.app.play.session.state.phase == "score"
    assert actions(box)[-1] == {"type": "player", "crosses": 0, "filled": False}


def test_the_space_circled_is_a_place_apart_from_its_hearts(box, monkeypatch):
    """Issue 24, item 13: "Circle the leftmost free box ... Fill as many Hearts on your Hearts
    track as the value of the space you circled." The space printed with a number is its value;
    its place is said as an ordinal ("4th space"), so "+2♥" is the only number of hearts."""
    from companion.ui.words import ordinal
    from tests.test_screens import shown

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd"]
    started(box)
    box.press("OK")
    box.press("UP")           # the red die typed in: Marshmallow, Yums on the stand-in tile
    box.press("OK")
    drawn, _ = shown(box, monkeypatch)
    assert "Yums: 1st space" in drawn and "+3♥" in drawn
    assert not any("#" in text for text in drawn if not text.startswith("Miams ·"))


NAMED_TILE = """name = "My tile"
stand_in = false
[faces]
fruit1 = "pair"
fruit2 = "three"
fruit3 = "full_house"
fruit4 = "four"
fruit5 = "straight"
marshmallow = "yums"
[names]
fruit3 = "Strawberry"
"""


def test_the_red_die_is_named_as_the_table_named_its_fruits(tmp_path, monkeypatch):
    """Issue 24, item 13: "The solo mini-board indicates which skewer is scored", and a die's
    faces are pictures the rulebook does not name: the tile file's [names] name them, on the
    box and the phone's live view; a fruit left unnamed shows as a stand-in ("Stand-in 1"),
    never as a fruit it may not be, and the die typed in is picked with the skewer beside it."""
    from companion.games.miams import live
    from tests.test_screens import shown

    tile = tmp_path / "tile.toml"
    tile.write_text(NAMED_TILE, encoding="utf-8")
    box = SimBox(tmp_path / "state", cfg=config.parse({"games": {"miams": {"tile": str(tile)}}}))
    try:
        run_steps(box, ("game:miams",))
        drawn, _ = shown(box, monkeypatch)
        assert "⚠ Stand-in values" in drawn          # the sheet is still the stand-in
        run_steps(box, ("menu:Start",))
        box.press("OK")                              # type in the physical red die
        choice = box.screen
        assert choice.options == ["Stand-in 1", "Stand-in 2", "Strawberry", "Stand-in 4",
                                  "Stand-in 5", "Marshmallow"]
        assert choice.details == ["Pair", "3-kind", "Full", "4-kind", "Straight", "Yums"]
        drawn, cut = shown(box, monkeypatch)
        assert cut == [] and "Strawberry" in drawn and "Full" in drawn
        box.press("DOWN")
        box.press("DOWN")
        box.press("OK")
        drawn, _ = shown(box, monkeypatch)
        assert "Red die: Strawberry" in drawn and "Full house: 1st space" in drawn
        game = box.app.play.session
        view = live.data(game.state, SPEC.rules, [])
        assert view["roll_words"] == "Strawberry → Full house"
        assert ("Roll", "Strawberry → Full house") in view["board"]["facts"]
    finally:
        box.close()


def test_a_real_sheet_with_the_stand_in_tile_warns_of_the_tile(tmp_path, monkeypatch):
    """The stand-in tile's faces map to invented skewers: with a sheet of the table's own and
    no tile of its own, the setup screen says "⚠ Stand-in tile"."""
    from tests.test_screens import shown

    sheet = tmp_path / "mine.toml"
    sheet.write_text(DEFAULT_SHEET.read_text(encoding="utf-8").replace(
        "stand_in = true", "stand_in = false"), encoding="utf-8")
    box = SimBox(tmp_path / "state", cfg=config.parse({"games": {"miams": {"sheet": str(sheet)}}}))
    try:
        run_steps(box, ("game:miams",))
        drawn, cut = shown(box, monkeypatch)
        assert "⚠ Stand-in tile" in drawn and "⚠ Stand-in values" not in drawn and cut == []
    finally:
        box.close()


def test_crosses_that_would_not_fit_the_toast_are_counted(box):
    """Found playing a game: three crosses from the player's dice ("each of your crosses grants
    the AI a cross") made a toast of three lines and the third was dropped unseen, and two split
    "Full / house #3" over the lines. Each space stays whole on a line, by its short name if need
    be; a gift that does not fit two lines is counted, with where to see it."""
    from companion.frame.canvas import TOAST_LINE
    from companion.frame.font import SMALL
    from companion.games.miams.screens import gift_text

    two = (rules.Mark(2, 2, rules.CROSS, 0, 0, 0), rules.Mark(0, 3, rules.CROSS, 0, 0, 0))
    three = (*two, rules.Mark(1, 1, rules.CROSS, 0, 1, 0))
    assert gift_text(two[1:]) == ("Arthur crosses", "Pair 4th")
    assert gift_text(two) == ("Arthur crosses", "Full 3rd, Pair 4th")
    assert gift_text(three) == ("Arthur crosses", "3 spaces +★ (▼ rows)")
    for gift in (two, three):
        assert all(SMALL.width(line) <= TOAST_LINE for line in gift_text(gift))
    started(box)
    run_steps(box, ("ACTION", "OK", "OK", "UP", "UP", "UP", "UP", "UP", "OK"))  # five crosses
    assert tuple(box.app.stack.toast_lines) == gift_text(state(box).gift)


def test_a_full_row_never_reads_as_a_bare_count(box, monkeypatch):
    """Found playing a game: Arthur's overview showed a full Straight row as "6", since
    "Straight full" is too wide for its column; a full row reads "full" or "6/6"."""
    from PIL import Image

    from companion.frame.canvas import Canvas
    from companion.games.miams.sheet_view import draw_overview
    from tests.test_screens import spying

    started(box)
    options = state(box).options
    rows = tuple("x" * len(row.hearts) for row in options.sheet.rows)
    canvas = Canvas(Image.new("1", (128, 64)), 10, 54)
    with spying(monkeypatch) as (drawn, cut):
        draw_overview(canvas, options.sheet, rules.Side(rows, 50, 0))
    size = len(options.sheet.rows[4].hearts)
    assert "Straight" in drawn and drawn[drawn.index("Straight") + 1] in ("full", f"{size}/{size}")
    assert cut == []


# ----- issue 39: both sheets kept by the box -----------------------------------------------------

def tracked_turn(box, *presses: str) -> None:
    """Arthur's box roll, his turn read, then the player's questions answered by ``presses``."""
    box.press("ACTION")
    box.press("OK")     # his turn read: "cross one space on your sheet"
    box.press("OK")     # the questions start
    for press in presses:
        box.press(press)


def test_track_my_sheet_asks_what_was_marked_and_scores_both_sheets(box, monkeypatch):
    """"Track my sheet too": each turn the box asks the row crossed for Arthur ("Cross off your
    own game sheet like in a multiplayer game"), the crosses, the skewer scored ("Circle the
    leftmost free box ... on the row of the skewer you obtained") and, with stars held, the
    stars paid; at the end it scores both sheets and says who won, with nothing typed in."""
    from tests.test_screens import shown

    started(box, "menu:Track my sheet")
    assert actions(box)[0]["own_sheet"] is True
    box.press("ACTION")
    box.press("OK")
    box.press("OK")
    assert isinstance(box.screen, ChoiceScreen) and box.screen.prompt == "I crossed for Arthur:"
    drawn, cut = shown(box, monkeypatch)
    assert "Pair" in drawn and "1st 1♥" in drawn and cut == []
    box.press("DOWN")
    box.press("DOWN")
    box.press("DOWN")   # 4 of a kind
    box.press("OK")
    assert isinstance(box.screen, StepperScreen)
    box.press("OK")     # no cross on the dice
    assert box.screen.prompt == "I scored:"
    assert box.screen.options[-2:] == ["Catch-up space", "Nothing"]
    drawn, cut = shown(box, monkeypatch)
    assert "Pair" in drawn and "1st 1♥" in drawn and cut == []
    box.press("UP")
    box.press("UP")     # the list wraps: Nothing, then Catch-up space
    box.press("OK")
    assert box.screen.prompt == "Catch-up space:"
    box.press("OK")     # the 1st: a star on the stand-in sheet ("obtain the Bonus token")
    assert box.screen.prompt == "Stars paid to buy"
    box.press("UP")
    box.press("OK")     # "for 3 stars, buy the top card": here a 1-star card
    turn = actions(box)[-1]
    assert turn == {"type": "player", "crosses": 0, "crossed": "four", "scored": "catch_up",
                    "catch_up": 0, "paid": 1}
    assert state(box).own.side.rows[:4] == ("", "", "", "x") and state(box).own.stars == 0
    # the coach's My sheet follows the sheet the box keeps
    assert box.screen.coach.marked[:4] == [0, 0, 0, 1] and box.screen.coach.tracked
    for _ in range(40):
        if state(box).phase == "over":
            break
        tracked_turn(box, "OK", "OK", "OK")  # the first free row crossed, no cross, Pair scored
        while not isinstance(box.screen, PlayScreen):
            box.press("OK")    # the stars stepper, when the player holds stars: none paid
    assert state(box).phase == "over"
    screen = box.screen
    assert screen.view == "result" and screen.hint == "▼ Arthur ▲ my sheet"
    mine = state(box).own
    assert state(box).player_score == (mine.side.hearts, mine.stars)
    drawn, cut = shown(box, monkeypatch)
    assert str(sum(state(box).player_score)) in drawn and cut == []
    assert any(line in drawn for line in ("You win!", "Arthur wins!", "Tie: Arthur holds on"))
    box.press("UP")
    assert screen.view == "own-sheet"
    drawn, _ = shown(box, monkeypatch)
    assert f"{mine.side.hearts}" in drawn
    box.press("OK")
    assert screen.view == "result"


def test_without_track_my_sheet_the_turn_is_as_before(box):
    """The option off (the default): the setup has no own_sheet and a turn is one stepper."""
    started(box)
    assert "own_sheet" not in actions(box)[0]
    box.press("ACTION")
    box.press("OK")
    box.press("OK")
    assert isinstance(box.screen, StepperScreen) and box.screen.prompt == "Crosses on your dice"
