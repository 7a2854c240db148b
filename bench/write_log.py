"""Block-write logs in the dm-log-writes format (Linux's dm-log-writes target writes it, and
QEMU's ``blklogwrites`` block driver): read one, and rebuild a disk as a power cut would have
left it at any point.

The format, all little-endian: sector 0 holds the super (magic, version, the number of
entries, the sector size); the entries follow from sector 1, each a header sector (the
sector written, how many sectors, flags, the length of a mark's name, which sits in the
header sector) and then the written sectors (none for a discard or a flush). QEMU writes the
super on each flush, so the entries it counts end at a flush.

A crash state (what the card holds after a cut) is every write up to a flush point, plus any
subset of the writes after it: a card acknowledges writes into a volatile cache and may keep
some of them and lose others, in any order, until the next flush (or a FUA write) is done.

Used by bench/crash_states.py; tested in tests/test_write_log.py on logs made there.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

MAGIC = 0x6A736677736872
VERSION = 1
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
SUPER = struct.Struct("<QQQI")
ENTRY = struct.Struct("<QQQQ")


class LogError(ValueError):
    """The file is not a write log, or an entry in it is damaged."""


@dataclass(frozen=True)
class Entry:
    """One logged request: ``data_at`` is where its sectors start in the log file."""

    index: int
    sector: int
    sectors: int
    flags: int
    data_at: int
    mark: str = ""

    @property
    def flush(self) -> bool:
        """After this entry everything logged so far is on stable storage."""
        return bool(self.flags & FLUSH)

    @property
    def writes(self) -> bool:
        return self.sectors > 0 and not self.flags & MARK


def read_super(log: BinaryIO) -> tuple[int, int]:
    """(entries counted, sector size) from the log's first sector."""
    log.seek(0)
    raw = log.read(SUPER.size)
    if len(raw) < SUPER.size:
        raise LogError("too short for a write log's super block")
    magic, version, count, sector_size = SUPER.unpack(raw)
    if magic != MAGIC:
        raise LogError(f"not a write log (magic {magic:#x})")
    if version != VERSION:
        raise LogError(f"write log version {version}, this reader knows {VERSION}")
    if sector_size < ENTRY.size or sector_size & (sector_size - 1):
        raise LogError(f"sector size {sector_size} is not a power of two of at least {ENTRY.size}")
    return count, sector_size


def entries(log: BinaryIO) -> Iterator[Entry]:
    """The counted entries, in the order they were logged."""
    count, size = read_super(log)
    end = log.seek(0, 2)
    at = size
    for index in range(count):
        log.seek(at)
        raw = log.read(size)
        if len(raw) < ENTRY.size:
            raise LogError(f"entry {index} at byte {at}: the log ends inside it")
        sector, sectors, flags, data_len = ENTRY.unpack_from(raw)
        if flags & ~(FLUSH | FUA | DISCARD | MARK):
            raise LogError(f"entry {index} at byte {at}: unknown flags {flags:#x}")
        if ENTRY.size + data_len > size:
            raise LogError(f"entry {index} at byte {at}: a {data_len}-byte mark in a {size}-byte sector")
        mark = raw[ENTRY.size:ENTRY.size + data_len].decode(errors="replace") if flags & MARK else ""
        data_at = at + size
        at = data_at + (0 if flags & DISCARD else sectors * size)
        if at > end:
            raise LogError(f"entry {index}: its {sectors} sectors run past the end of the log")
        yield Entry(index, sector, sectors, flags, data_at, mark)


class Disk:
    """A disk image (or one partition of it) that the log's writes are applied to in place:
    ``first_sector`` and ``sectors`` give the partition's place on the logged disk (in the
    log's sectors); writes outside it are left out, writes across its edge clipped."""

    def __init__(self, image: Path, log: BinaryIO, sector_size: int, first_sector: int = 0,
                 sectors: int | None = None) -> None:
        self.image, self.log, self.size = image, log, sector_size
        self.first = first_sector
        self.last = first_sector + (sectors if sectors is not None else
                                    image.stat().st_size // sector_size)

    def span(self, entry: Entry) -> tuple[int, int, int] | None:
        """(byte in the log, byte in the image, length) of what ``entry`` writes here."""
        if not entry.writes:
            return None
        start = max(entry.sector, self.first)
        stop = min(entry.sector + entry.sectors, self.last)
        if start >= stop:
            return None
        skipped = start - entry.sector
        return (entry.data_at + skipped * self.size, (start - self.first) * self.size,
                (stop - start) * self.size)

    def apply(self, chosen: Iterable[Entry]) -> list[tuple[int, bytes]]:
        """Writes the entries (a discard as zeros: what a card returns for it is undefined,
        and zeros are the harshest answer); returns what was there before, for ``undo``."""
        before = []
        with self.image.open("r+b") as disk:
            for entry in chosen:
                span = self.span(entry)
                if span is None:
                    continue
                source, target, length = span
                disk.seek(target)
                before.append((target, disk.read(length)))
                if entry.flags & DISCARD:
                    data = bytes(length)
                else:
                    self.log.seek(source)
                    data = self.log.read(length)
                disk.seek(target)
                disk.write(data)
        return before

    def undo(self, before: list[tuple[int, bytes]]) -> None:
        with self.image.open("r+b") as disk:
            for target, data in reversed(before):
                disk.seek(target)
                disk.write(data)


@dataclass(frozen=True)
class CrashState:
    """What the card holds after a cut: every entry before ``upto`` (an index into the log),
    and of the entries from there to ``pending_end`` only those in ``kept``."""

    upto: int
    kept: tuple[int, ...] = ()
    pending_end: int = 0

    @property
    def between_flushes(self) -> bool:
        return self.pending_end > self.upto


def crash_states(log: list[Entry], rng: random.Random, between: int) -> list[CrashState]:
    """Every flush point of the log, and ``between`` states drawn by ``rng`` between two
    flush points (fewer if the draws repeat), each holding some and missing some of the writes
    since the last one (a FUA write, written through the card's cache, is never missing)."""
    points = [entry.index + 1 for entry in log if entry.flush]
    states = [CrashState(upto) for upto in points]
    windows = []
    start = 0
    for end in [*points, len(log)]:
        cached = [e.index for e in log[start:end] if e.writes and not e.flags & FUA]
        through = [e.index for e in log[start:end] if e.writes and e.flags & FUA]
        if len(cached) > 1:
            windows.append((start, end, cached, through))
        start = end
    for _ in range(between if windows else 0):
        start, end, cached, through = rng.choice(windows)
        kept = rng.sample(cached, rng.randrange(1, len(cached)))
        states.append(CrashState(start, tuple(sorted(kept + through)), end))
    return sorted(set(states), key=lambda state: (state.upto, state.pending_end, state.kept))
