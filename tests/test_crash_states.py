"""bench/crash_states.py without QEMU: a run's states drawn from its log (each distinct data
partition once) and each judged against the steps acknowledged before its point of the log."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import crash_states  # bench/ is no package
from crash_check import HALF, LOST, OK
from test_write_log import SECTOR, block, make_log
from write_log import FLUSH, CrashState

FIRST, SECTORS = 100, 100  # the data partition's place on the logged card
A, B = {"type": "roll", "face": 1}, {"type": "roll", "face": 2}


def a_run(tmp_path: Path) -> crash_states.Run:
    """Writes to the data partition and one outside it, three flushes; a step acknowledged
    once the first flush was logged, and one once the last was."""
    requests = [(FIRST, block(1), 0), (0, 0, FLUSH),              # entries 0, 1
                (5, block(2), 0), (0, 0, FLUSH),                  # 2 (not the data's), 3
                (FIRST + 1, block(3), 0), (FIRST + 2, block(4), 0), (0, 0, FLUSH)]  # 4, 5, 6
    make_log(tmp_path / "card.log", requests)
    # the log's bytes: the super, then each entry's header sector and its data
    end_of = {1: 4 * SECTOR, 6: 12 * SECTOR}
    lines = [{"dir": "crash-makan", "at": end_of[1], "game": 1, "n": 1, "keep": 0, "tail": [A]},
             {"dir": "crash-makan", "at": end_of[6], "game": 1, "n": 2, "keep": 1, "tail": [B]}]
    (tmp_path / "acks.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (tmp_path / "run.json").write_text(json.dumps({
        "seed": 1, "data_offset": FIRST * SECTOR, "data_size": SECTORS * SECTOR,
        "dirs": {"crash-makan": "makan"}}))
    return crash_states.Run(tmp_path)


def test_each_distinct_state_of_the_data_partition_is_drawn_once(tmp_path):
    states = a_run(tmp_path).states(seed=3, between=50)
    # the flush after the write outside the partition leaves it as the first flush did
    assert states == [CrashState(2), CrashState(4, (4,), 7), CrashState(4, (5,), 7), CrashState(7)]


def test_a_state_needs_the_steps_acknowledged_before_its_point_of_the_log(tmp_path):
    run = a_run(tmp_path)
    assert run.positions["crash-makan"] == [2, 7]
    first, second = {"crash-makan": {1: [A]}}, {"crash-makan": {1: [A, B]}}
    assert run.judge(CrashState(2), first) == {"crash-makan": OK}
    assert run.judge(CrashState(2), {}) == {"crash-makan": LOST}
    # cut before the last flush finished: the second step's writes may be missing
    assert run.judge(CrashState(4, (4,), 7), first) == {"crash-makan": OK}
    assert run.judge(CrashState(7), first) == {"crash-makan": LOST}
    assert run.judge(CrashState(7), second) == {"crash-makan": OK}
    assert run.judge(CrashState(2), {"crash-makan": {1: [A, A]}}) == {"crash-makan": HALF}


def test_a_folder_that_holds_no_run_is_refused_with_what_is_missing(tmp_path, capsys):
    (tmp_path / "run.json").write_text("{}")
    with pytest.raises(SystemExit) as refused:
        crash_states.main(["--recheck", str(tmp_path)])
    assert refused.value.code == 2
    assert "holds no kept run (no card.log, acks.jsonl, data0.ext4)" in capsys.readouterr().err


def test_a_damaged_log_is_refused_with_the_reason(tmp_path, capsys):
    a_run(tmp_path)
    (tmp_path / "data0.ext4").write_bytes(b"")
    (tmp_path / "card.log").write_bytes(b"not a log" * 100)
    with pytest.raises(SystemExit) as refused:
        crash_states.main(["--recheck", str(tmp_path)])
    assert refused.value.code == 2
    assert "card.log: not a write log" in capsys.readouterr().err


def test_a_journal_is_read_again_only_when_its_files_differ(tmp_path, monkeypatch):
    """Most states hold a game's journal as the one before did: what reading those same
    files found is taken again (read_and_resume is slow: the box's start-up, a resume)."""
    run_dir, journal = tmp_path / "run", tmp_path / "journal"
    run_dir.mkdir()
    journal.mkdir()
    run = a_run(run_dir)
    (run_dir / "data0.ext4").write_bytes(bytes(SECTORS * SECTOR))
    (tmp_path / "scratch").mkdir()
    worker = crash_states.Rebuilder(run, tmp_path / "scratch")
    reads = []
    monkeypatch.setattr(crash_states, "read_and_resume",
                        lambda path: reads.append(path) or ({1: [A] * len(reads)}, "", False))
    (journal / "journal.db").write_bytes(b"one")
    assert worker.read_journal(journal) == ({1: [A]}, "", False)
    assert worker.read_journal(journal) == ({1: [A]}, "", False)
    (journal / "journal.db-wal").write_bytes(b"frames")
    assert worker.read_journal(journal) == ({1: [A, A]}, "", False)
    assert len(reads) == 2
