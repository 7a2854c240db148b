"""bench/write_log.py: the dm-log-writes reader and the crash states rebuilt from it, on logs
written here byte by byte as the format lays them out."""

from __future__ import annotations

import random
import struct
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import write_log  # bench/ is not a package: found by the path above
from write_log import DISCARD, FLUSH, FUA, MARK, CrashState, Disk, LogError

SECTOR = 512


def make_log(path: Path, requests: list[tuple[int, bytes | int, int]], counted: int | None = None,
             sector_size: int = SECTOR) -> Path:
    """A log of ``requests`` (sector, data or a sector count for a discard/flush, flags);
    the super counts ``counted`` of them (all by default), as QEMU's does at its last flush."""
    body = b""
    for sector, data, flags in requests:
        if isinstance(data, int):
            header = struct.pack("<QQQQ", sector, data, flags, 0)
            data = b""
        elif flags & MARK:
            header = struct.pack("<QQQQ", 0, 0, flags, len(data)) + data
            data = b""
        else:
            header = struct.pack("<QQQQ", sector, len(data) // sector_size, flags, 0)
        body += header.ljust(sector_size, b"\0") + data
    count = len(requests) if counted is None else counted
    superblock = struct.pack("<QQQI", write_log.MAGIC, write_log.VERSION, count, sector_size)
    path.write_bytes(superblock.ljust(sector_size, b"\0") + body)
    return path


def block(byte: int, sectors: int = 1) -> bytes:
    return bytes([byte]) * (SECTOR * sectors)


def read_entries(path: Path) -> list[write_log.Entry]:
    with path.open("rb") as log:
        return list(write_log.entries(log))


def test_entries_are_read_with_their_flags_and_data_places(tmp_path):
    log = make_log(tmp_path / "log", [(4, block(1, 2), 0), (0, 0, FLUSH), (9, 3, DISCARD),
                                      (0, b"mymark", MARK), (2, block(7), FUA)])
    entries = read_entries(log)
    assert [(e.sector, e.sectors, e.flags) for e in entries] == [
        (4, 2, 0), (0, 0, FLUSH), (9, 3, DISCARD), (0, 0, MARK), (2, 1, FUA)]
    assert entries[0].data_at == 2 * SECTOR            # after the super and its header
    assert entries[1].data_at == 5 * SECTOR            # two data sectors, then its header
    assert entries[3].mark == "mymark"
    assert entries[4].data_at == 8 * SECTOR            # the discard and the mark carry no data
    assert [e.flush for e in entries] == [False, True, False, False, False]


def test_only_the_entries_the_super_counts_are_read(tmp_path):
    """QEMU updates the count at each flush: writes after the last one are not yet in it."""
    log = make_log(tmp_path / "log", [(0, block(1), 0), (0, 0, FLUSH), (1, block(2), 0)], counted=2)
    assert [e.index for e in read_entries(log)] == [0, 1]


@pytest.mark.parametrize("damage, message", [
    (lambda raw: b"\0" * 8 + raw[8:], "not a write log"),
    (lambda raw: raw[:8] + struct.pack("<Q", 2) + raw[16:], "version 2"),
    (lambda raw: raw[:24] + struct.pack("<I", 100) + raw[28:], "sector size 100"),
    (lambda raw: raw[:SECTOR + 16] + struct.pack("<Q", 64) + raw[SECTOR + 24:], "unknown flags"),
    (lambda raw: raw[:-1], "run past the end"),
    (lambda raw: raw[:20], "too short"),
])
def test_a_damaged_log_is_refused_with_the_reason(tmp_path, damage, message):
    log = make_log(tmp_path / "log", [(0, block(1), 0), (0, 0, FLUSH)])
    log.write_bytes(damage(log.read_bytes()))
    with pytest.raises(LogError, match=message):
        read_entries(log)


def test_writes_land_in_the_partition_clipped_at_its_edges_and_undo_restores(tmp_path):
    """The log is of the whole card; the image is its partition from sector 10 to 14."""
    log = make_log(tmp_path / "log", [(8, block(1, 4), 0), (12, block(2, 4), 0),
                                      (20, block(3), 0), (11, 1, DISCARD)])
    image = tmp_path / "part.img"
    image.write_bytes(block(9, 4))
    with log.open("rb") as raw:
        disk = Disk(image, raw, SECTOR, first_sector=10, sectors=4)
        before = disk.apply(write_log.entries(raw))
        assert image.read_bytes() == block(1) + bytes(SECTOR) + block(2, 2)
        disk.undo(before)
    assert image.read_bytes() == block(9, 4)


def test_every_flush_point_is_a_state_and_the_states_between_miss_some_cached_writes(tmp_path):
    requests = [(0, block(1), 0), (1, block(2), 0), (2, block(3), 0), (0, 0, FLUSH),
                (3, block(4), 0), (0, 0, FLUSH), (4, block(5), FUA), (5, block(6), 0),
                (6, block(7), 0), (0, 0, FLUSH)]
    entries = read_entries(make_log(tmp_path / "log", requests))
    states = write_log.crash_states(entries, random.Random(5), between=50)
    assert [s for s in states if not s.between_flushes] == [CrashState(4), CrashState(6),
                                                             CrashState(10)]
    between = [s for s in states if s.between_flushes]
    assert between and len(set(between)) == len(between)
    windows = {(0, 4): {0, 1, 2}, (6, 10): {7, 8}}  # the window of one write has no other state
    for state in between:
        cached = windows[(state.upto, state.pending_end)]
        kept = set(state.kept) - {6}
        assert kept and kept < cached  # some writes since the flush kept, some lost
        if state.upto == 6:
            assert 6 in state.kept  # the FUA write is never lost
    # the same seed draws the same states (a failure can be run again)
    assert write_log.crash_states(entries, random.Random(5), between=50) == states

