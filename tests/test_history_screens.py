"""History and stats on the simulated box: every stats screen fits the OLED uncut, and a game
from history is shown and stepped through without touching the live game or the journal."""

from __future__ import annotations

import sqlite3

from companion.screens.history import GameScreen, HistoryScreen, StepScreen
from companion.simulator.walk import run_steps


def journal_rows(box) -> tuple:
    conn = sqlite3.connect(box.app.state_dir / "journal.db")
    try:
        return tuple(conn.execute(f"SELECT * FROM {t}").fetchall()
                     for t in ("games", "actions", "summaries", "settings"))
    finally:
        conn.close()


def test_stepping_through_a_game_changes_nothing(box):
    run_steps(box, ("seed:examples", "menu:History"))
    assert isinstance(box.screen, HistoryScreen)
    before = journal_rows(box)
    run_steps(box, ("DOWN", "DOWN", "DOWN", "OK"))          # the Café game
    assert isinstance(box.screen, GameScreen)
    run_steps(box, ("DOWN", "OK"))                          # step through
    step = box.screen
    assert isinstance(step, StepScreen) and step.step == 0
    for _ in range(8):
        box.press("OK")
    assert step.step == 8 and "8/45" in step.hint  # the example Café game has 45 actions
    box.press("ACTION")                                     # would be "order done" in play
    box.press("BACK")
    assert step.step == 7
    box.advance(170)                                        # a round's clock never runs here
    assert box.app.session is None and box.app.errors == 0
    assert journal_rows(box) == before
    for _ in range(7):
        box.press("BACK")
    assert step.step == 0
    box.press("BACK")                                       # at the start, BACK leaves
    assert isinstance(box.screen, GameScreen)


def test_final_screens_are_the_games_own_and_read_only(box):
    run_steps(box, ("seed:examples", "menu:History", *("DOWN",) * 4, "OK", "OK"))
    assert box.screen.title == "Makan · Final scores"
    before = journal_rows(box)
    for button in ("DOWN", "OK", "OK", "ACTION", "BACK"):
        box.press(button)
    assert box.app.session is None and box.app.errors == 0
    assert journal_rows(box) == before
    assert isinstance(box.screen, GameScreen)


def test_an_unfinished_game_is_marked_and_points_to_saved_games(box):
    run_steps(box, ("game:miams", "menu:Start", "ACTION"))  # a game under way
    box.press("OK", long=True)
    run_steps(box, ("OK", "menu:History"))
    history = box.screen
    assert [i.detail for i in history.items[2:]] == ["saved"]
    run_steps(box, ("DOWN", "DOWN", "OK"))
    rows = [label for label, _ in box.screen.rows()]
    assert rows[2:4] == ["Unfinished", "Resume: Saved games"]


def test_export_without_a_drive_says_so(box, monkeypatch):
    monkeypatch.setattr("companion.screens.history.removable_drive", lambda: None)
    run_steps(box, ("seed:examples", "menu:History", "menu:Export"))
    assert box.app._toast[0] == ["No USB drive:", "plug one in, then OK"]


def test_export_writes_both_files_to_the_drive(box, monkeypatch, tmp_path):
    drive = tmp_path / "STICK"
    drive.mkdir()
    monkeypatch.setattr("companion.screens.history.removable_drive", lambda: drive)
    run_steps(box, ("seed:examples", "menu:History", "menu:Export"))
    names = sorted(p.name for p in drive.iterdir())
    assert len(names) == 2 and names[0].endswith("-bgstats.json") and names[1].endswith(".csv")
    assert box.app._toast[0][0] == "Saved to STICK:"


def test_the_cafe_results_ok_returns_to_the_history(box):
    run_steps(box, ("seed:examples", "menu:History", "DOWN", "DOWN", "DOWN", "OK", "OK"))
    assert box.screen.title == "Crazy Café · result"
    box.press("OK")  # on the box: back to the menu; here: back to the game's page
    assert isinstance(box.screen, GameScreen) and box.app.errors == 0
