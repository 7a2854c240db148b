"""History and stats on the simulated box: every stats screen fits the OLED uncut, and a game
from history is shown and stepped through without touching the live game or the journal."""

from __future__ import annotations

import json
import sqlite3

from companion.records import roster
from companion.screens.history import GameScreen, HistoryScreen, StepScreen
from companion.simulator.walk import run_steps
from companion.ui.widgets import ChoiceScreen


def journal_rows(box) -> tuple:
    conn = sqlite3.connect(box.app.table.state_dir / "journal.db")
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
    # The example Café game has 45 actions, 2 of them silent clock readings: 43 steps.
    assert step.step == 8 and "8/43" in step.hint
    box.press("ACTION")                                     # would be "order done" in play
    box.press("BACK")
    assert step.step == 7
    box.advance(170)                                        # a round's clock never runs here
    assert box.app.play.session is None and box.app.errors == 0
    assert journal_rows(box) == before
    for _ in range(7):
        box.press("BACK")
    assert step.step == 0
    box.press("BACK")                                       # at the start, BACK leaves
    assert isinstance(box.screen, GameScreen)


def test_final_screens_are_the_games_own_and_read_only(box):
    run_steps(box, ("seed:examples", "menu:History", *("DOWN",) * 4, "OK", "OK"))
    assert box.screen.title == "Makan · Scores"
    before = journal_rows(box)
    for button in ("DOWN", "OK", "OK", "ACTION", "BACK"):
        box.press(button)
    assert box.app.play.session is None and box.app.errors == 0
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
    assert box.app.stack.toast_lines == ["No USB drive:", "plug one in, then OK"]


def test_export_writes_both_files_to_the_drive(box, monkeypatch, tmp_path):
    drive = tmp_path / "STICK"
    drive.mkdir()
    monkeypatch.setattr("companion.screens.history.removable_drive", lambda: drive)
    run_steps(box, ("seed:examples", "menu:History", "menu:Export"))
    names = sorted(p.name for p in drive.iterdir())
    assert len(names) == 2 and names[0].endswith(".bgsplay") and names[1].endswith(".csv")
    assert box.app.stack.toast_lines[0] == "Saved to STICK:"


def test_the_first_export_asks_who_is_me_once(box, monkeypatch, tmp_path):
    """The play file's "me": asked at the first export with a roster, then never again;
    Settings → Me shows and changes it."""
    drive = tmp_path / "STICK"
    drive.mkdir()
    monkeypatch.setattr("companion.screens.history.removable_drive", lambda: drive)
    run_steps(box, ("seed:examples",))
    with roster.connect(box.app.table.state_dir) as conn:
        roster.add(conn, "Dee")
        roster.add(conn, "Ana")
    run_steps(box, ("menu:History", "menu:Export"))
    assert isinstance(box.screen, ChoiceScreen) and box.screen.title == "Who are you?"
    assert box.screen.options[-1] == "None of these" and not list(drive.iterdir())
    run_steps(box, ("menu:Dee",))
    played = json.loads(next(drive.glob("*.bgsplay")).read_text(encoding="utf-8"))
    me = next(p for p in played["players"] if p["id"] == played["userInfo"]["meRefId"])
    assert me["name"] == "Dee" and isinstance(box.screen, HistoryScreen)
    for path in drive.iterdir():
        path.unlink()
    run_steps(box, ("menu:Export",))  # asked once: the files are written at once
    assert len(list(drive.iterdir())) == 2 and isinstance(box.screen, HistoryScreen)
    box.press("BACK")
    run_steps(box, ("menu:Settings",))
    assert ("Me", "Dee") in [(i.label, i.detail) for i in box.screen.items]
    run_steps(box, ("menu:Me", "menu:None"))
    assert ("Me", "-") in [(i.label, i.detail) for i in box.screen.items]
    assert box.app.errors == 0


def test_the_cafe_results_ok_returns_to_the_history(box):
    run_steps(box, ("seed:examples", "menu:History", "DOWN", "DOWN", "DOWN", "OK", "OK"))
    assert box.screen.title == "Café · result"
    box.press("OK")  # on the box: back to the menu; here: back to the game's page
    assert isinstance(box.screen, GameScreen) and box.app.errors == 0


def test_a_play_imported_from_a_play_file_shows_its_result_without_actions(box):
    """A play file holds results: the box lists the play and its seats, and its final screens
    say there are no actions to show rather than replaying nothing."""
    from pathlib import Path

    from companion.games.catalog import GAMES
    from companion.records.importing import import_plays, read_play_file

    sample = Path(__file__).parent / "fixtures" / "history" / "sample.bgsplay"
    found = read_play_file(sample.read_text(encoding="utf-8"), GAMES)
    assert [game_id for game_id, _ in import_plays(box.app.play.journal, found.plays)] == [1]
    run_steps(box, ("menu:History",))
    assert box.screen.items[2].label.endswith("Café")
    run_steps(box, ("DOWN", "DOWN", "OK"))
    rows = box.screen.rows()
    assert ("Result", "won R3") in rows and ("Mira ★", "") not in rows  # the table's one result
    box.press("OK")                                         # Final screens
    assert box.app.stack.toast_lines == ["An imported play:", "no actions to show"]
    assert isinstance(box.screen, GameScreen) and box.app.errors == 0
