"""The instruction-clock benchmark's own machinery: the gate fails a figure grown by more than
10 %, the guest's archive is a newc cpio the kernel can unpack, kernel modules come after what
they need, and the press timer sees each press once.

The figures themselves come from ``python bench/pi_clock.py`` (CI runs ``--quick --check``).
"""

from __future__ import annotations

import importlib
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_module(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


def test_the_gate_fails_a_figure_grown_by_more_than_ten_percent_or_missing():
    pi_clock = bench_module("pi_clock")
    baseline = {"press_to_frame_ms_p99": 10.0, "startup_to_first_frame_s": 1.0,
                "idle_wakeups_per_s": 0.0}
    assert pi_clock.check({"press_to_frame_ms_p99": 11.0, "startup_to_first_frame_s": 0.5,
                           "idle_wakeups_per_s": 0.0}, baseline) == []
    grown = pi_clock.check({"press_to_frame_ms_p99": 11.01, "idle_wakeups_per_s": 0.5}, baseline)
    assert [line.split(":")[0] for line in grown] == [
        "press_to_frame_ms_p99", "startup_to_first_frame_s", "idle_wakeups_per_s"]


def test_only_times_and_wakeups_are_gated_and_times_carry_their_instructions():
    pi_clock = bench_module("pi_clock")
    figures = pi_clock.with_instructions({"ns": {"coach_ms": 12_345_678}, "coach_ms": 12.346,
                                          "startup_to_first_frame_s": 0.5, "presses": 300,
                                          "idle_wakeups_per_s": 0.0, "host_seconds": 900.0})
    assert figures["instructions"] == {"coach_ms": 12_345_678, "startup_to_first_frame_s": 500_000_000}
    assert pi_clock.gated(figures) == {"coach_ms": 12.346, "startup_to_first_frame_s": 0.5,
                                       "idle_wakeups_per_s": 0.0}


def read_newc(data: bytes) -> list[tuple[str, int, int, bytes]]:
    """(name, mode, date, data) of each entry of a newc archive, as the kernel reads it."""
    entries, at = [], 0
    while True:
        assert data[at:at + 6] == b"070701"
        fields = [int(data[at + 6 + 8 * i:at + 14 + 8 * i], 16) for i in range(13)]
        mode, date, size, name_size = fields[1], fields[5], fields[6], fields[11]
        name_at = at + 110
        name = data[name_at:name_at + name_size - 1].decode()
        body_at = name_at + name_size + (-(110 + name_size) % 4)
        if name == "TRAILER!!!":
            return entries
        entries.append((name, mode, date, data[body_at:body_at + size]))
        at = body_at + size + (-size % 4)


def test_the_archive_holds_files_folders_and_links_with_their_modes(tmp_path):
    pi_clock = bench_module("pi_clock")
    (tmp_path / "usr/bin").mkdir(parents=True)
    (tmp_path / "usr/bin/tool").write_bytes(b"#!/bin/sh\n")
    (tmp_path / "usr/bin/tool").chmod(0o755)
    (tmp_path / "usr/bin/alias").symlink_to("tool")
    (tmp_path / "usr/doc").mkdir()
    (tmp_path / "usr/doc/skipped").write_text("x")
    out = io.BytesIO()
    archive = pi_clock.Cpio(out)
    archive.tree(tmp_path, "", ("usr/doc/",))
    archive.file("etc/args", "--quick\n")
    archive.close()
    entries = {name: (mode, body) for name, mode, _date, body in read_newc(out.getvalue())}
    assert list(entries) == [".", "usr", "usr/bin", "usr/bin/alias", "usr/bin/tool", "etc/args"]
    assert entries["usr/bin/tool"] == (stat.S_IFREG | 0o755, b"#!/bin/sh\n")
    assert entries["usr/bin/alias"][1] == b"tool" and stat.S_ISLNK(entries["usr/bin/alias"][0])
    assert stat.S_ISDIR(entries["usr"][0]) and entries["etc/args"][1] == b"--quick\n"


def packed(tree: Path) -> bytes:
    out = io.BytesIO()
    archive = bench_module("pi_clock").Cpio(out)
    archive.tree(tree, "opt/companion")
    archive.close()
    return out.getvalue()


def test_the_archive_is_the_same_bytes_whatever_the_files_dates_on_this_disk(tmp_path):
    """A folder's date in the guest moved the figures by a few instructions: every entry is
    dated alike, so two runs of the same code boot the same bytes."""
    pi_clock = bench_module("pi_clock")
    trees = []
    for name, date in (("today", 1_796_000_000), ("last-year", 1_760_000_000)):
        tree = tmp_path / name
        (tree / "companion").mkdir(parents=True)
        (tree / "companion/box.py").write_text("LOOP = 1\n")
        for path in (tree / "companion/box.py", tree / "companion", tree):
            os.utime(path, (date, date))
        trees.append(tree)
    first, second = (packed(tree) for tree in trees)
    assert first == second
    assert {date for _name, _mode, date, _body in read_newc(first)} == {pi_clock.PROJECT_DATE}


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the guest's bytecode is Python 3.11's")
def test_the_bytecode_records_the_date_the_guest_sees(tmp_path):
    """The guest checks each module's bytecode against its source's date: both are PROJECT_DATE,
    so no module is compiled again in the guest."""
    pi_clock = bench_module("pi_clock")
    (tmp_path / "box.py").write_text("LOOP = 1\n")
    os.utime(tmp_path / "box.py", (1_796_000_000, 1_796_000_000))
    pi_clock.compile_tree(tmp_path, "/opt/companion")
    (bytecode,) = (tmp_path / "__pycache__").iterdir()
    assert int.from_bytes(bytecode.read_bytes()[8:12], "little") == pi_clock.PROJECT_DATE


def test_the_guest_gets_its_own_half_and_the_bench_modules_it_imports_in_turn(tmp_path, monkeypatch):
    """Any byte more in the guest moves the figures a little: the harness, its baseline and the
    other benchmarks stay out."""
    pi_clock = bench_module("pi_clock")
    (tmp_path / "bench").mkdir()
    for name, text in (("pi_clock_guest", "import json\nimport bench_box\n"),
                       ("bench_box", "from bench_display import spread\n"),
                       ("bench_display", "import statistics\n"), ("pi_clock", "import ast\n"),
                       ("appliance", "import bench_box\n")):
        (tmp_path / "bench" / f"{name}.py").write_text(text)
    (tmp_path / "bench" / "pi_clock_baseline.json").write_text("{}\n")
    monkeypatch.setattr(pi_clock, "ROOT", tmp_path)
    assert pi_clock.guest_bench() == ["bench_box.py", "bench_display.py", "pi_clock_guest.py"]


def test_kernel_modules_are_loaded_after_the_ones_they_need(tmp_path):
    pi_clock = bench_module("pi_clock")
    for path, depends in (("fs/ext4/ext4.ko", "jbd2,mbcache"), ("fs/jbd2/jbd2.ko", ""),
                          ("fs/mbcache.ko", ""), ("drivers/block/brd.ko", "")):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"\x7fELF\0license=GPL\0depends=" + depends.encode() + b"\0")
    order = [p.name for p in pi_clock.module_order(tmp_path, ("brd", "ext4"))]
    assert order == ["brd.ko", "jbd2.ko", "mbcache.ko", "ext4.ko"]


def test_the_press_timer_times_each_press_that_drew_once(tmp_path):
    guest = bench_module("pi_clock_guest")
    from companion.simulator.simbox import SimBox

    box = SimBox(tmp_path)
    try:
        timer = guest.PressTimer(box)
        for button in ("DOWN", "DOWN", "UP"):
            box.press(button)
        box.advance(5.0)  # no press: not timed
    finally:
        box.close()
    assert [where for _, where in timer.presses] == ["HomeScreen after DOWN", "HomeScreen after DOWN",
                                                     "HomeScreen after UP"]
    assert all(ns > 0 for ns, _ in timer.presses)


def test_every_named_screen_is_on_exactly_one_walk():
    guest = bench_module("pi_clock_guest")
    from companion.simulator.walk import named_screens

    stops = [name for walk_stops in guest.walks().values() for _, name in walk_stops]
    assert sorted(stops) == sorted(named_screens())


def test_the_boot_figures_come_from_the_box_s_frames_and_its_press():
    """"boot_to_playable_s (to the home screen taking a press: the agent presses OK and sees
    the frame change)" (issue 40): the first frame after the press that differs from the one
    shown when it was made."""
    sys.path.insert(0, str(BENCH.parent / "image" / "test-agent"))
    boot_clock = importlib.import_module("boot_clock")
    lines = ["100 frame aaa", "250 frame bbb", "300 press OK", "340 frame bbb", "400 frame ccc",
             "500 frame ddd"]
    assert boot_clock.frame_times(lines) == {"first_frame": 100, "press": 300, "playable": 400}
    assert boot_clock.frame_times(["100 frame aaa"]) == {"first_frame": 100}
    assert [boot_clock.duration_s(text) for text in ("1.204s", "812ms", "1min 2.500s", "soon")] == [
        1.204, 0.812, 62.5, None]


def test_the_kernel_s_part_of_the_boot_is_read_from_its_log(monkeypatch):
    sys.path.insert(0, str(BENCH.parent / "image" / "test-agent"))
    boot_clock = importlib.import_module("boot_clock")
    log = "[    0.000000] Booting Linux\n[    1.020304] Run /init as init process\n"
    monkeypatch.setattr(boot_clock.subprocess, "run",
                        lambda *_args, **_kw: subprocess.CompletedProcess(["dmesg"], 0, log))
    assert boot_clock.kernel_note_ns("Run /init as init process") == 1_020_304_000
    assert boot_clock.kernel_note_ns("Mounting the root") is None


def test_the_sd_card_is_a_power_of_two_that_holds_the_image():
    pi_clock = bench_module("pi_clock")
    assert [pi_clock.sd_card_size(n) for n in (1 << 30, (1 << 30) + 1, 1_900_000_000)] == [
        1 << 30, 1 << 31, 1 << 31]


def test_one_section_s_baseline_replaces_its_own_figures_and_is_checked_alone(tmp_path, monkeypatch, capsys):
    pi_clock = bench_module("pi_clock")
    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"stats_ms": 16.0, "boot_to_ready_s": 5.0}\n')
    monkeypatch.setattr(pi_clock, "BASELINE", baseline)
    monkeypatch.setattr(pi_clock, "measure", lambda *args: {"boot_to_ready_s": 5.4,
                                                            "boot_host_seconds": 300.0})
    assert pi_clock.main(["--only", "boot", "--check", "--json"]) == 0
    monkeypatch.setattr(pi_clock, "measure", lambda *args: {"boot_to_ready_s": 5.6})
    assert pi_clock.main(["--only", "boot", "--check", "--json"]) == 1
    assert pi_clock.main(["--only", "boot", "--write-baseline", "--json"]) == 0
    assert baseline.read_text() == '{\n "stats_ms": 16.0,\n "boot_to_ready_s": 5.6\n}\n'
    capsys.readouterr()
