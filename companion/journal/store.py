"""The journal's SQLite files: opening them (for writing, read-only, or as a copy in memory),
committing changes, and the start-up sequence that says what it found."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import schema
from .check import (
    Finding,
    Found,
    StartupReport,
    copy_before_open,
    move_aside,
    scan_wal,
    settle_copy,
    wal_findings,
)

log = logging.getLogger(__name__)

Connect = Callable[..., sqlite3.Connection]
Statement = tuple[str, tuple[Any, ...]]


@dataclass(frozen=True)
class Op:
    """One logical change: its statements commit together or not at all."""

    kind: str  # game | action | undo | status | setting | mark | players | summary
    statements: tuple[Statement, ...]


def commit(conn: sqlite3.Connection, ops: list[Op]) -> None:
    """Apply ``ops`` in one transaction; durable on return (synchronous=FULL)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for op in ops:
            for sql, args in op.statements:
                conn.execute(sql, args)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may already have rolled back (e.g. on SQLITE_FULL)
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


def mark_sql(key: str, value: str) -> Statement:
    return ("INSERT INTO marks (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


@dataclass
class Opened:
    """What the start-up sequence ended with: the file open for writing, or (if it could not
    be) an in-memory copy and why."""

    disk: sqlite3.Connection | None
    mem: sqlite3.Connection | None
    reason: str
    report: StartupReport


def open_files(path: Path, connect: Connect) -> Opened:
    """Check the journal files, then open them as well as the disk allows; never raises."""
    report = StartupReport()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        report.add(Finding(Found.NO_STATE_DIR, file=str(path.parent), error=str(exc.strerror)))
        return Opened(None, memory_copy(None), "no state dir", report)
    copy = copy_before_open(path)
    empty = path.exists() and path.stat().st_size == 0
    wal = scan_wal(path.with_name(path.name + "-wal"))
    try:
        disk, marks = open_rw(path, connect)
    except (sqlite3.Error, schema.NewerJournal) as exc:
        if isinstance(exc, sqlite3.DatabaseError) and _looks_corrupt(exc) and path.exists():
            return _settled(copy, _replace_damaged(path, exc, report, connect))
        opened = _open_readonly(path, exc, report, connect)
        left: dict[str, str] = {}  # the marks the last run left
        with contextlib.suppress(sqlite3.Error):  # a newer journal may keep them elsewhere
            if opened.mem is not None:
                left = dict(opened.mem.execute("SELECT key, value FROM marks").fetchall())
        wal_findings(report, wal, left.get("clean"), left.get("checkpoint"))
        return _settled(copy, opened)
    games = disk.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    if empty and games:
        report.add(Finding(Found.EMPTY_READ_BACK, file=path.name), tell=False)
    elif empty:
        report.add(Finding(Found.EMPTY_NEW, file=path.name))
    wal_findings(report, wal, marks.get("clean"), marks.get("checkpoint"))
    return _settled(copy, Opened(disk, None, "", report))


def _settled(copy: Path | None, opened: Opened) -> Opened:
    settle_copy(copy, opened.report)
    return opened




def _replace_damaged(path: Path, exc: sqlite3.Error, report: StartupReport,
                     connect: Connect) -> Opened:
    """A file SQLite calls corrupt is moved aside (nothing deleted) and a new one started."""
    try:
        aside = move_aside(path)
    except OSError as err:
        report.add(Finding(Found.DAMAGED_STUCK, file=path.name, error=str(exc),
                           reason=str(err.strerror)))
        return Opened(None, memory_copy(None), "damaged", report)
    report.kept = aside.name
    report.add(Finding(Found.DAMAGED_KEPT, file=path.name, error=str(exc), kept=aside.name))
    try:
        disk, _ = open_rw(path, connect)
    except (sqlite3.Error, schema.NewerJournal) as err:
        return Opened(None, memory_copy(None), short_reason(err, path.parent), report)
    return Opened(disk, None, "", report)


def _open_readonly(path: Path, exc: BaseException, report: StartupReport,
                   connect: Connect) -> Opened:
    """The file cannot be written: read its saved games, hold new changes in memory."""
    reason = short_reason(exc, path.parent)
    source = open_ro(path, connect) if path.exists() else None
    mem = memory_copy(source)
    if source is not None:
        source.close()
    report.add(Finding(Found.NOT_WRITABLE, file=path.name, error=str(exc), reason=reason,
                       readable=source is not None))
    return Opened(None, mem, reason, report)


def open_rw(path: Path, connect: Connect, *, check: bool = True
            ) -> tuple[sqlite3.Connection, dict[str, str]]:
    """Open the file for writing, migrated, marked open (not cleanly closed) and checkpointed.

    Returns the connection and the marks the last run left (read before this one's). A retry
    skips ``quick_check`` (a whole-file read on every press): the file was checked at start.
    """
    conn = connect(str(path), isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL").fetchone()
        conn.execute("PRAGMA synchronous=FULL")
        if check:
            quick_check(conn)
        schema.migrate(conn)
        marks = dict(conn.execute("SELECT key, value FROM marks").fetchall())
        commit(conn, [Op("mark", (mark_sql("clean", "0"),))])
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn, marks


def open_ro(path: Path, connect: Connect, *, check: bool = True) -> sqlite3.Connection | None:
    """The file opened only for reading: ``mode=ro`` reads the WAL too (it needs the -shm);
    ``immutable=1`` reads the main file alone when even the -shm cannot be made. Without
    ``check`` only the header is read (the history screens, on a file checked at start)."""
    uri = path.resolve().as_uri()
    for query in ("mode=ro", "immutable=1"):
        try:
            conn = connect(f"{uri}?{query}", uri=True, isolation_level=None,
                           check_same_thread=False)
        except sqlite3.Error:
            continue
        try:
            if check:
                quick_check(conn)
            else:
                conn.execute("PRAGMA user_version").fetchone()
            return conn
        except sqlite3.Error as exc:
            log.warning("journal read-only open (%s) failed: %s", query, exc)
            conn.close()
    return None


def file_identity(path: Path) -> tuple[int, ...] | None:
    """The file at ``path``: device and inode, then size and time of the last write (in WAL
    mode only a checkpoint writes the file itself), or None when there is none."""
    try:
        stats = os.stat(path)
    except OSError:
        return None
    return stats.st_dev, stats.st_ino, stats.st_size, stats.st_mtime_ns


def data_version(conn: sqlite3.Connection | None) -> int:
    """SQLite's count of commits by other connections (a history import, the phone page)."""
    try:
        return int(conn.execute("PRAGMA data_version").fetchone()[0]) if conn else 0
    except sqlite3.Error:
        return -1


def memory_copy(source: sqlite3.Connection | None) -> sqlite3.Connection:
    """An in-memory journal: a copy of ``source`` (or empty), at this release's schema."""
    mem = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    if source is not None:
        source.backup(mem)
    with contextlib.suppress(schema.NewerJournal):  # a newer file is read as it is
        schema.migrate(mem)
    return mem


def quick_check(conn: sqlite3.Connection) -> None:
    row = conn.execute("PRAGMA quick_check").fetchone()
    if row[0] != "ok":
        raise sqlite3.DatabaseError(f"database disk image is malformed: {row[0]}")


def _looks_corrupt(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


# Less free space than this on the journal's filesystem makes an I/O error a full disk:
# SQLite reports a -shm or -wal file it cannot grow as an I/O error, not as SQLITE_FULL.
LOW_SPACE_BYTES = 64 * 1024


def short_reason(exc: BaseException, where: Path | None = None) -> str:
    """Why the disk refused, in two or three words for the screen; ``where`` (the journal's
    directory) tells a full disk from another I/O error."""
    text = str(exc).lower()
    if isinstance(exc, schema.NewerJournal):
        return "newer journal"
    if "full" in text or ("i/o" in text and where is not None and _low_space(where)):
        return "disk full"
    if "readonly" in text or "read-only" in text:
        return "read-only"
    if "i/o" in text:
        return "I/O error"
    if "unable to open" in text:
        return "can't open"
    if "locked" in text or "busy" in text:
        return "busy"
    return "write failed"


def _low_space(where: Path) -> bool:
    try:
        stats = os.statvfs(where)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < LOW_SPACE_BYTES
