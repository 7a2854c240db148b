"""The spare journal: where held play goes when the journal's disk fails.

While the disk refuses writes the journal holds play in memory; a power cut would lose it. So
the journal also writes a whole copy of itself (what the disk held, plus every held change) to
a second filesystem that still takes writes: the boot partition, a USB stick, or, failing
those, the box's memory filesystem (tmpfs), which survives a restart of the service but not a
power cut, and the table is told so. At the next start the spare is merged back when the
journal on disk is still the one it was copied from, and kept aside otherwise.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..ui.words import plural
from . import schema
from .check import StartupReport, aside_name

log = logging.getLogger(__name__)

BASE, OWNER = "spare_base", "spare_of"  # marks of a spare: what it was copied from


@dataclass(frozen=True)
class Place:
    """A directory a spare journal may be written to, and what the table calls it."""

    path: Path
    name: str  # "USB stick", "boot partition", "memory"
    volatile: bool = False  # lost at power-off: the table is warned


def default_places() -> list[Place]:
    """The boot partition, then any mounted USB stick, then the box's memory (tmpfs)."""
    places = [Place(Path("/boot/firmware/companion-spare"), "boot partition")]
    for mount in sorted(glob.glob("/media/*/*") + glob.glob("/run/media/*/*")):
        places.append(Place(Path(mount) / "companion-spare", "USB stick"))
    runtime = os.environ.get("RUNTIME_DIRECTORY") or f"/dev/shm/companion-{os.getuid()}"
    places.append(Place(Path(runtime), "memory", volatile=True))
    return places


def fingerprint(conn: sqlite3.Connection) -> str:
    """A digest of the play a journal holds (games, actions, settings), to tell whether the
    journal on disk is still the one a spare was copied from."""
    digest = hashlib.sha1()
    for sql in ("SELECT id, game, status FROM games ORDER BY id",
                "SELECT game_id, seq, action FROM actions ORDER BY game_id, seq",
                "SELECT key, value FROM settings ORDER BY key"):
        for row in conn.execute(sql):
            digest.update(repr(row).encode())
    return digest.hexdigest()


def spare_name(journal: Path) -> str:
    """One spare file per journal, so boxes (or tests) sharing a place never mix."""
    key = hashlib.sha1(str(journal.resolve()).encode()).hexdigest()[:10]
    return f"journal-spare-{key}.db"


class Spare:
    """The spare copy being written while the disk refuses (``place`` says where)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, place: Place) -> None:
        self.conn, self.path, self.place = conn, path, place

    @classmethod
    def start(cls, journal: Path, mem: sqlite3.Connection, base: str,
              places: Sequence[Place]) -> Spare | None:
        """Copy ``mem`` (the journal as the disk last held it, plus what is held) to the first
        place that takes it, on another filesystem than the journal's; None if none does."""
        try:
            failed_dev = journal.parent.stat().st_dev
        except OSError:
            failed_dev = None
        for place in places:
            path = place.path / spare_name(journal)
            try:
                place.path.mkdir(parents=True, exist_ok=True)
                if place.path.stat().st_dev == failed_dev:
                    continue  # the disk that failed
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                try:
                    conn.execute("PRAGMA synchronous=FULL")
                    mem.backup(conn)
                    # One file, no WAL (the copy took the journal's WAL flag): a FAT stick and
                    # a copy of the file alone are whole.
                    conn.execute("PRAGMA journal_mode=DELETE").fetchone()
                    conn.execute("BEGIN IMMEDIATE")
                    for key, value in ((BASE, base), (OWNER, str(journal.resolve()))):
                        conn.execute("INSERT OR REPLACE INTO marks (key, value) VALUES (?, ?)",
                                     (key, value))
                    conn.execute("COMMIT")
                except sqlite3.Error:
                    conn.close()
                    raise
            except (OSError, sqlite3.Error) as exc:
                log.warning("spare journal: %s refused (%s)", place.path, exc)
                continue
            log.warning("spare journal: held play written to %s (%s)", path, place.name)
            return cls(conn, path, place)
        return None

    def close(self, remove: bool) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()
                self.path.with_name(self.path.name + "-journal").unlink(missing_ok=True)


def merge_back(disk: sqlite3.Connection, journal: Path, places: Sequence[Place],
               report: StartupReport) -> None:
    """Bring back the play a spare holds (the last run's disk failed), or keep the spare aside
    when the journal has changed since it was copied; say what was done."""
    for place in places:
        path = place.path / spare_name(journal)
        if not path.exists():
            continue
        try:
            _merge_one(disk, journal, path, place, report)
        except (OSError, sqlite3.Error, schema.NewerJournal) as exc:
            log.error("spare journal %s could not be merged: %s", path, exc)
            report.add(f"the spare journal on the {place.name} ({path}) could not be read ({exc});"
                       " it was left where it is", note=f"Spare on {place.name} unreadable")


def _merge_one(disk: sqlite3.Connection, journal: Path, path: Path, place: Place,
               report: StartupReport) -> None:
    spare = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        marks = dict(spare.execute("SELECT key, value FROM marks").fetchall())
        if schema.version(spare) != schema.VERSION or marks.get(OWNER) != str(journal.resolve()):
            return  # another release's or another journal's: not ours to merge
        own, base, now = fingerprint(spare), marks.get(BASE), fingerprint(disk)
        count = _actions(spare) - _actions(disk)
    finally:
        spare.close()
    if now == own:  # written back by the last run itself before it stopped
        path.unlink()
        return
    if now != base:
        kept = aside_name(journal.parent, prefix="spare")
        kept.write_bytes(path.read_bytes())
        path.unlink()
        report.kept = kept.name
        report.add(f"a spare journal on the {place.name} holds play the journal does not, but the"
                   f" journal changed since it was copied; kept as {kept.name}",
                   note=f"Spare kept as {kept.name}")
        return
    _replace_play(disk, path)
    path.unlink()
    said = plural(max(count, 0), "action")
    report.add(f"the disk failed in the last run: {said} held on the {place.name} were "
               "written back", note=f"Disk failed before: {said} back")


def _actions(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0])


def _replace_play(disk: sqlite3.Connection, path: Path) -> None:
    """Make the journal's tables those of the spare, in one transaction (the marks stay)."""
    tables = [name for (name,) in disk.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'marks' "
        "AND name NOT LIKE 'sqlite_%'")]
    disk.execute("ATTACH DATABASE ? AS spare", (f"{path.resolve().as_uri()}?mode=ro",))
    try:
        disk.execute("BEGIN IMMEDIATE")
        try:
            for table in tables:
                disk.execute(f"DELETE FROM main.{table}")
                disk.execute(f"INSERT INTO main.{table} SELECT * FROM spare.{table}")
            disk.execute("COMMIT")
        except BaseException:
            if disk.in_transaction:
                disk.execute("ROLLBACK")
            raise
    finally:
        disk.execute("DETACH DATABASE spare")
