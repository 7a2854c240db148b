"""Issue 27: nothing lost when the journal's disk fails for good, when the journal file is
replaced under the box, or when SQLite's failed open would delete a damaged journal's WAL."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

from companion.journal import journal as journal_module
from companion.journal.journal import Journal
from companion.journal.spare import spare_name
from companion.simulator.simbox import SimBox
from companion.ui.journal_words import note_text, notice_lines


def add(n: int) -> dict:
    return {"type": "add", "n": n}


def failing_disk(journal: Journal) -> None:
    """The card turns read-only under the open journal (SQLite refuses every write)."""
    journal._disk.execute("PRAGMA query_only = 1")


def test_play_held_when_the_disk_fails_is_written_to_a_spare_and_merged_back(tmp_path, ram_place):
    """"at power-off 34 acknowledged actions were lost, and the next start said nothing": the
    held play is on the spare before each press is shown, and comes back at the next start."""
    journal, _ = Journal.open(tmp_path, places=[ram_place])
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    failing_disk(journal)
    journal.append(game, add(2), undoable=True)
    assert notice_lines(journal.take_notice()) == ("Read-only:", "play on USB stick")
    for n in (3, 4):
        journal.append(game, add(n), undoable=True)
    journal.pop_last(game)
    assert journal.status.kept_on == "USB stick" and not journal.status.volatile
    spare = ram_place.path / spare_name(tmp_path / "journal.db")
    on_spare = sqlite3.connect(spare).execute(
        "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game,)).fetchall()
    assert len(on_spare) == 3, "every held change is on the spare as it is acknowledged"
    # The power goes (the journal is never closed) and the card is repaired: the next start
    # opens the same files.
    again, note = Journal.open(tmp_path, places=[ram_place])
    assert note_text(note) == "Disk failed before: 4 actions back"  # three actions and an undo
    assert again.load(game).actions == [add(1), add(2), add(3)]
    assert not spare.exists(), "merged: the spare is gone"
    again.close()


def test_a_spare_place_on_the_failed_disk_is_passed_over(tmp_path, ram_place):
    """"another filesystem that is writable": a place on the journal's own disk (a boot
    partition that is not mounted is a folder of the root filesystem) fails with it, so the
    next place is used."""
    from companion.journal.spare import Place

    same_disk = Place(tmp_path / "boot" / "companion-spare", "boot partition")
    journal, _ = Journal.open(tmp_path / "state", places=[same_disk, ram_place])
    game = journal.new_game("tally")
    failing_disk(journal)
    journal.append(game, add(1), undoable=True)
    assert journal.status.kept_on == "USB stick"
    assert list(same_disk.path.iterdir()) == []
    assert (ram_place.path / spare_name(tmp_path / "state" / "journal.db")).exists()


def test_a_power_cut_in_the_middle_of_a_spare_commit_loses_only_that_commit(tmp_path, ram_place):
    """The spare keeps SQLite's rollback journal (one file a FAT stick keeps whole): a cut while
    a change is half written leaves that journal "hot", which a read-only open cannot roll back
    ("attempt to write a readonly database"); the next start must still bring back every
    change committed before the cut."""
    journal, _ = Journal.open(tmp_path, places=[ram_place])
    game = journal.new_game("tally")
    failing_disk(journal)
    for n in (1, 2, 3):
        journal.append(game, add(n), undoable=True)
    spare = ram_place.path / spare_name(tmp_path / "journal.db")
    half_written = (  # a big change, its pages spilled to the file, then the power goes
        "import os, sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('PRAGMA cache_size = 1')\n"
        "conn.execute('BEGIN')\n"
        "conn.execute('CREATE TABLE filler (x)')\n"
        "for _ in range(2000): conn.execute('INSERT INTO filler VALUES (?)', ('x' * 500,))\n"
        "os._exit(9)\n")
    subprocess.run([sys.executable, "-c", half_written, str(spare)], check=False)
    assert spare.with_name(spare.name + "-journal").exists(), "the cut left a hot journal"
    again, note = Journal.open(tmp_path, places=[ram_place])
    assert note_text(note) == "Disk failed before: 3 actions back"
    assert again.load(game).actions == [add(1), add(2), add(3)]
    again.close()


def test_a_spare_whose_journal_changed_meanwhile_is_kept_aside(tmp_path, ram_place):
    journal, _ = Journal.open(tmp_path, places=[ram_place])
    game = journal.new_game("tally")
    failing_disk(journal)
    journal.append(game, add(1), undoable=True)
    other, _ = Journal.open(tmp_path, places=[])  # another run wrote to the journal
    other.append(other.new_game("tally"), add(7), undoable=True)
    other.close()
    again, note = Journal.open(tmp_path, places=[ram_place])
    kept = again.startup.kept
    assert kept.startswith("spare-") and note_text(note) == f"Spare kept as {kept}"
    assert sqlite3.connect(tmp_path / kept).execute("SELECT COUNT(*) FROM actions").fetchone() == (1,)


def test_a_journal_back_on_its_disk_removes_its_spare(tmp_path, ram_place):
    journal, _ = Journal.open(tmp_path, places=[ram_place])
    game = journal.new_game("tally")
    failing_disk(journal)
    journal.append(game, add(1), undoable=True)
    journal._disk.execute("PRAGMA query_only = 0")
    assert journal.retry() == 1
    assert list(ram_place.path.iterdir()) == []


def test_the_box_says_where_held_play_is_before_the_power_goes(tmp_path, ram_place, monkeypatch):
    monkeypatch.setattr(journal_module, "default_places", lambda: [ram_place])
    box = SimBox(tmp_path)
    try:
        failing_disk(box.app.play.journal)
        box.app.play.journal.save_setting("volume", 1)
        box.app.shutdown("Powered off")
        assert box.app.stack.screens[-1].lines() == (
            "Powered off", "Read-only: 0 actions kept on the USB stick, back at next start")
    finally:
        box.app.hardware.close()


def test_about_names_the_file_on_the_stick_that_holds_the_play(tmp_path, ram_place, monkeypatch):
    """Issue 37: "a USB stick plugged into the box receives the held play (... the file named
    and told on the OLED)": About gives the spare's whole path, line by line, within the panel."""
    from companion.frame.canvas import WIDTH
    from companion.frame.font import SMALL
    from companion.screens.system import AboutScreen

    monkeypatch.setattr(journal_module, "default_places", lambda: [ram_place])
    box = SimBox(tmp_path / "box")
    try:
        journal = box.app.play.journal
        failing_disk(journal)
        journal.append(journal.new_game("tally"), add(1), undoable=True)
        spare = ram_place.path / spare_name(tmp_path / "box" / "journal.db")
        lines = AboutScreen(box.app.table).lines()
        after = lines[lines.index("Held play in:") + 1:]
        shown = after[:next(n for n, line in enumerate(after) if not line.startswith(" "))]
        named = "".join(line.removeprefix(" ") for line in shown)
        assert named.startswith(str(spare)) and spare.exists()
        assert all(SMALL.width(line) <= WIDTH for line in shown)
    finally:
        box.close()


def test_held_play_in_the_boxs_memory_only_is_said_to_be_lost_at_power_off(tmp_path, ram_place,
                                                                          monkeypatch):
    """"or the box's tmpfs with a warning that a power cut will lose it": with no other
    filesystem to write to, the spare is in RAM, and the table is told so when the disk fails
    and again before the power goes."""
    from companion.journal.spare import Place

    memory = Place(ram_place.path, "memory", volatile=True)
    monkeypatch.setattr(journal_module, "default_places", lambda: [memory])
    box = SimBox(tmp_path)
    try:
        journal = box.app.play.journal
        game = journal.new_game("tally")
        failing_disk(journal)
        journal.append(game, add(1), undoable=True)
        assert journal.status.volatile and journal.status.kept_on == "memory"
        assert notice_lines(journal.take_notice()) == ("Read-only:", "play in RAM only")
        box.app.shutdown("Powered off")
        assert box.app.stack.screens[-1].lines() == (
            "Powered off", "Read-only: 1 action in RAM only, lost at power-off")
    finally:
        box.app.hardware.close()


def test_a_journal_replaced_under_the_box_is_noticed_before_the_next_press_is_shown(tmp_path):
    """"18 more presses acknowledged into a deleted file": the file's identity is checked at
    each commit; the box holds play as for a failed disk and never writes the new file."""
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    shutil.copy(tmp_path / "journal.db", tmp_path / "copy.db")
    os.replace(tmp_path / "copy.db", tmp_path / "journal.db")  # e.g. a restore over it
    journal.append(game, add(2), undoable=True)
    assert not journal.status.ok and journal.status.reason == "journal replaced"
    assert notice_lines(journal.take_notice()) == ("Journal replaced:", "play kept in memory")
    assert journal.retry() == 0, "the new file is not this run's to write"
    assert journal.load(game).actions == [add(1), add(2)]


def test_a_deleted_journal_is_noticed_too(tmp_path):
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    (tmp_path / "journal.db").unlink()
    journal.append(game, add(1), undoable=True)
    assert journal.status.reason == "journal replaced" and journal.status.held == 1


def test_a_journal_copied_over_in_place_is_noticed(tmp_path):
    """The same inode rewritten (``cp old.db journal.db``, an older backup): SQLite's connection
    keeps its pages and sees nothing; the file's size and time of last write, checked before
    each commit, tell it (no SQLite connection committed meanwhile)."""
    old, _ = Journal.open(tmp_path / "old")
    old.new_game("tally")
    old.close()
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    journal.append(game, add(1), undoable=True)
    with open(tmp_path / "journal.db", "r+b") as f:
        f.write((tmp_path / "old" / "journal.db").read_bytes())
        f.truncate()
    journal.append(game, add(2), undoable=True)
    assert journal.status.reason == "journal replaced"


def test_another_writer_through_sqlite_is_no_replacement(tmp_path):
    """A history import (or the phone page's roster) writes the same journal while the box
    runs: both see its commits, so nothing is held."""
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("tally")
    other, _ = Journal.open(tmp_path)
    other.append(other.new_game("tally"), add(5), undoable=True)
    journal.append(game, add(1), undoable=True)
    assert journal.status.ok
    other.close()
    journal.append(game, add(2), undoable=True)
    assert journal.status.ok


def test_a_damaged_journal_keeps_its_wal_copied_before_sqlite_opened_it(tmp_path):
    """"SQLite's failed open removed the 24,752-byte WAL that held the last acknowledged
    commits": after an unclean stop the files are copied aside first, and kept with the
    damaged journal; About names the folder and what it holds."""
    journal, _ = Journal.open(tmp_path / "box")
    game = journal.new_game("tally")
    for n in range(1, 6):
        journal.append(game, add(n), undoable=True)
    cut = tmp_path / "cut"
    cut.mkdir()
    for name in ("journal.db", "journal.db-wal", "journal.db-shm"):
        shutil.copy(tmp_path / "box" / name, cut / name)
    journal.close()
    wal = (cut / "journal.db-wal").read_bytes()
    assert len(wal) > 4096
    (cut / "journal.db").write_bytes(b"garbage, not a database" * 200)
    box = SimBox(cut)
    try:
        startup = box.app.play.journal.startup
        assert startup.kept.endswith("/") and startup.kept_files == (
            "journal.db", "journal.db-shm", "journal.db-wal")
        assert (cut / startup.kept / "journal.db-wal").read_bytes() == wal
        from companion.screens.system import AboutScreen

        lines = AboutScreen(box.app.table).lines()
        assert f" {startup.kept}" in lines and " db, shm, WAL" in lines
    finally:
        box.close()


def test_an_unclean_stop_with_nothing_wrong_keeps_no_copy(tmp_path):
    journal, _ = Journal.open(tmp_path / "box")
    journal.new_game("tally")
    cut = tmp_path / "cut"
    shutil.copytree(tmp_path / "box", cut)
    journal.close()
    again, note = Journal.open(cut)
    assert note is None and sorted(p.name for p in cut.iterdir()) == [
        "journal.db", "journal.db-shm", "journal.db-wal"]
    again.close()
