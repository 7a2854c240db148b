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
import json
import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import schema
from .check import Finding, Found, StartupReport, aside_name
from .store import Op, Statement, commit, memory_copy

log = logging.getLogger(__name__)

OWNER = "spare_of"  # the mark of a spare: the journal it belongs to
HELD = "held_ops"  # the spare's table of the held changes, in order, as the journal runs them


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
    """A digest of the play a journal holds (games, actions, settings)."""
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


def _held_sql(op: Op) -> Statement:
    return (f"INSERT INTO {HELD} (kind, statements) VALUES (?, ?)",
            (op.kind, json.dumps(op.statements)))


class Spare:
    """The spare copy being written while the disk refuses (``place`` says where)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, place: Place) -> None:
        self.conn, self.path, self.place = conn, path, place

    @classmethod
    def start(cls, journal: Path, mem: sqlite3.Connection, held: Sequence[Op],
              places: Sequence[Place]) -> Spare | None:
        """Copy ``mem`` (what the disk held plus the ``held`` changes) to the first place
        that takes it, on another filesystem than the journal's; None if none does."""
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
                    commit(conn, [Op("spare", (
                        (f"CREATE TABLE {HELD} (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
                         "statements TEXT NOT NULL)", ()),
                        ("INSERT OR REPLACE INTO marks (key, value) VALUES (?, ?)",
                         (OWNER, str(journal.resolve()))),
                        *(_held_sql(op) for op in held)))])
                except sqlite3.Error:
                    conn.close()
                    raise
            except (OSError, sqlite3.Error) as exc:
                log.warning("spare journal: %s refused (%s)", place.path, exc)
                continue
            log.warning("spare journal: held play written to %s (%s)", path, place.name)
            return cls(conn, path, place)
        return None

    def hold(self, op: Op) -> None:
        """Apply a held change to the spare and keep it in order (one transaction)."""
        commit(self.conn, [op, Op("spare", (_held_sql(op),))])

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
        except (OSError, sqlite3.Error, ValueError, schema.NewerJournal) as exc:
            log.error("spare journal %s could not be merged: %s", path, exc)
            report.add(Finding(Found.SPARE_UNREADABLE, file=str(path), error=str(exc),
                               place=place.name))


def _merge_one(disk: sqlite3.Connection, journal: Path, path: Path, place: Place,
               report: StartupReport) -> None:
    # Read-write: a power cut in the middle of a held change leaves a hot rollback journal
    # beside the spare, which only a connection that may write can roll back (a read-only one
    # fails, and every change held before it would be lost).
    spare = sqlite3.connect(path)
    try:
        marks = dict(spare.execute("SELECT key, value FROM marks").fetchall())
        if schema.version(spare) != schema.VERSION or marks.get(OWNER) != str(journal.resolve()):
            return  # another release's or another journal's: not ours to merge
        own = fingerprint(spare)
        held = [Op(kind, tuple((sql, tuple(args)) for sql, args in json.loads(text)))
                for kind, text in spare.execute(f"SELECT kind, statements FROM {HELD} ORDER BY seq")]
    finally:
        spare.close()
    if fingerprint(disk) == own:  # written back by the last run itself before it stopped
        path.unlink()
        return
    # The held changes on top of the journal as it is must give the spare's play. The first
    # one may have reached the disk although its commit failed (an I/O error after the write).
    for skip in (0, 1):
        trial = memory_copy(disk)
        try:
            commit(trial, held[skip:])
            fits = fingerprint(trial) == own
        finally:
            trial.close()
        if fits:
            commit(disk, held[skip:])
            path.unlink()
            count = sum(op.kind in ("action", "undo") for op in held[skip:])
            report.add(Finding(Found.SPARE_BACK, count=count, place=place.name))
            return
    kept = aside_name(journal.parent, prefix="spare")
    kept.write_bytes(path.read_bytes())
    path.unlink()
    report.kept = kept.name
    report.add(Finding(Found.SPARE_KEPT, kept=kept.name, place=place.name))
