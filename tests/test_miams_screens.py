"""Miams solo on the simulated box: real button presses through Arthur's and the player's turns."""

from __future__ import annotations

from companion.games.miams import rules
from companion.games.miams.screens import PlayScreen
from companion.walk import run_steps
from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import RED


def started(box, *steps: str) -> PlayScreen:
    run_steps(box, ("game:miams", *steps, "menu:Start"))
    assert isinstance(box.screen, PlayScreen)
    return box.screen


def state(box) -> rules.State:
    return box.app.session.state


def actions(box) -> list[dict]:
    return box.app.session.actions


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
    box.press("OK")           # 2 crosses
    box.press("OK")           # "Not full yet"
    assert actions(box)[-1] == {"type": "player", "crosses": 2, "filled": False}
    assert len(state(box).gift) >= 2
    assert state(box).phase == "arthur" and box.screen is screen and screen.view == "sheet"

    box.press("BACK", long=True)
    assert actions(box)[-1] == roll
    assert state(box) == before and screen.view == "turn"


def test_quiet_turn_takes_two_presses(box):
    """The player's turn in two presses when nothing special happened: no cross, track not full."""
    screen = started(box)
    box.press("ACTION")
    box.press("OK")
    assert screen.view == "cross"
    count = len(actions(box))
    box.press("OK")
    box.press("OK")
    box.press("OK")
    assert len(actions(box)) == count + 1
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
    box.app.post(DiceSettled(faces=("fruit1", None), kinds=("white", "red")))
    box.app.pump()
    assert len(actions(box)) == 1 and "error" in box.beeps()
    box.app.post(DiceSettled(faces=("cross", "fruit4"), kinds=("white", "red")))
    box.app.pump()
    assert actions(box)[-1] == {"type": "roll", "face": "fruit4", "source": "sensor"}
    assert screen.view == "turn"


def test_player_fills_fifty_then_scores_and_result(box):
    """"As soon as a player has filled all 50 Hearts ... take turns until everyone has taken the
    same number of turns." Then "Count your score and the AI's"."""
    screen = started(box)
    run_steps(box, ("ACTION", "OK", "OK", "OK", "DOWN", "OK"))
    assert state(box).phase == "score" and screen.view == "final"
    run_steps(box, ("OK", "OK", "UP", "UP", "OK"))  # hearts 50 (filled), stars 2
    assert actions(box)[-1] == {"type": "score", "hearts": 50, "stars": 2}
    assert rules.is_finished(state(box)) and screen.view == "result"
    assert rules.winner(state(box)) == "player"
    box.press("DOWN")
    assert screen.view == "arthur-sheet"
