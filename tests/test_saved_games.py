"""The box and its healing journal (issue "Nothing lost, ever", the app's side): the journal
comes back and says so, its warning is never hidden, a read-only journal still offers its
game, lost play is named, and starting a game never ends another."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace

import pytest

from companion.box.play import RETRY_S
from companion.contract.saved_games import when_text
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from companion.ui.journal_words import status_text
from tests.counter_game import SPEC

OTHER = replace(SPEC, key="tally2", title="Other tally")
# A tally played in rounds of three: a save point each time the round changes.
ROUNDS = replace(SPEC, key="rounds", title="Rounds",
                 rules=replace(SPEC.rules, describe=lambda state: f"round {state // 3 + 1}"))


@pytest.fixture(autouse=True)
def tallies(monkeypatch):
    monkeypatch.setitem(GAMES, SPEC.key, SPEC)
    monkeypatch.setitem(GAMES, OTHER.key, OTHER)
    monkeypatch.setitem(GAMES, ROUNDS.key, ROUNDS)


def start(box: SimBox, spec=SPEC) -> None:
    box.app.table.games.start(spec.key)
    box.app.pump()


def leave(box: SimBox) -> None:
    """Hold OK for the menu and confirm: the game stays saved."""
    box.press("OK", long=True)
    box.press("OK")


def toast(box: SimBox) -> str:
    return " ".join(box.app.stack.toast_lines) if box.app.stack.toast_lines else ""


def fill_disk(box: SimBox) -> None:
    journal = box.app.play.journal
    pages = journal._disk.execute("PRAGMA page_count").fetchone()[0]
    journal._disk.execute(f"PRAGMA max_page_count = {pages}")
    for _ in range(600):
        box.press("ACTION")
        if not journal.status.ok:
            return
    raise AssertionError("the disk never filled")


# ----- 1. the journal comes back, and its warning is seen -----------------------------------
def test_after_a_full_disk_the_journal_comes_back_by_itself_and_says_so(tmp_path):
    box = SimBox(tmp_path)
    start(box)
    fill_disk(box)
    assert "⚠" in box.app.panel.status_icons()
    assert toast(box) == "Disk full: play kept in memory"
    for _ in range(25):
        box.press("ACTION")
    assert status_text(box.app.play.journal.status) == "disk full: 26 held"
    box.app.play.journal._disk.execute("PRAGMA max_page_count = 1000000")  # space freed
    box.advance(RETRY_S + 0.1)  # no press needed: the loop retries
    assert toast(box) == "Journal back: 26 actions saved"
    assert "⚠" not in box.app.panel.status_icons()
    played = box.app.play.session.state
    box.close()
    box = SimBox(tmp_path)
    try:
        box.press("OK")
        assert box.app.play.session.state == played
    finally:
        box.close()


def test_the_journal_warning_is_not_replaced_by_the_undo_message(box):
    start(box)
    box.press("ACTION")
    box.app.play.journal._disk.execute("PRAGMA query_only = 1")  # the card turns read-only
    box.press("BACK", long=True)  # an undo whose write fails
    assert toast(box) == "Read-only: play kept in memory"
    box.press("DOWN")  # a press does not dismiss it either
    assert toast(box) == "Read-only: play kept in memory"
    box.advance(4.1)
    assert toast(box) == "Undone: add 1", "the undo's message follows the warning"
    assert "⚠" in box.app.panel.status_icons()


# ----- 2. a journal that cannot be written still offers its saved game: see
# tests/test_journal_heal.py::test_the_box_offers_the_saved_game_of_a_read_only_journal

# ----- 3. lost play is named, the kept file readable ----------------------------------------
def test_a_lost_wal_costs_only_the_stage_in_play_and_the_box_names_it(tmp_path):
    """Each change of stage is a save point: the file alone holds every stage before it."""
    box = SimBox(tmp_path / "box")
    start(box, ROUNDS)
    for _ in range(4):  # round 1 is 0..2; the fourth press is played in round 2
        box.press("ACTION")
    copy = tmp_path / "cut"
    copy.mkdir()
    shutil.copy(tmp_path / "box" / "journal.db", copy)  # a power cut, and the WAL lost
    box.close()
    box = SimBox(copy)
    try:
        assert toast(box) == "Log gone: play after round 1 may be lost"
        box.press("OK")
        assert box.app.play.session.state == 3, "only the play since the last round's end is gone"
    finally:
        box.close()


def test_the_about_screen_names_the_kept_damaged_journal(tmp_path):
    (tmp_path / "journal.db").write_bytes(b"this is not a database" * 100)
    box = SimBox(tmp_path)
    try:
        kept = box.app.play.journal.startup.kept
        assert kept in toast(box), "the start-up notice names the kept file whole"
        from companion.screens.system import AboutScreen

        lines = AboutScreen(box.app.table).lines()
        assert f" {kept}" in lines and "Journal: ok" in lines
    finally:
        box.close()


# ----- 6. starting another game keeps the one in progress -----------------------------------
def test_starting_another_game_keeps_the_first_and_either_resumes(tmp_path):
    box = SimBox(tmp_path)
    start(box)
    box.press("ACTION")
    box.press("ACTION")
    leave(box)
    start(box, OTHER)  # no question, nothing abandoned
    box.press("ACTION")
    box.close()
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "ResumeScreen"
        assert box.screen.question == "Resume Other tally, at 1?"
        box.press("DOWN")  # the list, one press away
        assert box.screen.name() == "SavedGamesScreen"
        assert [e.heading for e in box.screen.entries] == ["Other tally, at 1", "Tally, at 2"]
        box.press("DOWN")
        box.press("OK")
        assert (box.app.play.session.spec.key, box.app.play.session.state) == ("tally", 2)
        assert [s for _, _, s in box.app.play.journal.history()] == ["playing", "playing"]
    finally:
        box.close()


def test_a_saved_game_is_discarded_only_after_a_confirm(box):
    for spec in (SPEC, OTHER):
        start(box, spec)
        leave(box)
    assert box.screen.items[0].label == "Resume"
    box.press("OK")
    box.press("ACTION")
    assert box.screen.name() == "ConfirmScreen"
    box.press("BACK")
    assert len(box.app.play.saved_games()) == 2, "BACK keeps it"
    box.press("ACTION")
    box.press("OK")
    assert [e.title for e in box.app.play.saved_games()] == ["Tally"]
    assert box.app.play.journal.history()[0][2] == "abandoned"


def test_when_a_game_was_played_reads_as_the_table_says_it():
    now = time.mktime((2026, 11, 30, 16, 0, 0, 0, 0, -1))  # a Monday
    assert when_text(now - 3600, now) == "today 15:00"
    assert when_text(now - 2 * 86400 + 3600 * 4, now) == "Sat 20:00"
    assert when_text(now - 20 * 86400, now) == "10 Nov 16:00"


def test_a_stop_while_the_disk_refuses_says_what_was_not_saved(tmp_path):
    box = SimBox(tmp_path)
    start(box)
    fill_disk(box)
    box.press("ACTION")
    box.app.shutdown("Stopped")
    assert box.app.stack.screens[-1].lines() == ("Stopped", "Not saved: disk full, 2 actions lost")
