"""The updater killed at each of its steps: no acknowledged play lost, the journal still the box's.

On this machine, no QEMU: a box in a temporary prefix (0.1.0 in slot a, built once, and a
version kept for going back in another slot) is updated to a release one schema migration
ahead (0.1.1, as tests/test_update.py makes it) by the real updater in a child process, with
systemctl stood in for (its box "starts" by migrating the
journal it runs on, as 0.1.1 does). The child pauses after each of its messages in turn (a
``say`` that never returns) and is SIGKILLed there, or is killed while pip builds the slot.
Then, as at the table: the box, if the kill left one running, goes on playing (new games
journaled on whichever journal it runs on: the trial's copy or the real one), the power is
cut, the next boot runs ``--boot-check``, and the box starts on the version ``venv`` points
at. After each kill: every play acknowledged before or after it must be in the journal that
box runs on (``plays_lost_by_update``, aim 0), owned by the box's user with mode 0640 and in
a schema that version reads (``journal_owner_ok``), and the version kept for going back must
be whole: its release.json and a ``bin/companion --version`` that runs and says it
(``kept_version_ok``; the update is built in a third slot, so not even a kill during the
build touches it; per kill ``boot_removed``: what the boot's check removed). Also the peak
memory of an uninterrupted update, pip included (``update_peak_rss_mb``).

    python bench/update_kills.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.appliance import release, signing, slots, update  # noqa: E402
from companion.journal import schema  # noqa: E402
from companion.journal.journal import Journal  # noqa: E402
from tests.test_update import checkout_at, dependency_wheels  # noqa: E402

MACHINE = os.uname().machine
BOX_USER = "nobody"  # stands in for companion: the journal is not root's
DURING_BUILD = "during the build"
GAMES_BEFORE = 5
BOX_STATE = "box.json"  # the stand-in service notes which journal its box runs on


class StandInService:
    """companion.service for the child updater: ``start`` is the new version's start (it
    migrates the journal it runs on, as 0.1.1 does) or the old one's; it notes where its box
    plays, for the parent."""

    def __init__(self, layout: slots.Layout, state: Path) -> None:
        self.layout, self.state = layout, state

    def start(self) -> bool:
        trial = slots.read_trial(self.layout) or {}
        on = self.state / slots.TRIAL_DIR if trial.get("phase") == "trial" else self.state
        version = self.layout.version(self.layout.running())
        if version == "0.1.1":
            with sqlite3.connect(on / slots.JOURNAL_NAME) as conn:
                if conn.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION:
                    conn.execute("CREATE TABLE update_probe (x INTEGER)")
                    conn.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
        slots.write_json(self.layout.prefix / BOX_STATE, {"on": str(on)})
        return True

    def stop(self) -> None:
        (self.layout.prefix / BOX_STATE).unlink(missing_ok=True)


def child(prefix: Path, state: Path, release_file: Path, keys: Path, pause_after: int) -> None:
    """The updater, pausing for ever after its message number ``pause_after`` (0: never)."""
    layout = slots.Layout(prefix)
    said = 0

    def say(line: str) -> None:
        nonlocal said
        said += 1
        print(line, flush=True)
        if said == pause_after:
            time.sleep(3600)

    update.install(release_file, state, layout=layout, service=StandInService(layout, state),
                   python=sys._base_executable, system_site_packages=False,
                   keys=signing.trusted_keys(keys), build_user=None, say=say)
    peak_kb = max(resource.getrusage(who).ru_maxrss
                  for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(json.dumps({"peak_rss_mb": round(peak_kb / 1024, 1)}), flush=True)


class Campaign:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.layout = slots.Layout(work / "opt")
        self.state = work / "state"
        self.box_user = pwd.getpwnam(BOX_USER)
        self.keys = work / "keys"
        private, _ = signing.make_key(self.keys, "bench")
        deps = dependency_wheels()
        self.releases: dict[str, Path] = {}
        for version, migration in (("0.1.0", False), ("0.1.1", True)):
            source = checkout_at(version, work / f"src-{version}", migration=migration)
            wheels = work / f"wheels-{version}"
            shutil.copytree(deps, wheels)
            release.project_wheel(wheels, source)
            self.releases[version] = release.build_release(work / "out", MACHINE, source,
                                                           wheels=wheels, key=private)
        private.unlink()
        for slot in ("a", "b"):  # the version running, and one kept
            self.build("0.1.0", slot)
        self.next_game = 1

    def build(self, version: str, slot: str) -> None:
        with tempfile.TemporaryDirectory(dir=self.work) as scratch:
            release.read_release(self.releases[version], Path(scratch), signing.trusted_keys(self.keys),
                                 release.Expect(MACHINE))
            update.build_slot(self.layout.slot(slot), Path(scratch) / "wheels",
                              Path(scratch) / release.LOCK_NAME, sys._base_executable,
                              system_site_packages=False, user=None)
            shutil.copy(Path(scratch) / "release.json", self.layout.slot(slot) / "release.json")

    def reset(self) -> set[tuple]:
        """0.1.0 running in slot a, a version kept (the one an update left in b or c, else
        0.1.0 built again in b), a journal of the box's user with games played."""
        for stale in (self.layout.trial, self.layout.prefix / BOX_STATE):
            stale.unlink(missing_ok=True)
        for leftover in self.layout.prefix.glob("incoming-*"):
            shutil.rmtree(leftover)
        whole = [slot for slot in ("b", "c") if self.layout.version(slot)]
        for slot in ("b", "c"):
            if slot not in whole[:1]:
                shutil.rmtree(self.layout.slot(slot), ignore_errors=True)
        if not whole:
            self.build("0.1.0", "b")
        self.layout.point("a")
        self.layout.point("a", "safe")
        self.layout.point(whole[0] if whole else "b", "kept")
        shutil.rmtree(self.state, ignore_errors=True)
        journal, _ = Journal.open(self.state)
        journal.close()
        self.next_game = 1
        acked = self.play(self.state / slots.JOURNAL_NAME, GAMES_BEFORE)
        for path in (self.state, *self.state.iterdir()):
            os.chown(path, self.box_user.pw_uid, self.box_user.pw_gid)
            os.chmod(path, 0o750 if path.is_dir() else 0o640)
        slots.write_json(self.layout.prefix / BOX_STATE, {"on": str(self.state)})  # 0.1.0 plays
        return acked

    def play(self, journal: Path, games: int) -> set[tuple]:
        """``games`` games journaled as the box does, each a setup and two rolls: what is
        acknowledged (committed) is returned."""
        acked = set()
        with contextlib.closing(sqlite3.connect(journal)) as conn, conn:
            for _ in range(games):
                game = self.next_game
                self.next_game += 1
                conn.execute("INSERT INTO games (id, game, started_at) VALUES (?, 'makan', ?)",
                             (game, time.time()))
                for seq, action in enumerate(({"type": "setup", "players": 2},
                                              {"type": "roll", "dice": [game % 6 + 1]},
                                              {"type": "bank"}), 1):
                    text = json.dumps(action)
                    conn.execute("INSERT INTO actions (game_id, seq, action, undoable) "
                                 "VALUES (?, ?, ?, 1)", (game, seq, text))
                    acked.add((game, seq, text))
        return acked

    def kill_at(self, point: int | str) -> dict[str, Any]:
        """One update killed at ``point`` (the message after which it pauses, or during the
        build); the box plays on, the power is cut, the next boot goes back if it must."""
        acked = self.reset()
        pause = 0 if point == DURING_BUILD else int(point)
        process = subprocess.Popen(
            [sys.executable, __file__, "--child", str(self.layout.prefix), str(self.state),
             str(self.releases["0.1.1"]), str(self.keys), str(pause)],
            stdout=subprocess.PIPE, text=True, start_new_session=True)
        assert process.stdout is not None
        said = []
        for line in process.stdout:
            said.append(line.strip())
            if point == DURING_BUILD and line.startswith("installing"):
                time.sleep(3)  # pip is building the slot
                break
            if len(said) == pause:
                break
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        box = self.layout.prefix / BOX_STATE
        if box.exists():  # the box the killed updater started goes on playing
            on = Path(json.loads(box.read_text())["on"])
            acked |= self.play(on / slots.JOURNAL_NAME, 2)
        at_boot: list[str] = []
        update.boot_check(layout=self.layout, say=at_boot.append)  # the power cut, a boot
        journal = self.state / slots.JOURNAL_NAME
        with contextlib.closing(sqlite3.connect(f"{journal.as_uri()}?mode=ro", uri=True)) as conn:
            kept = set(conn.execute("SELECT game_id, seq, action FROM actions").fetchall())
            running = self.layout.version(self.layout.running())
            known = conn.execute("PRAGMA user_version").fetchone()[0] <= (
                schema.VERSION + 1 if running == "0.1.1" else schema.VERSION)
        info = journal.stat()
        return {"step": point if point == DURING_BUILD else said[-1], "lost": len(acked - kept),
                "owner_ok": known and (info.st_uid, info.st_gid, info.st_mode & 0o777) == (
                    self.box_user.pw_uid, self.box_user.pw_gid, 0o640),
                "running": running, "kept": self.kept_version(), "kept_ok": self.kept_ok(),
                "boot_removed": [line.split(",")[0].removeprefix("removed ")
                                 for line in at_boot if line.startswith("removed ")]}

    def kept_version(self) -> str | None:
        kept = self.layout.kept()
        return self.layout.version(kept) if kept else None

    def kept_ok(self) -> bool:
        """The kept version is whole: its release.json, and its program runs and says it."""
        kept = self.layout.kept()
        if kept is None or kept == self.layout.running() or self.kept_version() is None:
            return False
        said = subprocess.run([str(self.layout.slot(kept) / "bin" / "companion"), "--version"],
                              capture_output=True, text=True, check=False)
        return said.returncode == 0 and said.stdout.strip() == f"companion {self.kept_version()}"

    def peak_rss_mb(self) -> float:
        """An uninterrupted update's largest process (the updater or pip), in MB."""
        self.reset()
        said = subprocess.run([sys.executable, __file__, "--child", str(self.layout.prefix),
                               str(self.state), str(self.releases["0.1.1"]), str(self.keys), "0"],
                              check=True, capture_output=True, text=True).stdout
        return float(json.loads(said.splitlines()[-1])["peak_rss_mb"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="each kind of kill once: during the build, on trial, on the journal")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        prefix, state, release_file, keys, pause = args.child
        child(Path(prefix), Path(state), Path(release_file), Path(keys), int(pause))
        return 0
    from reliability import print_figures

    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="update-kills-") as tmp:
        campaign = Campaign(Path(tmp))
        # After each of the updater's messages: checking, signed by, installing, stopping and
        # copying, starting on the copy, starting on the journal, keeping it, updated.
        points: list[int | str] = [DURING_BUILD, 6, 7] if args.quick else [
            1, 2, 3, DURING_BUILD, 4, 5, 6, 7, 8]
        kills = [campaign.kill_at(point) for point in points]
        figures: dict[str, Any] = {
            "benchmark": "update_kills", "quick": args.quick, "update_kills": len(kills),
            "plays_lost_by_update": sum(kill["lost"] for kill in kills),
            "journal_owner_ok": all(kill["owner_ok"] for kill in kills),
            "kept_version_ok": all(kill["kept_ok"] for kill in kills),
            "update_peak_rss_mb": campaign.peak_rss_mb(), "kills": kills,
            "seconds": round(time.monotonic() - began, 1)}
    print_figures(figures, args.json)
    return 0 if figures["plays_lost_by_update"] == 0 and figures["journal_owner_ok"] \
        and figures["kept_version_ok"] else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "bench"))
    sys.exit(main())
