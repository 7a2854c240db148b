"""The Miams coach on the simulated box: odds for typed-in dice and for the dice sensor's,
each skewer's best keep, and "My sheet"; it changes nothing in the game (issue 19)."""

from __future__ import annotations

import json
from fractions import Fraction

from companion.games import box_config as config
from companion.games.miams import ODDS, SPEC, odds
from companion.games.miams.coach import (
    COACH_FILE,
    COST_PROMPT,
    COST_ROW,
    Coach,
    MySheetScreen,
    OddsScreen,
    SkewerScreen,
    warm,
)
from companion.games.miams.screens import PlayScreen
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from tests.sensor_process import SimProcess
from tests.test_sensor_app import pump_until

TYPED = ["fruit1", "fruit1", "fruit3", "cross", "fruit5"]   # what the ODDS walk types in


def at_cross(box) -> PlayScreen:
    """A game on "cross one space on your sheet", the player's turn."""
    run_steps(box, ("game:miams", "menu:Start", "ACTION", "OK"))
    assert box.screen.view == "cross"
    return box.screen


def test_typed_in_dice_show_the_keep_and_each_skewers_chance(box):
    """"the player enters them with the buttons (UP/DOWN cycles faces, OK next die); the screen
    shows the keep to make (dice marked) and, per skewer, the chance in percent"."""
    run_steps(box, SPEC.screens.walk["cross"])
    actions, state = list(box.app.play.session.actions), box.app.play.session.state
    run_steps(box, ODDS[len(SPEC.screens.walk["cross"]):])
    screen = box.screen
    assert isinstance(screen, OddsScreen) and screen.coach.white == TYPED
    expected = odds.table(TYPED, None, 1)
    assert screen.table == expected
    # keep fruit1 fruit1: the pair kept, the rest rerolled for the likeliest rows
    assert odds.keep_marks(TYPED, screen.table.overall.keep) == (True, True, False, False, False)
    assert screen.title == "Miams · 1 reroll"
    box.press("DOWN")
    box.press("DOWN")
    box.press("OK")                              # Full house: its own best keep
    assert isinstance(box.screen, SkewerScreen) and box.screen.skewer == "full_house"
    pick = box.screen.table.best["full_house"]
    assert pick.keep.white == ("fruit1", "fruit1", "fruit3") and pick.chance == Fraction(3, 36)
    box.press("UP")                              # ▲▼ step through the skewers
    assert box.screen.skewer == "three"
    box.press("OK")
    box.press("BACK")                            # back to the dice, to change one
    assert screen.table is None and screen.field == 0
    box.press("BACK")                            # out of the coach, to the game
    assert box.screen.view == "cross"
    # it never plays for the player: no action, the same state
    assert box.app.play.session.actions == actions and box.app.play.session.state == state


def test_entering_dice_cycles_faces_and_the_red_die_and_rerolls(box):
    """UP/DOWN cycle a die's faces (wrapping), OK goes to the next die; the red die starts "not
    rolled", and the rerolls left 1; OK on the rerolls shows the odds."""
    at_cross(box)
    box.press("DOWN")
    screen = box.screen
    assert isinstance(screen, OddsScreen) and screen.table is None
    box.press("DOWN")                            # fruit1 → cross, backwards
    assert screen.coach.white[0] == "cross"
    box.press("UP")
    box.press("UP")
    assert screen.coach.white[0] == "fruit2"
    for _ in range(5):
        box.press("OK")
    assert screen.field == 5 and screen.coach.red is None
    box.press("DOWN")                            # the marshmallow, last of the red faces
    box.press("OK")
    box.press("UP")                              # 2 rerolls
    box.press("BACK")
    assert screen.field == 5                     # BACK steps back a die
    box.press("OK")
    box.press("OK")
    assert screen.table == odds.table(["fruit2", *["fruit1"] * 4], "marshmallow", 2)
    assert screen.title == "Miams · 2 rerolls"


def test_my_sheet_marks_a_row_in_two_presses_and_weighs_the_odds(box, tmp_path):
    """"the player can enter these once per game on a My sheet screen and the box keeps them up
    to date when the player says which skewer they scored, two presses"."""
    play = at_cross(box)
    assert play.coach.weights() is None          # no sheet entered: "most likely" is best
    box.press("UP")
    assert isinstance(box.screen, MySheetScreen)
    sheet = box.app.play.session.state.options.sheet
    assert play.coach.hearts == [row.hearts[0] for row in sheet.rows]
    box.press("DOWN")
    box.press("OK")
    box.press("OK")                              # 3 of a kind: "Marked it: next"
    assert play.coach.marked[1] == 1 and play.coach.hearts[1] == sheet.rows[1].hearts[1]
    assert sheet.rows[1].hearts[1] != sheet.rows[1].hearts[0]
    box.press("UP")
    box.press("OK")
    box.press("DOWN")
    box.press("OK")                              # Pair: set its hearts
    for _ in range(4):
        box.press("UP")
    box.press("OK")
    assert play.coach.hearts[0] == sheet.rows[0].hearts[0] + 4
    for _ in range(6):
        box.press("DOWN")                        # "✗ costs", in half hearts
    box.press("OK")
    box.press("UP")
    box.press("OK")
    weights = play.coach.weights()
    assert weights == odds.Weights(tuple(play.coach.hearts), Fraction(1, 2))
    box.press("BACK")
    run_steps(box, ODDS[len(SPEC.screens.walk["cross"]):])
    assert box.screen.table == odds.table(TYPED, None, 1, weights)
    # kept in the state directory for this game: a restart finds it again
    saved = json.loads((box.app.table.state_dir / COACH_FILE).read_text())
    assert saved["game"] == box.app.play.session.game_id and saved["hearts"] == play.coach.hearts
    again = Coach(box.app.table)
    assert (again.hearts, again.marked, again.cost_halves) == (
        play.coach.hearts, play.coach.marked, 1)
    assert len(box.app.play.session.actions) == 2     # setup and Arthur's roll: nothing journaled


def test_my_sheet_says_in_table_words_what_to_do(box, monkeypatch):
    """Issue 24, item 13: My sheet reads without the manual: each row's next free space as a
    place and the hearts printed in it ("1st 1♥", as "Circle the leftmost free box ... as many
    Hearts ... as the value of the space"), "I marked it" to move on, the printed hearts to set
    when they differ, and what a cross for Arthur costs ("Arthur's ✗ costs me"); no bare "#1"
    and no "Marked it: next"; nothing cut, down to the cost row and its stepper."""
    from tests.test_screens import shown

    play = at_cross(box)
    sheet = box.app.play.session.state.options.sheet
    box.press("UP")
    screen = box.screen
    assert isinstance(screen, MySheetScreen)
    assert screen.items[0].detail == f"1st {sheet.rows[0].hearts[0]}♥"
    assert (screen.items[-1].label, screen.items[-1].detail) == (COST_ROW, "0♥")
    assert screen.hint == "OK on a row you marked"
    drawn, cut = shown(box, monkeypatch)
    assert cut == [] and not any("#" in text for text in drawn)
    box.press("OK")                              # Pair: what is there to say about it
    assert box.screen.options == ["I marked it", "Mine shows other ♥"]
    assert box.screen.prompt == f"Pair: 1st {sheet.rows[0].hearts[0]}♥"
    box.press("OK")
    assert box.app.stack.toast_lines == ["Pair: next is", f"2nd {sheet.rows[0].hearts[1]}♥"]
    assert play.coach.marked[0] == 1
    for _ in range(len(sheet.rows[0].hearts)):   # the whole row marked: its end value is next
        play.coach.marked_one(0)
    box.app.table.pop()
    box.press("UP")
    assert box.screen.items[0].detail == f"end {sheet.rows[0].end}♥"
    for _ in range(len(box.screen.items) - 1):   # down to the cost row: it fits as well
        box.press("DOWN")
    drawn, cut = shown(box, monkeypatch)
    assert cut == [] and any(COST_ROW in text for text in drawn)
    box.press("OK")                              # and so does the stepper that sets it
    drawn, cut = shown(box, monkeypatch)
    assert cut == [] and any(COST_PROMPT in text for text in drawn)


def test_a_damaged_coach_file_starts_afresh(box):
    """Bad input loses nothing: an unreadable sheet file is left aside, the odds still work."""
    play = at_cross(box)
    bad = {"game": box.app.play.session.game_id, "hearts": [1, True], "marked": [], "cost_halves": 0}
    (box.app.table.state_dir / COACH_FILE).write_text(json.dumps(bad))
    coach = Coach(box.app.table)
    assert coach.weights() is None and coach.hearts == play.coach.hearts


def test_the_coach_without_a_game_knows_no_sheet_and_names_no_fruit(box):
    """Built with no game in play, the coach keeps no file, weighs nothing by a sheet and names
    each red face as a tile that names none would ("Stand-in 1"), never by a guessed fruit."""
    assert box.app.play.session is None
    coach = Coach(box.app.table)
    coach.changed()                              # nothing to keep it for: no file written
    assert coach.layout == () and not (box.app.table.state_dir / COACH_FILE).exists()
    assert coach.names["fruit1"] == "Stand-in 1" and coach.names["marshmallow"] == "Marshmallow"


def test_the_sensors_dice_give_the_odds_at_once_and_follow_a_reroll(tmp_path, sensor_path):
    """"the dice come from the sensor when one is online"; dice settling with the odds shown are
    the reroll."""
    sim = SimProcess(sensor_path, "--kinds", "miams")
    box = SimBox(tmp_path / "state", cfg=config.parse({"sensor": {"port": str(sensor_path)}}))
    try:
        app = box.app
        pump_until(box, lambda: app.sensor.online)
        run_steps(box, ("game:miams", "menu:Start"))
        sim.do("settle - - - - - fruit4")        # Arthur's red die
        pump_until(box, lambda: app.play.session.state.phase == "player")
        box.press("OK")
        sim.do("settle fruit1 fruit1 fruit3 cross fruit5 -")
        pump_until(box, lambda: box.screen.view == "dice")
        actions = list(app.play.session.actions)
        box.press("DOWN")
        screen = box.screen
        assert isinstance(screen, OddsScreen) and screen.table == odds.table(TYPED, None, 1)
        sim.do("settle fruit1 fruit1 fruit1 fruit1 fruit5 -")
        pump_until(box, lambda: screen.coach.white[2] == "fruit1")
        assert screen.table == odds.table(["fruit1"] * 4 + ["fruit5"], None, 0)
        assert screen.title == "Miams · 0 rerolls"
        assert app.play.session.actions == actions
    finally:
        box.close()
        sim.close()


def test_arthurs_sheet_a_row_a_page(box):
    """Issue 14: larger cells, a row per page: ▼ from his turn opens the row he circled, ▲▼
    page through the six rows, OK goes back."""
    run_steps(box, ("game:miams", "menu:Start", "ACTION"))
    play = box.screen
    circled = box.app.play.session.state.last.marks[0].row
    box.press("DOWN")
    assert play.view == "arthur-sheet" and play.page == 1 + circled
    box.press("DOWN")
    assert play.page == (circled + 2) % 7      # the overview comes after Yums
    box.press("OK")
    assert play.view == "turn"


def test_first_player_reads_as_a_fact_not_a_choice(box, monkeypatch):
    """"The AI plays first.": who starts is no setting, so the setup screen says it as a line of
    text, not as a row with a value that looks like a choice (issue 24, item 13)."""
    from tests.test_screens import shown

    run_steps(box, ("game:miams",))
    setup = box.screen
    assert [item.label for item in setup.items] == ["Start game", "Difficulty", "Sheet",
                                                    "Track my sheet"]
    drawn, _ = shown(box, monkeypatch)
    assert "Arthur plays first" in drawn
    for _ in range(5):  # ▼ stops on the last setting (no wrap to Start)
        box.press("DOWN")
    assert setup.items[setup.selected].label == "Track my sheet"
    run_steps(box, ("menu:Start game",))
    assert box.app.play.session.actions[0]["type"] == "setup"


def test_the_warm_up_while_typing_changes_no_odds():
    """The two-reroll work done while the dice are typed in gives the same table as cold."""
    dice = ["fruit2", "cross", "fruit2", "fruit4", "fruit5"]
    odds._solver.cache_clear()
    cold = odds.table(dice, "marshmallow", 2)
    odds._solver.cache_clear()
    warm(None)
    assert odds.table(dice, "marshmallow", 2) == cold


def test_the_sheet_is_on_the_disk_before_it_replaces_the_last_one(box, monkeypatch):
    """Found by the crash-state campaign (bench/crash_states.py): the new file was renamed
    over the last one before its text was flushed, and a power cut left it empty (the player's
    sheet gone, the coach starting afresh). Now its text is flushed first, then the rename."""
    import os

    play = at_cross(box)
    path = str(box.app.table.state_dir / COACH_FILE)
    done: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def flushed(fd: int) -> None:
        done.append(("flushed", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def renamed(source: str, target: str) -> None:
        done.append(("renamed", str(target)))
        replace(source, target)

    monkeypatch.setattr(os, "fsync", flushed)
    monkeypatch.setattr(os, "replace", renamed)
    play.coach.marked_one(0)
    rename = done.index(("renamed", path))
    assert any(what == "flushed" and name == path + ".part" for what, name in done[:rename])
    assert ("flushed", str(box.app.table.state_dir)) in done[rename:]  # and the rename itself
    assert json.loads((box.app.table.state_dir / COACH_FILE).read_text())["marked"][0] == 1
