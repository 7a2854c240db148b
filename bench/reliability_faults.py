"""The reliability campaign's second round (issue 27): the Café undo followed by a power cut, a
real filesystem turning read-only under the box, the journal replaced under a running box,
input that never ends, and the old sensor protocol passed off as the new one.

``bench/reliability.py`` runs these with its own cases and prints their figures:
``undo_cut_time_given_back_s_max`` (≤ the README's bound), ``failed_disk_actions_lost`` (0)
with ``failed_disk_told`` (true), ``replaced_journal_acks`` (0), ``endless_input_rss_mb_max``
(< 100) with ``endless_input_tracebacks`` (0), ``v1_downgrade_accepted`` (0). The damaged WAL
kept (``damaged_wal_kept``) is checked in reliability.py's own damage cases.

The failed disk is an ext4 image on a loop device mounted with ``errors=remount-ro``, and a
forced error (``/sys/fs/ext4/<dev>/trigger_fs_error``) turns it read-only under the open
journal, as a failing SD card does. That needs root and a loop device: without them the case is
reported as not run (``failed_disk_fs``), and under ``CI=true`` that fails the run.
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENDLESS_CAP_BYTES = 1 << 30  # address space of each endless-input run (threads reserve a lot)


# ----- in the box process --------------------------------------------------------------------
def spare_at(where: str) -> None:
    """Journals of this process write their spare to ``where``, called a USB stick (it is
    another filesystem than the journal's, as a stick is)."""
    from companion.journal import journal
    from companion.journal.spare import Place

    journal.default_places = lambda: [Place(Path(where), "USB stick")]


def undo_then_cut(box: Any, rng: random.Random, say: Any, time_left: Any) -> None:
    """Start a Café round, take an undoable step, let the clock run (readings are journaled),
    undo, and cut the power the moment the undo is journaled, before the loop runs again."""
    from companion.games.catalog import GAMES

    app = box.app
    app.table.push(GAMES["cafe"].screens.new_game(app.table))
    box.press("OK")  # Start (box dice)
    box.press("OK")  # start the round
    box.advance(rng.uniform(1, 30), step=0.5)
    if rng.random() < 0.5:
        box.press("OK")  # pause: undoing it restores the deadline, the time ran on
    else:
        box.press("DOWN")
        box.press("OK")  # die 1 on an order
        box.press("BACK")
    box.advance(rng.uniform(5, 60), step=0.5)
    real = app.table.undo

    def undo_and_cut() -> bool:
        done = real()
        say(undone=done, left=time_left(app))
        os.kill(os.getpid(), signal.SIGKILL)  # the power goes
        return done

    app.table.undo = undo_and_cut
    box.press("BACK", long=True)


def replace_own_journal(app: Any, how: str) -> None:
    """Another hand replaces the journal under the running box: a copy renamed over it (a
    restore), or the file deleted."""
    path = Path(app.play.journal.path)
    if how == "delete":
        path.unlink()
        return
    copy = path.with_name("restored.db")
    shutil.copyfile(path, copy)
    os.replace(copy, path)


# ----- the campaign --------------------------------------------------------------------------
def loop_devices_work() -> str | None:
    """None when an ext4 image can be loop-mounted here, else why not."""
    if os.geteuid() != 0:
        return "needs root"
    if not Path("/dev/loop-control").exists():
        return "no loop device"
    for tool in ("mkfs.ext4", "mount", "umount", "e2fsck"):
        if shutil.which(tool) is None:
            return f"no {tool}"
    return None


class Ext4Image:
    """A small ext4 filesystem in a file, loop-mounted with errors=remount-ro."""

    def __init__(self, work: Path) -> None:
        self.image, self.mount = work / "card.img", work / "card"
        self.mount.mkdir()
        with open(self.image, "wb") as f:
            f.truncate(32 << 20)
        subprocess.run(["mkfs.ext4", "-q", "-F", str(self.image)], check=True)
        self.attach()

    def attach(self) -> None:
        subprocess.run(["mount", "-o", "loop,errors=remount-ro", str(self.image),
                        str(self.mount)], check=True)

    def fail(self) -> None:
        """A forced filesystem error: ext4 turns itself read-only (emergency_ro)."""
        source = subprocess.run(["findmnt", "-n", "-o", "SOURCE", str(self.mount)],
                                capture_output=True, text=True, check=True).stdout.strip()
        Path(f"/sys/fs/ext4/{Path(source).name}/trigger_fs_error").write_text("1")

    def read_only(self) -> bool:
        options = subprocess.run(["findmnt", "-n", "-o", "OPTIONS", str(self.mount)],
                                 capture_output=True, text=True).stdout
        return options.startswith("ro") or "emergency_ro" in options

    def repair(self) -> None:
        """The card taken out and checked: unmounted, fsck'd, mounted again writable."""
        subprocess.run(["umount", str(self.mount)], check=True)
        subprocess.run(["e2fsck", "-fy", str(self.image)], capture_output=True)
        self.attach()

    def close(self) -> None:
        subprocess.run(["umount", str(self.mount)], capture_output=True)


def failed_disk(campaign: Any, run_cls: Any) -> dict[str, Any]:
    """Makan Mania on a real ext4 card that turns read-only mid-game; the box goes on, holds
    play on the spare (a directory on another filesystem, the "USB stick"), says so; the power
    is cut; the card is repaired; the next start merges the spare: acknowledged actions lost."""
    why = loop_devices_work()
    if why is not None:
        return {"failed_disk_fs": f"not run ({why})"}
    work = Path(tempfile.mkdtemp(prefix="card-", dir=campaign.work))
    card = Ext4Image(work)
    try:
        state, stick = card.mount / "state", work / "stick"
        mode = f"faildisk:{stick}"
        run = run_cls("makan", state, campaign.rng.randrange(1 << 30), None, mode=mode)
        run.play(campaign.rng.randint(15, 30), campaign.rng, kill=False)
        card.fail()
        turned = card.read_only()
        run.play(campaign.rng.randint(30, 50), campaign.rng)  # played on, then the power goes
        card.repair()
        again = run_cls("makan", state, 5, run.acked, mode=mode)
        again.kill()
        start = again.start or {"start": {"lost": run.acked["n"] if run.acked else 1}}
        return {"failed_disk_fs": "ext4 on a loop device, errors=remount-ro, trigger_fs_error",
                "failed_disk_turned_read_only": turned,
                "failed_disk_actions_lost": start["start"]["lost"],
                "failed_disk_told": bool(run.told) and "play on USB stick" in run.told,
                "failed_disk_said": run.told, "failed_disk_next_start": start.get("note", "")}
    finally:
        card.close()


def undo_cuts(campaign: Any, run_cls: Any, cuts: int) -> float:
    """The Café undo followed at once by a power cut: the largest time given back (s)."""
    worst = 0.0
    for n in range(cuts):
        state = campaign.work / f"undo-cut-{n}"
        run = run_cls("cafe", state, campaign.rng.randrange(1 << 30), None, mode="undo_cut")
        run.wait()
        again = run_cls("cafe", state, 6, None)
        again.kill()
        resumed = (again.start or {}).get("left")
        if run.undone_left is None or resumed is None:
            return float("inf")  # the case did not play out: no figure is no pass
        worst = max(worst, resumed - run.undone_left)
    return round(worst, 3)


def replaced_journal(campaign: Any, run_cls: Any) -> float:
    """A journal renamed over, or deleted, under the running box: presses acknowledged as
    saved afterwards (each should be held, as for a failed disk)."""
    acks = 0
    for how in ("replace", "delete"):
        state = campaign.work / f"replaced-{how}"
        run = run_cls("makan", state, campaign.rng.randrange(1 << 30), None, mode=how)
        run.play(campaign.rng.randint(60, 90), campaign.rng)
        if not run.replaced:
            return float("inf")  # the journal was never replaced: no figure is no pass
        acks += run.acked_after_replace
    return acks


def endless_inputs(work: Path) -> dict[str, Any]:
    """Each reader given input that never ends, in its own process under a memory cap: the
    largest resident size and how many runs printed a traceback (or did not end in one line)."""
    config = work / "zero-data.toml"
    config.write_text('[games.makan]\ntrays = "/dev/zero"\n')
    cases: list[tuple[list[str], str | None, bytes | None]] = [
        (["replay", "makan", "/dev/zero"], None, None),
        (["replay", "cafe", "-"], "/dev/zero", None),
        (["replay", "cafe", "-"], None, b"# more\n"),
        (["history", "import", "--game", "makan", "/dev/zero", "--state-dir", str(work / "imp")],
         None, None),
        (["doctor", "--config", "/dev/zero"], None, None),
        (["doctor", "--config", str(config)], None, None),
        (["sensor-sim", "--script", "/dev/zero"], None, None),
    ]
    worst, tracebacks = 0.0, 0
    for args, stdin_path, feed in cases:
        rss_mb, said = _run_capped(args, stdin_path, feed)
        worst = max(worst, rss_mb)
        named = "-" if feed or stdin_path else "/dev/zero"  # the one line names what was read
        tracebacks += "Traceback" in said or "MemoryError" in said or named not in said
    return {"endless_input_runs": len(cases), "endless_input_rss_mb_max": round(worst, 1),
            "endless_input_tracebacks": tracebacks}


def _run_capped(args: list[str], stdin_path: str | None, feed: bytes | None) -> tuple[float, str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ENDLESS_CAP_BYTES, ENDLESS_CAP_BYTES))

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(tempfile.TemporaryFile())
        stdin: Any = subprocess.PIPE if feed else (
            stack.enter_context(open(stdin_path, "rb")) if stdin_path else subprocess.DEVNULL)
        proc = subprocess.Popen([sys.executable, "-m", "companion", *args], cwd=ROOT,
                                stdin=stdin, stdout=out, stderr=out, preexec_fn=cap)
        if feed:
            def pour() -> None:
                with contextlib.suppress(OSError, ValueError):
                    while True:
                        proc.stdin.write(feed * 4096)

            threading.Thread(target=pour, daemon=True).start()
        deadline = time.monotonic() + 60
        while (done := os.wait4(proc.pid, os.WNOHANG))[0] == 0:
            if time.monotonic() > deadline:
                proc.kill()
                done = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(done[1])
        out.seek(0)
        said = out.read().decode(errors="replace")
    return done[2].ru_maxrss / 1024, said  # ru_maxrss is in KiB on Linux


def v1_downgrades() -> dict[str, Any]:
    """v1 (XOR) lines where the box must refuse them: without ``[sensor] protocol = 1``, before
    a v1 HELLO, after a v2 sensor spoke, and every 2-bit flip of v1 lines that passes the XOR
    (the issue's ``$DS,4,FACE,0,ennut,300*69``). Frames accepted from them (aim 0); and an old
    sensor is still read when allowed (``v1_sensor_read``)."""
    from firmware_bridge.firmware.dicecore import frame
    from firmware_bridge.parser import Parser

    cafe = ("yellow", "yellow", "blue", "blue")
    v1_hello = frame(0, "HELLO", (1, "1.0.0", "OLD", 4, *cafe), 1)
    v2_hello = frame(0, "HELLO", (2, "2.0.0", "NEW", 4, *cafe))
    v1_lines = [frame(n, "FACE", (n % 4, "pizza" if n % 4 < 2 else "cola", 300 + n), 1)
                for n in range(1, 40)] + [b"$DS,4,FACE,0,ennut,300*69\r\n"]
    flipped = []
    for line in v1_lines[:6]:
        body = bytearray(line)
        for a in range(8, 8 * (len(body) - 5)):
            for b in range(a + 8, min(a + 8 * 6, 8 * (len(body) - 5)), 8):  # same bit, two bytes
                twice = bytearray(body)
                twice[a // 8] ^= 1 << a % 8
                twice[b // 8] ^= 1 << b % 8
                flipped.append(bytes(twice))
    accepted = 0
    streams = [(Parser(), v1_hello + b"".join(v1_lines + flipped)),  # v1 not allowed
               (Parser(accept_v1=True), b"".join(v1_lines + flipped)),  # no v1 HELLO yet
               (Parser(accept_v1=True), v2_hello + v1_hello + b"".join(v1_lines + flipped))]
    for parser, stream in streams:
        frames = parser.feed(stream)
        accepted += len(frames) - (1 if stream.startswith(v2_hello) else 0)
    old = Parser(accept_v1=True)
    read = len(old.feed(v1_hello + b"".join(v1_lines[:-1]))) == len(v1_lines)
    return {"v1_downgrade_lines": sum(stream.count(b"\n") for _, stream in streams),
            "v1_downgrade_accepted": accepted, "v1_sensor_read": read}
