"""Every crash state of the emulated box's SD card, rebuilt from a block-write log and checked.

The emulated box plays a game of each kind with its whole card behind QEMU's ``blklogwrites``
driver (every write, flush and discard logged in the dm-log-writes format); each state a power
cut could leave on the card is rebuilt from that log and checked, without QEMU. Prints one
JSON object.

Recording: the test image (bench/appliance.py's) boots with a volatile write cache (the guest
flushes, as on an SD card); the reliability campaign's box processes play Makan Mania, the Café
and Miams at once, each on its own journal on the data partition, and each step a screen
acknowledges is taken on the host with the log's length at that moment. Then QEMU is killed.

Checking (``bench/write_log.py`` rebuilds the states): the data partition at every flush point
of the log, and a seeded sample of states between two flushes in which some of the writes since
the last one are missing (a card's cache loses them in any order). For each, on a copy:
``e2fsck -fn`` as cut, then again once the ext4 journal is replayed (as mounting it at boot
does), and ``e2fsck -fy`` when that finds errors; each game's journal dumped
with ``debugfs`` and opened by the box's own start-up code; its games compared with what was
acknowledged before that point (``bench/crash_check.py``); and the saved game resumed, as at
power-up, against a replay of its actions. Both cores, progress on stderr.

Figures (aims in brackets): ``flush_points``, ``states_checked`` (≥ 200 with --quick, ≥ 5,000
without), ``states_between_flushes``, ``acknowledged_lost`` (0),
``never_acknowledged_half_written`` (0), ``resume_mismatches`` (0), ``fsck_unrecoverable`` (0:
errors ``e2fsck -fy`` cannot repair), ``seconds``, ``seed``; also ``fsck_errors_after_replay``
(0: what the box mounts is clean) and ``fsck_errors_before_replay`` (``e2fsck -n`` does not
replay the journal: a state cut mid-transaction shows errors until it is). Exits 1 when one
of the 0s is not.

    python bench/crash_states.py [--quick] [--json] [--seed N] [--run DIR] [--no-build]
    python bench/crash_states.py --recheck DIR    # the states of a kept run, checked again

As root (QEMU's image build, e2fsck on the copies).
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import appliance  # noqa: E402  (bench/ is not a package)
import crash_check  # noqa: E402
import reliability  # noqa: E402
import write_log  # noqa: E402

DATA = 2  # the data partition's index on the card
QUICK = {"acks": 20, "between": 80}  # acknowledged steps of each game; states between flushes
FULL = {"acks": 200, "between": 3000}
ZERO_AIMS = ("acknowledged_lost", "never_acknowledged_half_written", "resume_mismatches",
             "fsck_unrecoverable", "fsck_errors_after_replay")
PLAY_TIMEOUT_S = 1800
RUN_FILES = ("run.json", "card.log", "acks.jsonl", "data0.ext4")  # what --recheck reads
READ_KEPT = 64  # journals read lately whose verdicts each worker keeps (the states come in order)


# ----- recording ----------------------------------------------------------------------------
class LoggedGuest(appliance.Guest):
    """The emulated box with its card behind ``blklogwrites`` and a write cache the guest
    flushes (bench/appliance.py's boxes write through)."""

    def __init__(self, images: Path, disk: Path, work: Path, log: Path) -> None:
        super().__init__(images, disk, work)
        self.log = log

    def command(self) -> list[str]:
        cmd = super().command()
        at = cmd.index("-drive")
        cmd[at:at + 2] = ["-blockdev", ",".join((
            "driver=blklogwrites", "node-name=disk", "file.driver=file",
            f"file.filename={self.disk}", "log.driver=file", f"log.filename={self.log}",
            "log-sector-size=512"))]
        device = cmd.index("virtio-blk-pci,drive=disk")
        cmd[device] += ",write-cache=on"
        return cmd


class Player:
    """One game's box process in the guest: every step its screen acknowledges, with the
    log's length in bytes when the line reached the host, until the stream ends."""

    def __init__(self, cuts: appliance.PowerCuts, game: str, seed: int, log: Path,
                 wanted: int) -> None:
        self.game, self.dir, self.log, self.wanted = game, f"crash-{game}", log, wanted
        self.acks: list[dict[str, Any]] = []
        self.steps = 0  # acknowledged steps among ``acks``
        self.enough = threading.Event()  # ``wanted`` steps acknowledged, or the stream ended
        self.process = cuts.launch(["--child", game, self.dir, str(seed), "null", "play"])
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        for line in self.process.stdout:
            at = self.log.stat().st_size
            fields = json.loads(line)
            if "n" in fields or "forgot" in fields or "undoing" in fields:
                # an undo pressed is kept too: a cut before its frame may find it on the disk
                self.acks.append({"dir": self.dir, "at": at, **fields})
                self.steps += "undoing" not in fields
                if self.steps >= self.wanted:
                    self.enough.set()
        self.enough.set()


def record(run: Path, images: Path, acks: int, seed: int) -> dict[str, Any]:
    """Boot the logged box, play ``acks`` steps of each game, cut the power; the run's files
    (card.log, data0.ext4, run.json, acks.jsonl) are left in ``run``."""
    card = appliance.copy_disk(images / "companion-test.img", run / "card.img")
    offset, size = appliance.partitions(card)[DATA]
    appliance.extract(card, DATA, run / "data0.ext4")
    log = run / "card.log"
    log.touch()
    guest = LoggedGuest(images, card, run, log)
    began = time.monotonic()
    guest.start()
    try:
        boot_s = guest.wait_hello()
        if not guest.wait_active():
            raise RuntimeError(f"companion.service did not start: {guest.console_tail()}")
        appliance.log(f"crash states: box up after {boot_s:.0f} s; the games play")
        cuts = appliance.PowerCuts(images, card, run, seed)
        cuts.guest = guest
        rng = random.Random(seed)
        players = [Player(cuts, game, rng.randrange(1 << 30), log, acks)
                   for game in reliability.PLAYED]
        for player in players:
            player.enough.wait(PLAY_TIMEOUT_S)
    finally:
        guest.kill()  # the power cut that ends the log
    for player in players:
        player.thread.join(60)
    lines = [ack for player in players for ack in player.acks]
    (run / "acks.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    meta = {"seed": seed, "data_offset": offset, "data_size": size,
            "dirs": {p.dir: p.game for p in players}}
    (run / "run.json").write_text(json.dumps(meta))
    (run / "card.img").unlink()  # the states are rebuilt from data0.ext4 and the log
    return {"boot_s": round(boot_s, 1), "record_s": round(time.monotonic() - began, 1),
            "acks": {p.game: p.steps for p in players},
            "log_mb": round(log.stat().st_size / 1e6, 1)}


# ----- the states ---------------------------------------------------------------------------
class Run:
    """A recorded run: its log, where the data partition sits on the card, and each game's
    acknowledged steps with the log position (entries written) each was acknowledged at."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.meta = json.loads((path / "run.json").read_text())
        with (path / "card.log").open("rb") as raw:
            _, self.sector = write_log.read_super(raw)
            self.log = list(write_log.entries(raw))
        ends = [e.data_at + (0 if e.flags & write_log.DISCARD or not e.writes else e.sectors * self.sector)
                for e in self.log]
        self.first = self.meta["data_offset"] // self.sector
        self.sectors = self.meta["data_size"] // self.sector
        lines = [json.loads(line) for line in (path / "acks.jsonl").read_text().splitlines()]
        self.steps: dict[str, list[crash_check.Played]] = {}
        self.positions: dict[str, list[int]] = {}
        self.undo_pressed_last: dict[str, bool] = {}
        for name in self.meta["dirs"]:
            mine = [line for line in lines if line["dir"] == name]
            self.steps[name] = [crash_check.played(step) for step in crash_check.acknowledged(mine)]
            # the entries whose data had all reached the log when the line arrived
            self.positions[name] = [bisect.bisect_right(ends, line["at"]) for line in mine
                                    if not line.get("undoing")]
            self.undo_pressed_last[name] = bool(mine) and bool(mine[-1].get("undoing"))

    def touches_data(self, entry: write_log.Entry) -> bool:
        return entry.writes and entry.sector < self.first + self.sectors \
            and entry.sector + entry.sectors > self.first

    def states(self, seed: int, between: int) -> list[write_log.CrashState]:
        """Every flush point and the seeded sample between them, each distinct data partition
        once: a flush point with no write to it since the one before, or a sample keeping all
        or none of the window's writes to it, is a state already in the list."""
        chosen, seen = [], set()
        last_write = [0]
        for entry in self.log:
            last_write.append(entry.index + 1 if self.touches_data(entry) else last_write[-1])
        for state in write_log.crash_states(self.log, random.Random(seed), between):
            window = tuple(i for i in range(state.upto, state.pending_end)
                           if self.touches_data(self.log[i]))
            kept = tuple(i for i in state.kept if self.touches_data(self.log[i]))
            if not kept:  # the data partition as at the flush point before
                state = write_log.CrashState(state.upto)
            elif kept == window:  # as at the flush point that ends the window
                state = write_log.CrashState(state.pending_end)
            else:
                state = write_log.CrashState(state.upto, kept, state.pending_end)
            key = (last_write[state.upto], state.kept)
            if key not in seen:
                seen.add(key)
                chosen.append(state)
        return sorted(chosen, key=lambda state: (state.upto, state.pending_end, state.kept))

    def judge(self, state: write_log.CrashState, journals: dict[str, dict[int, list[Any]]]) -> dict[str, str]:
        """Each game's verdict (crash_check) on what its journal held in ``state``."""
        # A cut between flushes comes before the flush that ends its window: a step
        # acknowledged in the window rests on writes flushed before it.
        at = state.pending_end - 1 if state.between_flushes else state.upto
        out = {}
        for name, steps in self.steps.items():
            required = bisect.bisect_right(self.positions[name], at) - 1
            out[name] = crash_check.verdict(steps, required, crash_check.played(journals.get(name, {})),
                                            self.undo_pressed_last[name])
        return out


class Rebuilder:
    """One worker's copy of the data partition, moved forward through the log (the states come
    in the log's order, so each write is applied once), and what it finds in each state."""

    def __init__(self, run: Run, scratch: Path) -> None:
        self.run, self.scratch = run, scratch
        self.image, self.at = scratch / "data.img", 0
        # A journal's files as a state left them -> what reading them found: most states hold
        # a game's journal as the state before did (another game wrote, or ext4 alone)
        self.read: OrderedDict[str, tuple[dict[int, list[Any]], str, bool]] = OrderedDict()
        self.raw = (run.path / "card.log").open("rb")
        self.disk = write_log.Disk(self.image, self.raw, run.sector, run.first, run.sectors)
        appliance.copy_disk(run.path / "data0.ext4", self.image)

    def snapshot(self, state: write_log.CrashState, copy: Path) -> None:
        """``copy`` holds the data partition as ``state`` leaves it."""
        if state.upto < self.at:  # an earlier state: start again from the first one
            appliance.copy_disk(self.run.path / "data0.ext4", self.image)
            self.at = 0
        self.disk.apply(self.run.log[self.at:state.upto])
        self.at = state.upto
        before = self.disk.apply(self.run.log[i] for i in state.kept)
        appliance.copy_disk(self.image, copy)
        self.disk.undo(before)

    def examine(self, state: write_log.CrashState) -> dict[str, Any]:
        """e2fsck as cut, after the ext4 journal's replay (as at boot) and, if that finds
        errors, repairing them; each game's journal read by the box's start-up code, and its
        saved game resumed."""
        copy, dump = self.scratch / "state.img", self.scratch / "dump"
        self.snapshot(state, copy)
        found: dict[str, Any] = {"state": [state.upto, list(state.kept), state.pending_end]}
        found["fsck_before"] = fsck(copy, "-fn")  # as cut: the ext4 journal not replayed
        fsck(copy, "-E", "journal_only", "-y")  # replayed, as mounting it at boot does
        found["fsck_replayed"] = fsck(copy, "-fn")
        found["fsck_after"] = fsck(copy, "-fy") if found["fsck_replayed"] else 0
        shutil.rmtree(dump, ignore_errors=True)
        dump.mkdir()
        subprocess.run(["debugfs", "-R", f"rdump /state {dump}", str(copy)], capture_output=True)
        found["journals"], found["mismatch"], found["notes"] = {}, {}, {}
        for name in self.run.meta["dirs"]:
            journal_dir = dump / "state" / name
            if (journal_dir / "journal.db").exists():
                games, note, mismatch = self.read_journal(journal_dir)
                found["journals"][name], found["notes"][name] = games, note
                found["mismatch"][name] = mismatch
        copy.unlink()
        return found


    def read_journal(self, journal_dir: Path) -> tuple[dict[int, list[Any]], str, bool]:
        """read_and_resume, or what it found in the same files lately (they are read before
        they are opened: opening writes to them)."""
        contents = hashlib.sha256()
        for file in sorted(f for f in journal_dir.iterdir() if f.is_file()):
            contents.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
        key = contents.hexdigest()
        if key in self.read:
            self.read.move_to_end(key)
        else:
            self.read[key] = read_and_resume(journal_dir)
            if len(self.read) > READ_KEPT:
                self.read.popitem(last=False)
        return self.read[key]


def fsck(image: Path, *options: str) -> int:
    """e2fsck's exit status: 0 clean, 1 or 2 repaired, 4 and up errors left or no check."""
    return subprocess.run(["e2fsck", *options, str(image)], capture_output=True).returncode


def read_and_resume(journal_dir: Path) -> tuple[dict[int, list[Any]], str, bool]:
    """The games the box's start-up code reads from the journal (and the note it shows), and
    whether the saved game, resumed as at power-up, differs from a replay of its actions."""
    from companion.journal.journal import Journal
    from companion.simulator.simbox import SimBox
    from companion.ui.journal_words import note_text

    journal, note = Journal.open(journal_dir, places=())
    games = {game_id: journal.load(game_id).actions for game_id, _, _ in journal.history(limit=1 << 20)}
    journal.close()
    box = SimBox(journal_dir, seed=1)
    try:
        if box.screen.name() == "ResumeScreen":
            box.press("OK")
        mismatch = reliability._resume_report(box.app, None)["mismatch"]
    finally:
        box.close()
    return games, note_text(note) if note else "", mismatch


_worker: Rebuilder | None = None


def _start_worker(path: Path, scratch: Path) -> None:
    global _worker
    _worker = Rebuilder(Run(path), Path(tempfile.mkdtemp(dir=scratch)))


def _examine(states: list[write_log.CrashState]) -> list[dict[str, Any]]:
    assert _worker is not None
    return [_worker.examine(state) for state in states]


def check(path: Path, seed: int, between: int, workers: int = 2) -> dict[str, Any]:
    """Every state of a recorded run, checked on ``workers`` processes."""
    began = time.monotonic()
    run = Run(path)
    states = run.states(seed, between)
    chunks = [states[at:at + 8] for at in range(0, len(states), 8)]
    figures: dict[str, Any] = {
        "flush_points": sum(entry.flush for entry in run.log), "states_checked": 0,
        "states_between_flushes": 0, "acknowledged_lost": 0, "never_acknowledged_half_written": 0,
        "resume_mismatches": 0, "fsck_unrecoverable": 0, "fsck_errors_after_replay": 0,
        "fsck_errors_before_replay": 0}
    notes: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    appliance.log(f"crash states: {len(states)} states of {len(run.log)} log entries, seed {seed}")
    with tempfile.TemporaryDirectory(prefix="crash-states-", dir=path) as scratch, \
            multiprocessing.get_context("spawn").Pool(
                workers, _start_worker, (path, Path(scratch))) as pool:
        for found in (f for chunk in pool.imap(_examine, chunks) for f in chunk):
            tally(run, found, figures, notes, failures)
            if figures["states_checked"] % 25 == 0:
                appliance.log(f"crash states: {figures['states_checked']} of {len(states)} checked "
                              f"({time.monotonic() - began:.0f} s)")
    figures["resume_notes"] = dict(notes)
    figures["failures"] = failures[:10]
    figures["check_s"] = round(time.monotonic() - began, 1)
    return figures


def tally(run: Run, found: dict[str, Any], figures: dict[str, Any], notes: Counter[str],
          failures: list[dict[str, Any]]) -> None:
    """Count one examined state into the figures (its failures kept to be reported)."""
    state = write_log.CrashState(found["state"][0], tuple(found["state"][1]), found["state"][2])
    figures["states_checked"] += 1
    figures["states_between_flushes"] += state.between_flushes
    figures["fsck_errors_before_replay"] += found["fsck_before"] != 0
    figures["fsck_errors_after_replay"] += found["fsck_replayed"] != 0
    unrecoverable = found["fsck_after"] >= 4
    figures["fsck_unrecoverable"] += unrecoverable
    journals = {name: {int(g): a for g, a in games.items()} for name, games in found["journals"].items()}
    verdicts = run.judge(state, journals)
    for name, said in verdicts.items():
        if said != crash_check.OK:
            figures[said] += 1
        if found["mismatch"].get(name):
            figures["resume_mismatches"] += 1
        notes.update([found["notes"][name]] if found["notes"].get(name) else [])
        if said != crash_check.OK or found["mismatch"].get(name) or unrecoverable:
            failures.append({"state": found["state"], "journal": name, "verdict": said,
                             "resume_mismatch": found["mismatch"].get(name, False),
                             "fsck_after": found["fsck_after"]})
            appliance.log(f"crash states: {json.dumps(failures[-1])}")  # as soon as found


# ----- the whole run ------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short games and fewer states (CI)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=int, help="the games' presses and the sample (default 38; "
                        "with --recheck the run's own)")
    parser.add_argument("--run", type=Path, default=appliance.CACHE / "crash-states",
                        help="where the run's log and acknowledgements are kept (emptied first)")
    parser.add_argument("--recheck", type=Path, metavar="DIR",
                        help="check the states of a kept run again, without QEMU")
    parser.add_argument("--image-dir", type=Path, default=appliance.CACHE / "bench")
    parser.add_argument("--no-build", action="store_true", help="boot the test image built last")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    began = time.monotonic()
    figures: dict[str, Any] = {"benchmark": "crash_states", "quick": args.quick}
    if args.recheck:
        path = args.recheck
        missing = [name for name in RUN_FILES if not (path / name).is_file()]
        if missing:
            parser.error(f"{path} holds no kept run (no {', '.join(missing)})")
        seed = args.seed if args.seed is not None else json.loads((path / "run.json").read_text())["seed"]
    else:
        path, seed = args.run, 38 if args.seed is None else args.seed
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        appliance.CONSOLES.mkdir(parents=True, exist_ok=True)
        try:
            if not args.no_build:
                figures["image_build_s"] = round(appliance.build_image(args.image_dir), 1)
            figures.update(record(path, args.image_dir / "test", sizes["acks"], seed))
        except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
            figures["record_error"] = repr(exc)[:400]  # no states to check: said, not a traceback
    if "record_error" not in figures:
        try:
            figures.update(check(path, seed, sizes["between"], workers=min(2, os.cpu_count() or 1)))
        except write_log.LogError as exc:
            parser.error(f"{path / 'card.log'}: {exc}")
    figures["seconds"] = round(time.monotonic() - began, 1)
    figures["seed"] = seed
    figures["missed"] = ["record"] if "record_error" in figures else [
        key for key in ZERO_AIMS if figures[key]]
    reliability.print_figures(figures, args.json)
    return 1 if figures["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
