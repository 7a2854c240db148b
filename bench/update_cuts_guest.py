"""The power cut while the emulated box updates itself, and its updater killed there.

Called by bench/appliance.py's update check, on a box that has played (a saved Makan Mania
game, its last acknowledged action known). The good release is handed over as the box takes
it (renamed into the spool, where companion-update.path starts companion-update.service, which
runs the real updater), and the updater's own messages are followed in the guest's journal.

QEMU is SIGKILLed (the power cut) while pip builds the slot, then while the new version starts
on the journal's copy, and in the full run once more after it reported READY there and starts
again on the journal. A release the cut left in the spool is installed again at the next boot
(after the boot's check), so each cut lands in the install the previous one left, and the last
install, left to finish, is the update check's good update. In the full run the updater's unit
is first SIGKILLed after each of its messages in turn, each time in an update of its own: the
box plays on where the kill left it (on the trial's copy while the new version is tried), and
then the power is cut.

After each cut the same disk boots again. Once the boot's check has run, the box must be READY
on a version it had (the old one, or the new one once an install finished), the ``incoming-*``
folder and trial the cut left must be gone, the version kept for going back must still be
there, and the saved game must resume with every action it had acknowledged (``lost``), on a
journal owned by companion with mode 0640 in a schema the running version reads
(``owner_ok``).
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.appliance.slots import SET_ASIDE
from companion.appliance.spool import CUT_TRIES

GUEST_STATE = "/var/lib/companion"
SPOOL = f"{GUEST_STATE}/update-spool"
PREFIX = "/opt/companion"
NAME = "good"  # the handed-over file's name, which the spool's outcome line starts with
HANDED = "/var/tmp/handed.release"  # the release in the guest (a tmpfs: put again after a cut)
WATCH_PID = "/run/update-watch.pid"
WAIT_S = 1200  # an install under TCG on a busy host: minutes
DURING_BUILD = "during the build (pip running)"
# The updater's messages (companion/appliance/update.py), each the start of its line.
ON_COPY = "starting "  # "starting VERSION on a copy of the journal"
ON_JOURNAL = "it reported READY: stopping it"
STOPPING = "stopping the box"  # "stopping the box and copying the journal"
MESSAGES = ("checking", "signed by", "installing", STOPPING, ON_COPY, ON_JOURNAL,
            "it reported READY on the journal", "updated:")
# Each cut after the build's, by what it cuts: the message it follows.
SWITCH_CUTS = {"the new version starting on the journal's copy": ON_COPY,
               "the new version READY on the copy, stopped to start on the journal": ON_JOURNAL}
# The journal's schema against the one the running version reads, asked as companion: a
# release's code never runs as root (its .pth file would note it).
SCHEMA_PROBE = ("import sqlite3, sys; from companion.journal import schema; "
                "db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
                "print(db.execute('PRAGMA user_version').fetchone()[0] <= schema.VERSION)")
# How many actions the journal holds for a game, and the last ones (what a cut took, if any).
ACTIONS_PROBE = ("import sqlite3, sys; db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
                 "rows = db.execute('SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq', "
                 "(int(sys.argv[2]),)).fetchall(); print(len(rows), rows[-3:])")

Play = Callable[[Any, dict[str, Any] | None, int, str], dict[str, Any]]


def log(message: str) -> None:
    print(f"update cuts: {message}", file=sys.stderr, flush=True)


def hand_over(guest: Any, name: str) -> int:
    """The release at HANDED handed over as the box does once someone pressed OK: written
    beside the spool's files, then renamed in, where companion-update.path sees it."""
    return guest.sh(f"install -o companion -g companion -m 0640 {HANDED} {SPOOL}/{name}.partial"
                    f" && mv {SPOOL}/{name}.partial {SPOOL}/{name}.release")[0]


def set_aside_said(guest: Any) -> tuple[bool, str]:
    """Whether doctor in the box names the release whose install was cut off twice, with the
    cut install's messages; what doctor said."""
    said = guest.sh("companion doctor")[1]
    return ("was not installed: its install was cut off twice" in said
            and "the last update was cut off" in said), said


def hand_back(guest: Any) -> str:
    """The release set aside renamed back into the spool, as doctor says; the guest's clock
    just before (its install's messages follow it)."""
    return "@" + guest.sh(f"rm -f {SPOOL}/last.txt; date +%s; mv {SPOOL}/{NAME}.release{SET_ASIDE} "
                          f"{SPOOL}/{NAME}.release")[1].strip()


def version_at(guest: Any, link: str = "venv") -> str:
    """The version in the slot ``link`` names (venv: the running one; kept), "" if none."""
    return guest.sh(f"cat {PREFIX}/{link}/release.json")[1].partition('"version": "')[2] \
        .partition('"')[0]


def kills(quick: bool) -> int:
    """How many cuts and kills a run makes."""
    return 2 if quick else 3 + len(MESSAGES)


class Cuts:
    """The cuts and kills of one campaign, on one guest (booted again after each)."""

    def __init__(self, guest: Any, release: Path, play: Play, acked: dict[str, Any] | None,
                 new_version: str) -> None:
        self.guest, self.release, self.play, self.acked = guest, release, play, acked
        self.new = new_version
        self.before = version_at(guest)
        self.kept = version_at(guest, "kept")
        self.results: list[dict[str, Any]] = []
        self.began = time.monotonic()
        self.since = ""
        self.set_aside_said: bool | None = None  # asked when the full run's third cut needs it

    def hand(self) -> None:
        """The release handed over; its messages followed from now on (the guest's clock)."""
        self.since = "@" + self.guest.sh(f"rm -f {SPOOL}/last.txt; date +%s")[1].strip()
        present = self.guest.sh(f"test -e {HANDED}")[0] == 0
        if not (present or self.guest.put(self.release, HANDED)) or hand_over(self.guest, NAME):
            raise RuntimeError("the release could not be handed over in the box")

    def follow(self, step: str) -> list[str]:
        """The updater's messages (this boot's, from the hand-over on) until the one starting
        with ``step``, or its outcome when it ended before that step."""
        said: list[str] = []
        for line in self.guest.stream(
                f"echo $$ > {WATCH_PID}; exec journalctl -b -f -o cat -u companion-update "
                f"--since {self.since}", timeout=WAIT_S):
            said.append(line.strip())
            log(f"  the updater: {said[-1]}")
            if line.startswith((step, f"{NAME}.release: ")):
                break
        self.guest.sh(f"kill $(cat {WATCH_PID}) 2>/dev/null")
        return said

    def cut(self, label: str) -> None:
        """QEMU killed at the step ``label`` names (DURING_BUILD or one of SWITCH_CUTS) of the
        install under way."""
        log(f"the power cut: {label}")
        building = label == DURING_BUILD
        step = "installing" if building else SWITCH_CUTS[label]
        said = self.follow(step)
        reached = said[-1:] != [] and said[-1].startswith(step)
        if building:  # pip runs as companion while the slot is built
            reached = reached and self.wait_for("pgrep -u companion -f 'm pip' >/dev/null", 300)
            time.sleep(3)
        elif step == ON_COPY:  # the new version is starting, not READY yet
            self.wait_for("[ $(systemctl is-active companion) = activating ]", 120)
        left = self.guest.sh(f"ls -d {PREFIX}/incoming-*")[1].split()
        game = (self.acked or {}).get("game", 0)
        log(f"  before the cut, acknowledged {(self.acked or {}).get('n')}: " + self.guest.sh(
            f"runuser -u companion -- {PREFIX}/venv/bin/python -c {shlex.quote(ACTIONS_PROBE)} "
            f"{GUEST_STATE}/journal.db {game}; ls -l {GUEST_STATE} {GUEST_STATE}/update-trial; "
            "journalctl -b -o cat -u companion | tail -6")[1])
        self.guest.kill()
        self.guest.boot_again()
        self.wait_for("systemctl -q is-active companion && ! systemctl -q is-active "
                      "companion-update-check", WAIT_S)
        self.check(label, said, reached, left, finished="")

    def kill(self, step: str) -> None:
        """companion-update.service SIGKILLed at ``step`` of an update of its own; the box
        plays on where the kill left it (on the trial's copy while it is tried), the power is
        cut, and the box is checked once a release left in the spool is installed again."""
        log(f"the updater killed after: {step}")
        self.back_to_before()
        self.hand()
        said = self.follow(step)
        reached = said[-1:] != [] and said[-1].startswith(step)
        self.guest.sh("systemctl kill -s KILL companion-update.service")
        # What it said before the kill took it: it may have gone past ``step`` (to "updated:")
        said = self.guest.sh(f"journalctl -b -o cat -u companion-update --since {self.since}"
                             )[1].splitlines() or said
        trial = self.guest.sh(f"cat {PREFIX}/trial.json")[1]
        where = f"{GUEST_STATE}/update-trial" if '"phase": "trial"' in trial else GUEST_STATE
        self.acked = self.play(self.guest, self.acked, 20, where)["acked"]
        left = self.guest.sh(f"ls -d {PREFIX}/incoming-*")[1].split()
        self.guest.kill()
        self.guest.boot_again()
        self.check(f"killed after: {step}", said, reached, left, finished=self.installed())

    def wait_for(self, condition: str, seconds: float) -> bool:
        """Whether the guest's shell ``condition`` held within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.guest.sh(condition)[0] == 0:
                return True
            time.sleep(1)
        return False

    def installed(self) -> str:
        """Once the box has settled (the spool empty, the updater done, the box up): the
        outcome of the install, as last.txt says it ("" when it has none)."""
        self.wait_for(f"! ls {SPOOL}/*.release && systemctl -q is-active companion-update.path"
                      " && ! systemctl -q is-active companion-update companion-update-check"
                      " && systemctl -q is-active companion", WAIT_S)
        return self.guest.sh(f"cat {SPOOL}/last.txt")[1].strip()

    def check(self, step: str, said: list[str], reached: bool, left: list[str],
              finished: str) -> None:
        """After the boot: the box, what the cut left, and the saved game resumed; ``finished``
        is the outcome of an install the boot took up again and let finish ("": none)."""
        guest = self.guest
        version, kept = version_at(guest), version_at(guest, "kept")
        # The new version runs once an install finished: one the boot took up again, or the
        # updater's own before its kill
        new_runs = f"running {self.new}" in finished or any(
            line.startswith("updated:") for line in said)
        gone = " ".join(shlex.quote(path) for path in [*left, f"{PREFIX}/trial.json"])
        _, out, _ = guest.sh(
            f"systemctl is-active companion; ls -d {gone} 2>/dev/null | wc -l; "
            f"stat -c '%U:%G:%a' {GUEST_STATE}/journal.db; runuser -u companion -- "
            f"{PREFIX}/venv/bin/python -c {shlex.quote(SCHEMA_PROBE)} {GUEST_STATE}/journal.db")
        ready, still, owner, schema_known = (out.split() + [""] * 4)[:4]
        game = (self.acked or {}).get("game", 0)
        held = guest.sh(f"runuser -u companion -- {PREFIX}/venv/bin/python -c "
                        f"{shlex.quote(ACTIONS_PROBE)} {GUEST_STATE}/journal.db {game}; "
                        f"ls {GUEST_STATE}; journalctl -b -o cat -u companion | tail -4")[1]
        log(f"  acknowledged {(self.acked or {}).get('n')} of game {game}; the box: {held!r}")
        began = guest.sh("date +%s")[1].strip()
        run = self.play(guest, self.acked, 20, GUEST_STATE)
        # The play stands for the box, which the updater stops before it copies the journal: a
        # play still writing then is not in the trial's copy, which a rollback carries back.
        if guest.sh(f"journalctl -u companion-update --since @{began} -o cat | "
                    f"grep -q '^{STOPPING}'")[0] == 0:
            log("  the play was stopped with the box by the updater" if run["stopped_with_box"]
                else "  the play overlapped the updater's stop and copy of the journal")
        start = run["start"] or {"lost": 1, "mismatch": True}  # None: the game did not start
        self.acked = run["acked"]
        box_ok = reached and ready == "active" and still == "0" and not start["mismatch"] \
            and version == (self.new if new_runs else self.before)
        result = {"step": step, "lost": start["lost"],
                  "owner_ok": owner == "companion:companion:640" and schema_known == "True",
                  "running": version, "box_ok": box_ok,
                  # the version kept before, or the old one (or the new one, installed
                  # twice) once the new one runs
                  "kept_ok": kept in ({self.before, self.new} if new_runs else {self.kept})}
        log(f"{result} (journal {owner}, {still} of what the cut left, {run.get('resumed')})")
        if not box_ok or start["lost"]:
            result["said"] = said[-3:]
        self.results.append(result)

    def back_to_before(self) -> None:
        """The box on the version it ran at the start, by hand, after an install finished."""
        if version_at(self.guest) != self.before:
            said = self.guest.sh("/usr/local/sbin/companion-update --rollback", timeout=900)
            log(f"back to {self.before} by hand: {said[1:]}")
        self.kept = version_at(self.guest, "kept")

    def run(self, quick: bool, cut: bool) -> tuple[dict[str, Any], str]:
        """The figures (none without ``cut``), and the outcome of the install the cuts left
        to finish."""
        if cut and not quick:
            for step in MESSAGES:
                self.kill(step)
            self.back_to_before()
        self.hand()
        for number, label in enumerate([DURING_BUILD, *SWITCH_CUTS][:(2 if quick else 3) if cut else 0]):
            if number == CUT_TRIES:  # the updater set the release aside at the boot before
                self.set_aside_said, said = set_aside_said(self.guest)
                log(f"set aside after {CUT_TRIES} cuts, doctor says so: {self.set_aside_said}"
                    + ("" if self.set_aside_said else f" ({said[-400:]!r})") + "; handed back")
                self.since = hand_back(self.guest)
            self.cut(label)
        outcome = self.installed()
        if not cut:  # no cut made: no figure of one (an empty list would pass every aim)
            return {}, outcome
        told = {} if self.set_aside_said is None else {"update_set_aside_said": self.set_aside_said}
        return {**told, "update_kills": len(self.results),
                "plays_lost_by_update": sum(result["lost"] for result in self.results),
                "journal_owner_ok": all(result["owner_ok"] for result in self.results),
                "update_kills_box_ok": all(result["box_ok"] for result in self.results),
                "kept_version_ok": all(result["kept_ok"] for result in self.results),
                "update_cuts": self.results,
                "update_cuts_s": round(time.monotonic() - self.began, 1)}, outcome


def update_cuts(guest: Any, release: Path, play: Play, acked: dict[str, Any] | None,
                new_version: str, quick: bool,
                cut: bool = True) -> tuple[dict[str, Any], dict[str, Any] | None, str]:
    """The campaign's figures; what the saved game has acknowledged by its end; and the
    outcome of the good release's install, resumed after the last cut (without ``cut``: the
    install alone, uncut)."""
    cuts = Cuts(guest, release, play, acked, new_version)
    try:
        figures, outcome = cuts.run(quick, cut)
        return figures, cuts.acked, outcome
    finally:
        guest.sh(f"rm -f {HANDED}")
