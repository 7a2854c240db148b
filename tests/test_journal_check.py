"""The start-up check says what it found and did: a cut or missing WAL, an empty or damaged
file, a journal from an older or newer release."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.journal import schema as journal_schema
from companion.journal import store as journal_store
from companion.journal.check import scan_wal
from companion.journal.journal import Journal
from companion.ui.journal_words import finding_text, note_text

ROOT = Path(__file__).parent.parent


def add(n: int) -> dict:
    return {"type": "add", "n": n}


def played(tmp_path, after_round: int = 3) -> tuple[Journal, int]:
    """A game with a save point after round 1 and ``after_round`` actions since, still open."""
    journal, _ = Journal.open(tmp_path / "box")
    game = journal.new_game("tally")
    for n in (1, 2):
        journal.append(game, add(n), undoable=True)
    journal.checkpoint("round 1")
    for n in range(3, 3 + after_round):
        journal.append(game, add(n), undoable=True)
    return journal, game


def power_cut(tmp_path, wal: bool = True) -> tuple:
    """The files as a power cut leaves them: copied while the journal is still open."""
    src, dst = tmp_path / "box", tmp_path / "cut"
    dst.mkdir()
    names = ["journal.db", "journal.db-wal"] if wal else ["journal.db"]
    for name in names:
        shutil.copy(src / name, dst / name)
    return dst, dst / "journal.db-wal"


def test_an_unclean_stop_with_its_wal_loses_nothing_and_says_nothing(tmp_path):
    journal, game = played(tmp_path)
    cut, _ = power_cut(tmp_path)
    resumed, note = Journal.open(cut)
    assert note is None and resumed.startup.findings == []
    assert resumed.load(game).actions == [add(n) for n in range(1, 6)]
    journal.close()


def test_a_clean_close_leaves_no_wal_and_says_nothing(tmp_path):
    journal, game = played(tmp_path)
    journal.close()
    assert not (tmp_path / "box" / "journal.db-wal").exists()
    journal, note = Journal.open(tmp_path / "box")
    assert note is None and journal.startup.findings == []
    assert journal.load(game).actions == [add(n) for n in range(1, 6)]


def test_a_cut_wal_tail_is_reported_with_the_actions_it_cost(tmp_path):
    journal, game = played(tmp_path)
    cut, wal = power_cut(tmp_path)
    journal.close()
    wal.write_bytes(wal.read_bytes()[:-100])  # the last bytes of the last action's commit
    assert scan_wal(wal).lost == 1
    resumed, note = Journal.open(cut)
    assert note_text(note) == "Journal cut: at least 1 action lost"
    assert resumed.load(game).actions == [add(n) for n in range(1, 5)]


@pytest.mark.parametrize("size", [32, 4096])
def test_a_wal_whose_header_never_reached_the_disk_loses_nothing_and_says_nothing(tmp_path, size):
    """Found by the crash-state campaign (bench/crash_states.py): after a save point the next
    change starts a new WAL; cut before its header was written, the card gives back zeros,
    and the box said "Log bad: play after round 1 may be lost" though no change in that log
    had been confirmed (SQLite syncs the header before any frame)."""
    journal, game = played(tmp_path, after_round=0)  # the save point emptied the WAL
    cut, wal = power_cut(tmp_path)
    journal.close()
    wal.write_bytes(bytes(size))
    assert scan_wal(wal).lost == 0
    resumed, note = Journal.open(cut)
    assert note is None and resumed.startup.findings == []
    assert resumed.load(game).actions == [add(1), add(2)]


def test_a_damaged_frame_in_the_wal_counts_the_actions_after_it(tmp_path):
    """SQLite drops every frame from the first bad checksum on; the commits seen after it are
    counted (a flipped byte two actions from the end)."""
    journal, game = played(tmp_path)
    cut, wal = power_cut(tmp_path)
    journal.close()
    data = bytearray(wal.read_bytes())
    frame = 24 + int.from_bytes(data[8:12], "big")
    starts = range(32, len(data), frame)
    commits = [pos for pos in starts if data[pos + 4:pos + 8] != bytes(4)]
    data[commits[-3] + frame + 24 + 100] ^= 0xFF  # inside the next transaction's first page
    wal.write_bytes(data)
    assert scan_wal(wal).lost == 2
    resumed, note = Journal.open(cut)
    assert note_text(note) == "Journal cut: at least 2 actions lost"
    assert resumed.load(game).actions == [add(n) for n in range(1, 4)]


def test_a_deleted_wal_says_what_may_be_lost_after_the_last_save_point(tmp_path):
    journal, game = played(tmp_path)
    cut, _ = power_cut(tmp_path, wal=False)
    journal.close()
    resumed, note = Journal.open(cut)
    assert note_text(note) == "Log gone: play after round 1 may be lost"
    assert resumed.load(game).actions == [add(1), add(2)], "the save point is in the file"


def test_a_save_point_named_after_a_scoreboard_is_said_with_one_after(tmp_path):
    """Makan Mania's stage between rounds is "after round 3": the note says it once."""
    journal, _ = played(tmp_path)
    journal.checkpoint("after round 3")
    journal.append(1, add(9), undoable=True)
    cut, _ = power_cut(tmp_path, wal=False)
    journal.close()
    resumed, note = Journal.open(cut)
    assert note_text(note) == "Log gone: play after round 3 may be lost"
    assert "after after" not in " ".join(map(finding_text, resumed.startup.findings))


def test_a_disk_full_at_start_is_called_full_not_an_io_error(tmp_path, monkeypatch):
    """SQLite cannot make its -shm on a full disk and calls that an I/O error; the free space
    on the journal's filesystem says what it is."""
    journal, _ = Journal.open(tmp_path)
    journal.new_game("tally")
    journal.close()

    def refusing(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    free = os.statvfs(tmp_path)
    monkeypatch.setattr(journal_store.os, "statvfs",
                        lambda where: _full(free))
    journal, note = Journal.open(tmp_path, connect=refusing)
    assert note_text(note) == "Disk full: play kept in memory"
    assert journal.status.reason == "disk full"


def _full(stats: os.statvfs_result) -> os.statvfs_result:
    fields = list(stats)
    fields[4] = 0  # f_bavail: no block left for an ordinary user
    return os.statvfs_result(fields)


def test_an_io_error_keeps_its_capitals_in_the_note(tmp_path):
    journal, _ = Journal.open(tmp_path)
    journal.close()

    def refusing(*args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    journal, note = Journal.open(tmp_path, connect=refusing)
    assert note_text(note) == "I/O error: play kept in memory"


def test_a_finished_game_is_a_save_point(tmp_path):
    journal, game = played(tmp_path)
    journal.set_status(game, "finished")
    cut, _ = power_cut(tmp_path, wal=False)
    journal.close()
    resumed, note = Journal.open(cut)
    assert note_text(note) == "Log gone: play after game end may be lost"
    assert resumed.load(game).actions == [add(n) for n in range(1, 6)]
    assert resumed.load(game).status == "finished"


def test_a_zero_byte_journal_is_reported_not_silently_replaced(tmp_path):
    (tmp_path / "journal.db").write_bytes(b"")
    journal, note = Journal.open(tmp_path)
    assert note_text(note) == "Empty journal file: new one started"
    assert [finding_text(f) for f in journal.startup.findings] == [
        "journal.db was empty (0 bytes): its games are gone; a new journal was started"]
    assert journal.status.ok


def test_a_garbage_file_is_moved_aside_under_a_short_name(tmp_path):
    garbage = b"SQLite format 3\0" + bytes(range(256)) * 40
    (tmp_path / "journal.db").write_bytes(garbage)
    journal, note = Journal.open(tmp_path)
    kept = journal.startup.kept
    assert kept.startswith("bad-") and len(kept) <= 20
    assert (tmp_path / kept).read_bytes() == garbage
    assert note_text(note) == f"Journal damaged, kept as {kept}"
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    assert journal.status.ok


def test_a_journal_of_the_previous_release_opens_with_nothing_lost(tmp_path):
    """The schema of the release before versions (user_version 0), written as it wrote it."""
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(journal_schema.SCHEMA_V0)
    started = time.time() - 600
    conn.execute("INSERT INTO games (game, started_at, status) VALUES ('makan', ?, 'abandoned')",
                 (started - 60,))
    conn.execute("INSERT INTO games (game, started_at) VALUES ('cafe', ?)", (started,))
    for seq in (1, 2):
        conn.execute("INSERT INTO actions VALUES (2, ?, ?, 1)", (seq, f'{{"n":{seq}}}'))
    conn.execute("INSERT INTO settings VALUES ('volume', '1')")
    conn.commit()
    conn.close()
    journal, note = Journal.open(tmp_path)
    assert note is None
    assert journal._disk.execute("PRAGMA user_version").fetchone()[0] == journal_schema.VERSION
    assert journal.history() == [(2, "cafe", "playing"), (1, "makan", "abandoned")]
    assert [(g.id, g.actions, g.last_at) for g in journal.saved_games()] == [(2, 2, started)]
    assert journal.load(2).actions == [{"n": 1}, {"n": 2}]
    assert journal.settings() == {"volume": 1}
    journal.append(2, {"n": 3}, undoable=True)
    journal.close()
    journal, note = Journal.open(tmp_path)
    assert note is None, "a migrated journal closed cleanly reports nothing"
    assert journal.load(2).actions == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_a_journal_from_a_newer_release_is_read_not_written(tmp_path):
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    journal.close()
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.execute(f"PRAGMA user_version = {journal_schema.VERSION + 1}")
    conn.close()
    journal, note = Journal.open(tmp_path)
    assert note_text(note) == "Newer journal: play kept in memory"
    assert journal.unfinished().id == game
    assert journal.status.reason == "newer journal"


CRASH = """
import sys
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from tests.counter_game import SPEC

GAMES[SPEC.key] = SPEC
box = SimBox(sys.argv[1])
box.app.table.push(SPEC.screens.new_game(box.app.table))
box.press("OK")
for _ in range(3):
    box.press("ACTION")
raise RuntimeError("a bug, not a power cut")
"""


@pytest.mark.slow
def test_a_process_ended_by_an_exception_leaves_the_journal_closed_cleanly(tmp_path):
    """Python runs atexit after an uncaught exception and SQLite then removes the WAL: the
    journal is closed cleanly there, so the next start has nothing to warn about."""
    ran = subprocess.run([sys.executable, "-c", CRASH, str(tmp_path)], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert "a bug, not a power cut" in ran.stderr
    journal, note = Journal.open(tmp_path)
    try:
        assert note is None and journal.startup.findings == []
        assert journal.unfinished() is not None  # the game is there to resume
    finally:
        journal.close()
