"""The start-up check: what the journal files look like before SQLite touches them.

SQLite silently drops a write-ahead log (WAL) whose tail was cut, and silently starts over on a
zero-byte or missing file. These checks look first, so the box can say what was lost.
"""

from __future__ import annotations

import os
import shutil
import struct
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

WAL_MAGIC = (0x377F0682, 0x377F0683)  # little- / big-endian checksums
WAL_HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True)
class WalScan:
    """What a WAL file holds beyond what SQLite will recover from it."""

    present: bool
    lost: int = 0  # transactions cut off (each one journal change); -1: some, count unknown


class Found(Enum):
    """What the start-up check can find (``companion.ui.journal_words`` says each in words)."""

    NO_STATE_DIR = "no state dir"              # the state directory cannot be made
    EMPTY_READ_BACK = "empty, read back"       # a 0-byte file whose games the WAL still held
    EMPTY_NEW = "empty, new"                   # a 0-byte file: its games are gone
    DAMAGED_STUCK = "damaged, not moved"       # damaged and could not be moved aside
    DAMAGED_KEPT = "damaged, kept"             # damaged, moved aside, a new journal started
    NOT_WRITABLE = "not writable"              # read (or not) but never written this run
    COPIED = "copied"                          # the last run's files, copied before the check
    WAL_CUT = "wal cut"                        # the WAL's tail was cut: ``count`` actions lost
    WAL_DAMAGED = "wal damaged"                # the WAL could not be read at all
    WAL_MISSING = "wal missing"                # no WAL after a stop that was not clean
    SPARE_UNREADABLE = "spare unreadable"      # a spare journal that could not be read
    SPARE_BACK = "spare back"                  # a spare's ``count`` held actions written back
    SPARE_KEPT = "spare kept"                  # a spare that no longer fits, kept aside


@dataclass(frozen=True)
class Finding:
    """One thing the start-up check found, as facts; the fields a kind has no use for stay
    empty."""

    kind: Found
    file: str = ""              # the file (or directory) it is about
    error: str = ""             # what SQLite or the OS said
    reason: str = ""            # the short reason ("read-only", "disk full")
    kept: str = ""              # the name something was kept as
    files: tuple[str, ...] = ()  # what a kept folder holds
    count: int = 0              # actions lost or written back
    checkpoint: str | None = None  # the last save point the file holds ("round 2")
    place: str = ""             # a spare's place ("USB stick")
    readable: bool = False      # a journal that cannot be written can still be read


@dataclass
class StartupReport:
    """What the start-up check found and did, as facts for the log and the About screen."""

    findings: list[Finding] = field(default_factory=list)
    note: Finding | None = None  # the one the screen shows at start
    kept: str | None = None  # the name a damaged journal was moved aside to
    kept_files: tuple[str, ...] = ()  # what that folder holds, when it is one

    def add(self, finding: Finding, *, tell: bool = True) -> None:
        """Keep ``finding``; with ``tell``, the first such is shown on the screen at start."""
        self.findings.append(finding)
        if tell and self.note is None:
            self.note = finding


def _checksum(data: bytes, big: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def scan_wal(path: Path) -> WalScan:
    """Count the transactions in ``path`` that SQLite's recovery will skip as damaged.

    SQLite keeps the frames whose salts and running checksum match, up to the last commit
    frame among them; anything after it that still carries this log's salts was written and
    then cut (or damaged). Frames with other salts are left over from an earlier log.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return WalScan(present=False)
    except OSError:
        return WalScan(present=True, lost=-1)
    if not data:
        return WalScan(present=True)  # emptied by a checkpoint
    if not any(data[:WAL_HEADER]):
        # What a card returns for a block never written: the cut came before the new log's
        # header reached the disk, and SQLite syncs that header before any frame after it,
        # so no commit in this log was ever confirmed.
        return WalScan(present=True)
    if len(data) < WAL_HEADER:
        return WalScan(present=True, lost=-1)
    magic, _, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:WAL_HEADER])
    big = magic == WAL_MAGIC[1]
    if magic not in WAL_MAGIC or _checksum(data[:24], big, 0, 0) != (c1, c2):
        return WalScan(present=True, lost=-1)
    frame = FRAME_HEADER + page_size
    sums = (c1, c2)
    pos, open_txn = WAL_HEADER, False
    while pos + frame <= len(data):
        _, commit, s1, s2, f1, f2 = struct.unpack(">6I", data[pos : pos + FRAME_HEADER])
        if (s1, s2) != (salt1, salt2):
            break
        sums = _checksum(data[pos : pos + 8] + data[pos + FRAME_HEADER : pos + frame], big, *sums)
        if sums != (f1, f2):
            break
        open_txn = commit == 0
        pos += frame
    lost, damaged = 0, False
    while pos < len(data):
        if pos + FRAME_HEADER > len(data):
            damaged = open_txn = True  # a frame header cut short
            break
        _, commit, s1, s2 = struct.unpack(">4I", data[pos : pos + 16])
        if (s1, s2) != (salt1, salt2):
            break
        damaged = True
        if commit:
            lost, open_txn = lost + 1, False
        else:
            open_txn = True
        pos += frame
    if damaged and open_txn:
        lost += 1  # its commit frame was in the part that is gone
    return WalScan(present=True, lost=lost)


def aside_name(directory: Path, now: float | None = None, *, prefix: str = "bad",
               suffix: str = ".db") -> Path:
    """A short free name for a damaged journal, readable on the OLED: ``bad-1130-1538.db``."""
    stamp = time.strftime("%m%d-%H%M", time.localtime(time.time() if now is None else now))
    candidate = directory / f"{prefix}-{stamp}{suffix}"
    n = 2
    while candidate.exists():
        candidate = directory / f"{prefix}-{stamp}-{n}{suffix}"
        n += 1
    return candidate


SIDE_FILES = ("-wal", "-shm")
COPY_DIR = "unclean-start"  # the files as the last run left them, until the check is done


def copy_before_open(path: Path) -> Path | None:
    """After a stop that was not clean (a -wal or -shm is left), copy the journal and its side
    files aside before SQLite opens them: a failed open can delete the WAL that holds the last
    acknowledged commits. None when the stop was clean or the copy cannot be made."""
    sides = [path.with_name(path.name + s) for s in SIDE_FILES]
    if not any(side.exists() for side in sides):
        return None
    copy = path.with_name(COPY_DIR)
    try:
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir()
        for source in (path, *sides):
            if source.exists():
                shutil.copyfile(source, copy / source.name)
                with open(copy / source.name, "rb") as done:
                    os.fsync(done.fileno())
    except OSError:  # a full or read-only disk: the open goes on without the copy
        shutil.rmtree(copy, ignore_errors=True)
        return None
    return copy


def settle_copy(copy: Path | None, report: StartupReport) -> None:
    """Keep the copy made before the open as ``bad-MMDD-HHMM/`` when the check found anything
    (its name and contents go to About); remove it when nothing was wrong."""
    if copy is None:
        return
    if not report.findings:
        shutil.rmtree(copy, ignore_errors=True)
        return
    kept = aside_name(copy.parent, suffix="")
    try:
        copy.rename(kept)
    except OSError:
        return
    files = sorted(p.name for p in kept.iterdir())
    report.kept = f"{kept.name}/"
    report.kept_files = tuple(files)
    report.add(Finding(Found.COPIED, kept=report.kept, files=report.kept_files), tell=False)


def move_aside(path: Path) -> Path:
    """Rename a damaged journal and its side files; nothing is deleted."""
    aside = aside_name(path.parent)
    path.rename(aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(aside.with_name(aside.name + suffix))
    return aside


def wal_findings(report: StartupReport, scan: WalScan, clean: str | None,
                 checkpoint: str | None) -> None:
    """Say what a cut or missing WAL cost, from the scan and the marks the last run left.

    ``clean`` is "1" after a clean close, "0" while a box has the journal open; ``checkpoint``
    names the last point the database file itself holds (e.g. "round 2").
    """
    if scan.lost > 0:
        # Only commits still visible past the damage are counted: a cut may have taken more.
        report.add(Finding(Found.WAL_CUT, count=scan.lost, checkpoint=checkpoint))
    elif scan.lost < 0:
        report.add(Finding(Found.WAL_DAMAGED, checkpoint=checkpoint))
    elif not scan.present and clean == "0":
        report.add(Finding(Found.WAL_MISSING, checkpoint=checkpoint))
