"""A journal that heals: writes the disk refuses are held in memory, in order, and written back
in one transaction when it takes writes again; a file that cannot be written is still read."""

from __future__ import annotations

import sqlite3

import pytest

from companion.journal.journal import Journal, JournalStatus, Notice
from companion.ui.journal_words import note_text, notice_lines


def add(n: int) -> dict:
    return {"type": "add", "n": n}


def fill_disk(journal: Journal, game: int) -> int:
    """Cap the file at its size and append until SQLite says the disk is full."""
    pages = journal._disk.execute("PRAGMA page_count").fetchone()[0]
    journal._disk.execute(f"PRAGMA max_page_count = {pages}")
    for n in range(1000, 2000):
        journal.append(game, add(n), undoable=True)
        if not journal.status.ok:
            return n
    raise AssertionError("the disk never filled")


def reopen(tmp_path) -> Journal:
    journal, note = Journal.open(tmp_path)
    assert note is None
    return journal


def test_disk_full_holds_everything_in_order_including_an_undo_and_writes_it_back(tmp_path):
    journal = reopen(tmp_path)
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    failed = fill_disk(journal, game)
    assert journal.status == JournalStatus(ok=False, held=1, reason="disk full")
    notice = journal.take_notice()
    assert notice.error and notice_lines(notice) == ("Disk full:", "play kept in memory")
    for n in (2, 3, 4):
        journal.append(game, add(n), undoable=True)
    journal.pop_last(game)  # an undo while the disk is full
    other = journal.new_game("cafe")
    journal.append(other, add(9), undoable=False)
    journal.save_setting("volume", 1)
    expected = journal.load(game).actions
    assert expected[-3:] == [add(failed), add(2), add(3)], "reads see the held changes"
    assert journal.status.held == 6 and journal.take_notice() is None
    assert journal.retry() == 0, "still full: nothing written"

    journal._disk.execute("PRAGMA max_page_count = 1000000")  # space freed
    journal.append(game, add(5), undoable=True)  # the next change writes everything held
    assert journal.status == JournalStatus(ok=True)
    assert journal.take_notice() == Notice(error=False, saved=7)
    assert notice_lines(Notice(error=False, saved=7)) == ("Journal back:", "7 actions saved")
    journal.close()
    journal = reopen(tmp_path)
    assert journal.load(game).actions == [*expected, add(5)]
    assert journal.load(other).actions == [add(9)]
    assert journal.settings() == {"volume": 1}
    assert [g.id for g in journal.saved_games()] == [game, other]


def test_retry_alone_writes_back_and_says_how_many(tmp_path):
    journal = reopen(tmp_path)
    game = journal.new_game("tally")
    fill_disk(journal, game)
    journal.append(game, add(2), undoable=True)
    journal._disk.execute("PRAGMA max_page_count = 1000000")
    assert journal.retry() == 2
    assert journal.retry() == 0, "nothing left to write"
    assert notice_lines(journal.take_notice()) == ("Journal back:", "2 actions saved")


@pytest.mark.parametrize("pragma, reason", [("query_only", "read-only")])
def test_a_disk_turned_read_only_mid_game_heals_the_same_way(tmp_path, pragma, reason):
    journal = reopen(tmp_path)
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    journal._disk.execute(f"PRAGMA {pragma} = 1")
    journal.append(game, add(2), undoable=True)
    journal.pop_last(game)
    journal.append(game, add(3), undoable=True)
    assert journal.status == JournalStatus(ok=False, held=3, reason=reason)
    journal._disk.execute(f"PRAGMA {pragma} = 0")
    assert journal.retry() == 3
    journal.close()
    assert reopen(tmp_path).load(game).actions == [add(1), add(3)]


class FailingWrites:
    """Opens real SQLite files whose first ``n`` commits fail as on a full SD card."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self, *args, **kwargs) -> sqlite3.Connection:
        outer = self

        class Conn(sqlite3.Connection):
            def execute(self, sql, *rest):
                if sql == "COMMIT" and outer.n > 0:
                    outer.n -= 1
                    raise sqlite3.OperationalError("database or disk is full")
                return super().execute(sql, *rest)

        return sqlite3.connect(*args, factory=Conn, **kwargs)


def test_a_failing_commit_is_held_and_nothing_half_written(tmp_path):
    opener = FailingWrites(0)
    journal, _ = Journal.open(tmp_path, connect=opener)
    game = journal.new_game("tally")
    opener.n = 3  # this commit and the next two retries fail
    journal.append(game, add(1), undoable=True, finishes=True)
    journal.append(game, add(2), undoable=True)
    journal.append(game, add(3), undoable=True)
    assert journal.status.held == 3
    journal.append(game, add(4), undoable=True)
    assert journal.status.ok
    journal.close()
    journal = reopen(tmp_path)
    assert journal.load(game).actions == [add(1), add(2), add(3), add(4)]
    assert journal.load(game).status == "finished"


def test_finishing_and_undoing_a_finished_game_commit_once_each(tmp_path):
    journal = reopen(tmp_path)
    game = journal.new_game("tally")
    commits: list[str] = []
    journal._disk.set_trace_callback(lambda sql: sql == "COMMIT" and commits.append(sql))
    journal.append(game, add(1), undoable=True, finishes=True)
    assert (len(commits), journal.load(game).status) == (1, "finished")
    assert journal.saved_games() == []
    journal.pop_last(game, reopens=True)
    assert (len(commits), journal.load(game).status) == (2, "playing")
    assert journal.load(game).actions == []


# ----- a journal that cannot be written at start ---------------------------------------------
class ReadOnlyDisk:
    """Opens the file for writing only as a read-only connection (``query_only``), the way a
    read-only SD card behaves, until ``writable`` is set; ``no_shm`` also refuses ``mode=ro``
    (a directory where the -shm file cannot be made), leaving ``immutable=1``."""

    def __init__(self, no_shm: bool = False) -> None:
        self.writable = False
        self.no_shm = no_shm
        self.opened: list[str] = []

    def __call__(self, target: str, **kwargs) -> sqlite3.Connection:
        self.opened.append(target.rsplit("?", 1)[-1] if kwargs.get("uri") else "rw")
        if self.no_shm and target.endswith("mode=ro"):
            raise sqlite3.OperationalError("unable to open database file")
        conn = sqlite3.connect(target, **kwargs)
        if not kwargs.get("uri") and not self.writable:
            conn.execute("PRAGMA query_only = 1")
        return conn


def saved_game(tmp_path) -> int:
    journal = reopen(tmp_path)
    game = journal.new_game("tally")
    for n in (1, 2):
        journal.append(game, add(n), undoable=True)
    journal.close()
    return game


@pytest.mark.parametrize("no_shm, opens", [(False, ["rw", "mode=ro"]),
                                           (True, ["rw", "mode=ro", "immutable=1"])])
def test_a_read_only_journal_still_offers_its_saved_game(tmp_path, no_shm, opens):
    game = saved_game(tmp_path)
    disk = ReadOnlyDisk(no_shm)
    journal, note = Journal.open(tmp_path, connect=disk)
    assert note_text(note) == "Read-only: play kept in memory"
    assert disk.opened == opens
    assert journal.status == JournalStatus(ok=False, held=0, reason="read-only")
    resumed = journal.unfinished()
    assert (resumed.id, resumed.actions) == (game, [add(1), add(2)])
    journal.append(game, add(3), undoable=True)
    assert journal.status.held == 1 and journal.load(game).actions[-1] == add(3)

    disk.writable = True  # e.g. the card remounted read-write
    assert journal.retry() == 1
    journal.close()
    assert reopen(tmp_path).load(game).actions == [add(1), add(2), add(3)]


def test_the_box_offers_the_saved_game_of_a_read_only_journal(tmp_path, monkeypatch):
    """Through the real start-up: the resume question, then the game, played on in memory."""
    from companion.games.catalog import GAMES
    from companion.simulator.simbox import SimBox
    from tests.counter_game import SPEC

    monkeypatch.setitem(GAMES, SPEC.key, SPEC)
    game = saved_game(tmp_path)
    opener = Journal.open.__func__
    monkeypatch.setattr(Journal, "open", classmethod(
        lambda cls, state_dir: opener(cls, state_dir, connect=ReadOnlyDisk())))
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "ResumeScreen"
        assert box.screen.question == "Resume Tally, at 3?"
        # the warning is seen
        assert " ".join(box.app.stack.toast_lines) == "Read-only: play kept in memory"
        assert "⚠" in box.app.panel.status_icons()
        box.press("OK")
        assert box.app.play.session.game_id == game and box.app.play.session.state == 3
        box.press("ACTION")
        assert box.app.play.journal.load(game).actions == [add(1), add(2), add(1)]
        assert box.app.play.journal.status.held == 1
    finally:
        box.close()


def test_a_state_dir_that_can_be_made_later_gets_everything(tmp_path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    journal, note = Journal.open(blocker)
    assert note_text(note) == "No state dir: play kept in memory"
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    assert journal.retry() == 0
    blocker.unlink()
    assert journal.retry() == 1
    journal.close()
    assert reopen(blocker).load(game).actions == [add(1)]
