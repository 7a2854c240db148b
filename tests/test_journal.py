"""The journal: durable actions, undo, resume, and a box that survives a bad database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.games.catalog import GAMES
from companion.journal.journal import Journal
from companion.simulator.simbox import SimBox
from companion.ui.journal_words import note_text
from tests.counter_game import SPEC

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tally(monkeypatch):
    monkeypatch.setitem(GAMES, SPEC.key, SPEC)
    return SPEC


def start_tally(box: SimBox) -> None:
    box.app.table.push(SPEC.screens.new_game(box.app.table))
    box.press("OK")


def test_actions_are_stored_in_order_and_undo_removes_the_last(tmp_path):
    journal, note = Journal.open(tmp_path)
    assert note is None
    game = journal.new_game("tally")
    for n in (1, 2, 3):
        journal.append(game, {"type": "add", "n": n}, undoable=True)
    journal.pop_last(game)
    assert journal.load(game).actions == [{"type": "add", "n": 1}, {"type": "add", "n": 2}]
    assert journal.unfinished().id == game
    journal.set_status(game, "finished")
    assert journal.unfinished() is None
    assert journal.history() == [(game, "tally", "finished")]
    mode = journal._disk.execute("PRAGMA journal_mode").fetchone()[0]
    sync = journal._disk.execute("PRAGMA synchronous").fetchone()[0]
    assert (mode, sync) == ("wal", 2)  # 2 = FULL


def test_starting_a_game_keeps_every_unfinished_one_resumable(tmp_path):
    journal, _ = Journal.open(tmp_path)
    first = journal.new_game("makan")
    journal.append(first, {"type": "setup"}, undoable=True)
    second = journal.new_game("cafe")
    third = journal.new_game("miams")
    journal.append(first, {"type": "buy"}, undoable=True)  # played last: listed first
    listed = journal.saved_games()
    assert [(g.id, g.game, g.actions) for g in listed] == [
        (first, "makan", 2), (third, "miams", 0), (second, "cafe", 0)]
    assert listed[0].last_at >= listed[0].started_at
    assert listed[1].last_at == listed[1].started_at  # no action yet: its start
    journal.discard(third)
    journal.finish(second)
    assert [g.id for g in journal.saved_games()] == [first]
    assert journal.history() == [(third, "miams", "abandoned"), (second, "cafe", "finished"),
                                 (first, "makan", "playing")]


@pytest.mark.slow
def test_power_cut_loses_no_acknowledged_action(tmp_path, tally):
    """SIGKILL the box mid-game; the restarted box resumes with every action it confirmed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-m", "tests.box_process", str(tmp_path)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    acknowledged = 0
    for line in child.stdout:
        acknowledged = int(line.split()[1])
        if acknowledged >= 25:
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert acknowledged == 25
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "ResumeScreen"
        box.press("OK")
        assert box.app.play.session.state >= acknowledged
        assert box.app.play.session.actions[:acknowledged] == [{"type": "add", "n": 1}] * acknowledged
    finally:
        box.close()


def test_undo_says_what_it_undid_and_refuses_dice_rolls(box, tally):
    start_tally(box)
    box.press("ACTION")
    box.press("ACTION")
    assert box.app.play.session.state == 2
    box.press("BACK", long=True)
    assert box.app.play.session.state == 1
    assert box.app.play.journal.load(box.app.play.session.game_id).actions == [{"type": "add", "n": 1}]
    box.press("OK")  # a box dice roll
    rolled = box.app.play.session.state
    box.press("BACK", long=True)
    assert box.app.play.session.state == rolled, "a dice roll must not be undone"
    assert box.beeps()[-1] == "error"


def test_resume_question_after_restart_and_back_keeps_the_game(tmp_path, tally):
    box = SimBox(tmp_path)
    start_tally(box)
    for _ in range(3):
        box.press("ACTION")
    box.close()
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "ResumeScreen"
        box.press("BACK")
        assert box.screen.name() == "HomeScreen"
        assert box.screen.items[0].label == "Resume"
        box.press("OK")
        assert box.screen.name() == "SavedGamesScreen"
        box.press("OK")
        assert box.app.play.session.state == 3
    finally:
        box.close()


def test_corrupt_database_is_kept_aside_and_a_new_one_started(tmp_path, tally):
    (tmp_path / "journal.db").write_bytes(b"this is not a database" * 100)
    box = SimBox(tmp_path)
    try:
        assert box.app.play.journal_ok
        kept = box.app.play.journal.startup.kept
        assert [p.name for p in tmp_path.glob("bad-*.db")] == [kept], "the damaged file is kept"
        assert len(kept) <= 20, "short enough for one OLED line"
        assert note_text(box.app.play.journal.startup.note) == f"Journal damaged, kept as {kept}"
        start_tally(box)
        box.press("ACTION")
        assert box.app.play.journal.load(box.app.play.session.game_id).actions == [{"type": "add", "n": 1}]
    finally:
        box.close()


def test_unusable_state_dir_gives_a_message_and_the_box_still_runs(tmp_path, tally):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    box = SimBox(blocker / "state")
    try:
        status = box.app.play.journal.status
        assert (status.ok, status.reason) == (False, "no state dir")
        assert note_text(box.app.play.journal.startup.note) == "No state dir: play kept in memory"
        start_tally(box)
        box.press("ACTION")
        assert box.app.play.session.state == 1
        assert box.app.play.journal.status.held == 1
    finally:
        box.close()


@pytest.mark.slow
def test_actions_played_on_a_full_disk_are_all_resumed_after_space_is_freed(tmp_path, tally):
    """Disk full mid-game, play on, free space, restart: nothing played is lost."""
    box = SimBox(tmp_path)
    start_tally(box)
    box.press("ACTION")
    journal = box.app.play.journal
    pages = journal._disk.execute("PRAGMA page_count").fetchone()[0]
    journal._disk.execute(f"PRAGMA max_page_count = {pages}")
    for _ in range(600):  # fill the last page until SQLite reports the disk full
        box.press("ACTION")
        if not journal.status.ok:
            break
    assert journal.status.reason == "disk full"
    for _ in range(25):
        box.press("ACTION")
    assert journal.status.held == 26
    journal._disk.execute("PRAGMA max_page_count = 1000000")  # space freed
    assert journal.retry() == 26
    played = box.app.play.session.state
    box.close()
    box = SimBox(tmp_path)
    try:
        box.press("OK")  # resume
        assert box.app.play.session.state == played
    finally:
        box.close()


def test_a_saved_game_that_cannot_be_replayed_is_kept_aside_not_a_crash(tmp_path, tally):
    """A journal from another version (or edited by hand) must not stop the box at boot."""
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    journal.append(game, {"type": "add", "n": "seven"}, undoable=True)  # TypeError on replay
    journal.close()
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "HomeScreen"
        assert box.app.play.saved_games() == []
        assert box.app.play.journal.history() == [(game, "tally", "abandoned")]
        assert box.app.errors == 0
    finally:
        box.close()


def test_saved_settings_out_of_range_fall_back_to_the_config(tmp_path):
    journal, _ = Journal.open(tmp_path)
    journal.save_setting("volume", 7)
    journal.save_setting("contrast", "bright")
    journal.save_setting("long_press_s", 1.5)
    journal.close()
    box = SimBox(tmp_path)
    try:
        assert box.app.settings.values == {"volume": 2, "contrast": 200, "long_press_s": 1.5}
    finally:
        box.close()


def test_the_journal_doc_gives_the_schema_version_and_each_migration():
    from companion.journal import schema as journal_schema

    text = (Path(__file__).resolve().parent.parent / "docs" / "journal.md").read_text()
    assert f"## Tables (schema version {journal_schema.VERSION}," in text
    assert all(f"version {n} added" in text.lower() for n in range(1, journal_schema.VERSION + 1))
