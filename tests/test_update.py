"""Updates with real venvs in a temporary prefix: a good release, a broken one, a cut-off trial.

The box runs as `companion run --sim` from the slot's own venv (without this machine's site
packages, so only the release's wheels count) and says READY=1 on a real notify socket, as it
does to systemd; only systemctl is stood in for (the emulated box in
bench/appliance.py runs the real unit). Each release is built by `build_release` from a
copy of this checkout at another version: 0.1.1 adds a schema migration (to show that it
runs only once the new version is healthy), 0.1.2 crashes at start.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pytest

from companion.appliance import release, signing, slotbuild, slots, update
from companion.journal.journal import Journal
from tests.bookworm_root import cache_dir

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
MACHINE = os.uname().machine
READY_TIMEOUT_S = 60
# Generous: a box that stops cleanly takes a second, but a loaded machine can stall it.
STOP_TIMEOUT_S = 120


def dependency_wheels() -> Path:
    """The locked dependencies for this machine, downloaded once per lock (network)."""
    key = hashlib.sha256((REPO / release.LOCK_NAME).read_bytes()).hexdigest()[:12]
    wheels = cache_dir() / f"wheels-{MACHINE}-{key}"
    if not wheels.exists():
        partial = wheels.with_name(wheels.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        release.download_locked(partial, MACHINE, REPO, source_only=False)
        partial.rename(wheels)
    return wheels


def checkout_at(version: str, into: Path, *, migration: bool = False, broken: bool = False) -> Path:
    """A copy of the checkout that says ``version``; its journal one migration ahead, or its
    box crashing at start."""
    for name in ("companion", "hardware", "firmware_bridge"):
        shutil.copytree(REPO / name, into / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", release.LOCK_NAME):
        shutil.copy(REPO / name, into / name)
    for path, old, new in (
        ("pyproject.toml", 'version = "0.1.0"', f'version = "{version}"'),
        ("companion/__init__.py", '__version__ = "0.1.0"', f'__version__ = "{version}"'),
    ):
        text = (into / path).read_text()
        assert old in text
        (into / path).write_text(text.replace(old, new))
    if migration:
        schema = into / "companion/journal/schema.py"
        text = schema.read_text()
        marker = "\n)\n\n# The tables that hold a game's summary"
        assert marker in text
        schema.write_text(text.replace(marker, '\n    ("CREATE TABLE update_probe (x INTEGER)",),'
                                       + marker))
    if broken:
        run = into / "companion/commands/run.py"
        text = run.read_text()
        run.write_text(text.replace("def handle(args: argparse.Namespace) -> int:\n",
                                    "def handle(args: argparse.Namespace) -> int:\n"
                                    "    raise RuntimeError('a broken release')\n"))
    return into


@pytest.fixture(scope="module")
def signer(tmp_path_factory) -> tuple[Path, list[signing.PublicKey]]:
    """A key made for this run: its private file, and the keys the box under test trusts."""
    private, public = signing.make_key(tmp_path_factory.mktemp("keys"), "test")
    return private, [signing.read_public(public)]


@pytest.fixture(scope="module")
def releases(tmp_path_factory, signer):
    """Release files for 0.1.0 (the installed one), 0.1.1 and the broken 0.1.2."""
    base = tmp_path_factory.mktemp("releases")
    deps = dependency_wheels()
    made = {}
    for version, options in (("0.1.0", {}), ("0.1.1", {"migration": True}),
                             ("0.1.2", {"migration": True, "broken": True})):
        source = checkout_at(version, base / f"src-{version}", **options)
        wheels = base / f"wheels-{version}"
        shutil.copytree(deps, wheels)
        release.project_wheel(wheels, source)
        made[version] = release.build_release(base / "out", MACHINE, source, wheels=wheels,
                                              key=signer[0])
    return made


class SimService:
    """companion.service as systemd runs it, for the sim: start returns once READY=1 came on
    the notify socket (False if the process ended first); stop sends SIGTERM."""

    def __init__(self, layout: slots.Layout, state_dir: Path) -> None:
        self.layout = layout
        self.state_dir = state_dir
        self.process: subprocess.Popen | None = None
        self.starts: list[dict] = []
        self.trial_folder_at_stops: list[bool] = []  # the page refuses changes once it is there
        self.log_path = state_dir.parent / "box.log"

    def start(self) -> bool:
        trial = slots.read_trial(self.layout) or {}
        journal = self.state_dir / "journal.db"
        self.starts.append({"phase": trial.get("phase"),
                            "journal": journal.read_bytes() if journal.exists() else None})
        with tempfile.TemporaryDirectory() as short:
            address = os.path.join(short, "notify")
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sock.bind(address)
            sock.settimeout(0.5)
            env = {**os.environ, "NOTIFY_SOCKET": address, "HOME": str(self.state_dir.parent)}
            # Its log goes to a file: a pipe nobody reads fills up and stops the box mid-write,
            # so it would never answer SIGTERM.
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(
                    [str(self.layout.venv / "bin" / "companion"), "run", "--sim",
                     "--state-dir", str(self.state_dir)], env=env,
                    stdout=subprocess.DEVNULL, stderr=log)
            deadline = time.monotonic() + READY_TIMEOUT_S
            try:
                while time.monotonic() < deadline and self.process.poll() is None:
                    try:
                        if b"READY=1" in sock.recv(4096):
                            return True
                    except TimeoutError:
                        continue
                return False
            finally:
                sock.close()

    def stop(self) -> None:
        self.trial_folder_at_stops.append((self.state_dir / slots.TRIAL_DIR).exists())
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("the box did not stop on SIGTERM; its log: "
                                     + self.log_path.read_text(errors="replace")[-2000:]) from None
        self.process = None


@pytest.fixture(scope="module")
def prefix(tmp_path_factory, releases, signer):
    """0.1.0 in slot a, built once: updates install beside it and never change slot a."""
    layout = slots.Layout(tmp_path_factory.mktemp("box") / "opt")
    with tempfile.TemporaryDirectory() as scratch:
        unpacked = Path(scratch)
        release.read_release(releases["0.1.0"], unpacked, signer[1], release.Expect(MACHINE))
        slotbuild.build_slot(layout.slot("a"), unpacked / "wheels", unpacked / release.LOCK_NAME,
                             sys._base_executable, system_site_packages=False)
        shutil.copy(unpacked / "release.json", layout.slot("a") / "release.json")
    return layout


@pytest.fixture
def box(prefix, tmp_path):
    """The prefix as install.sh leaves it (0.1.0 running, nothing kept), and a journal."""
    layout = prefix
    for slot in ("b", "c"):
        shutil.rmtree(layout.slot(slot), ignore_errors=True)
    layout.trial.unlink(missing_ok=True)
    layout.unpoint("kept")
    layout.point("a")
    layout.point("a", "safe")
    state = tmp_path / "state"
    journal, _ = Journal.open(state)
    journal.close()
    service = SimService(layout, state)
    yield layout, state, service
    service.stop()


def user_version(state: Path) -> int:
    return user_version_of(state / "journal.db")


def user_version_of(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("PRAGMA user_version").fetchone()[0]


def installed(layout: slots.Layout, slot: str) -> str:
    return subprocess.run([str(layout.slot(slot) / "bin" / "companion"), "--version"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_an_update_runs_on_a_copy_first_and_migrates_the_journal_only_once_healthy(box, releases, signer):
    layout, state, service = box
    service.start()
    assert installed(layout, "a") == "companion 0.1.0"
    before = user_version(state)
    said: list[str] = []
    assert update.install(releases["0.1.1"], state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=said.append) == "0.1.1"
    assert layout.running() == "b" and os.readlink(layout.safe) == "slots/b"
    assert installed(layout, "b") == "companion 0.1.1"
    first_trial, on_journal = service.starts[1:]
    # The box and its page stopped once the trial's folder was there: a page change on its
    # way landed before the copy, and the page started again refuses the next.
    assert service.trial_folder_at_stops[0] is True
    # The trial start found the real journal as it was, and ran on its copy.
    assert first_trial["phase"] == "trial" and on_journal["phase"] == "journal"
    assert on_journal["journal"] == first_trial["journal"]
    assert user_version(state) == before + 1  # migrated by the second start, after READY
    assert not layout.trial.exists() and not (state / slots.TRIAL_DIR).exists()
    # The journal as 0.1.0 left it stays, for going back by hand.
    assert user_version_of(state / slots.BACKUP_NAME) == before
    # What doctor and About show, asked from inside the running slot.
    shown = subprocess.run([str(layout.venv / "bin" / "python"), "-c",
                            "from companion.appliance.slots import versions; v = versions(); "
                            "print(v.running, v.kept)"], capture_output=True, text=True, check=True,
                           cwd=layout.prefix)
    assert shown.stdout.split() == ["0.1.1", "0.1.0"]
    # By hand, back to 0.1.0, which does not read the migrated journal: it gets the copy,
    # with every play since carried into it, and starts on it.
    assert update.rollback(layout=layout, service=service, say=said.append,
                           state_dir=state) == "0.1.0"
    assert layout.running() == "a" and os.readlink(layout.safe) == "slots/a"
    assert user_version(state) == before
    assert said[-2].startswith("the journal was in a newer version's schema")


def test_a_broken_release_is_rolled_back_by_itself_and_the_journal_is_untouched(box, releases, signer):
    layout, state, service = box
    service.start()
    service.stop()
    journal, version = (state / "journal.db").read_bytes(), user_version(state)
    said: list[str] = []
    assert update.install(releases["0.1.2"], state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=said.append) == "0.1.0"
    assert layout.running() == "a" and os.readlink(layout.safe) == "slots/a"
    assert "rolled back to 0.1.0: 0.1.2 it did not report READY on the journal's copy" in said
    assert service.process and service.process.poll() is None  # 0.1.0 runs again
    service.stop()
    # The broken version's start found the journal as it was and never opened it; the old
    # version, started again, writes its own start and stop marks, never a migration.
    assert service.starts[1] == {"phase": "trial", "journal": journal}
    assert user_version(state) == version
    assert not layout.trial.exists() and not (state / slots.TRIAL_DIR).exists()
    assert not layout.slot("b").exists(), "the slot it was built in is removed"
    assert layout.kept() is None and not list(layout.prefix.glob("incoming-*"))


def test_a_trial_cut_off_by_a_power_cut_is_rolled_back_at_boot(box, releases, signer):
    """A power cut after the switch, before READY: trial.json is all that is left."""
    layout, state, _ = box

    class PowerCut(SimService):
        def start(self) -> bool:
            raise KeyboardInterrupt  # the updater dies here, links switched, trial noted

    with pytest.raises(KeyboardInterrupt):
        update.install(releases["0.1.1"], state, layout=layout, service=PowerCut(layout, state),
                       python=sys._base_executable, system_site_packages=False,
                       keys=signer[1], build_user=None, say=lambda line: None)
    assert layout.running() == "b" and json.loads(layout.trial.read_text())["phase"] == "trial"
    said: list[str] = []
    # companion-update-check.service runs the safe slot's updater, not the one on trial.
    assert os.readlink(layout.safe) == "slots/a"
    assert update.boot_check(layout=layout, say=said.append)
    assert layout.running() == "a" and not layout.trial.exists()
    assert said == ["rolled back to 0.1.0: 0.1.1 was cut off before it reported READY"]
    assert not layout.slot("b").exists() and sorted(layout.pointed()) == ["a"]
    assert not update.boot_check(layout=layout, say=said.append)  # nothing left to do


def test_a_cut_off_second_start_puts_the_journal_copy_back(box, releases, signer):
    """Cut off after the journal was opened (and maybe migrated) by the new version."""
    layout, state, _ = box
    before = user_version(state)

    class CutAfterTrial(SimService):
        def start(self) -> bool:
            if (slots.read_trial(self.layout) or {}).get("phase") == "journal":
                super().start()  # it migrates the journal...
                self.stop()
                raise KeyboardInterrupt  # ...and the power goes before the updater confirms
            return super().start()

    cut = CutAfterTrial(layout, state)
    with pytest.raises(KeyboardInterrupt):
        update.install(releases["0.1.1"], state, layout=layout, service=cut,
                       python=sys._base_executable, system_site_packages=False,
                       keys=signer[1], build_user=None, say=lambda line: None)
    assert user_version(state) == before + 1
    assert update.boot_check(layout=layout, say=lambda line: None)
    assert user_version(state) == before and layout.running() == "a"


def plays(state: Path) -> list[tuple]:
    with sqlite3.connect(state / "journal.db") as conn:
        return conn.execute("SELECT g.id, g.game, a.seq, a.action FROM games g JOIN actions a "
                            "ON a.game_id = g.id ORDER BY g.id, a.seq").fetchall()


def test_games_played_on_the_new_version_are_kept_when_a_cut_sends_the_box_back(box, releases, signer):
    """Issue 36: "The updater killed mid-start: the next boot reverts and the games played on
    the new version are gone (5 games became 2)". The new version migrated the journal, which
    the old one cannot read: its plays are carried into the copy the old version gets back."""
    layout, state, _ = box
    journal, _ = Journal.open(state)
    journal.append(journal.new_game("makan"), {"type": "setup", "players": 2}, False)
    journal.close()
    before = user_version(state)

    class KilledOnceItPlayed(SimService):
        def start(self) -> bool:
            ready = super().start()
            if (slots.read_trial(self.layout) or {}).get("phase") == "journal":
                self.stop()
                with sqlite3.connect(self.state_dir / "journal.db") as conn:  # its games
                    conn.execute("INSERT INTO games (id, game, started_at) VALUES (2, 'miams', 0)")
                    conn.execute("INSERT INTO actions (game_id, seq, action, undoable) "
                                 "VALUES (2, 1, '{\"type\": \"setup\"}', 0)")
                raise KeyboardInterrupt  # the updater is killed before it confirms
            return ready

    with pytest.raises(KeyboardInterrupt):
        update.install(releases["0.1.1"], state, layout=layout, service=KilledOnceItPlayed(layout, state),
                       python=sys._base_executable, system_site_packages=False,
                       keys=signer[1], build_user=None, say=lambda line: None)
    played = plays(state)
    assert [row[:2] for row in played] == [(1, "makan"), (2, "miams")]
    assert user_version(state) == before + 1
    said: list[str] = []
    assert update.boot_check(layout=layout, say=said.append)
    assert layout.running() == "a" and user_version(state) == before
    assert plays(state) == played
    assert said[0].startswith("the journal was in a newer version's schema: its plays were "
                              "carried into the copy kept for the older version")


def test_damaged_or_foreign_release_files_are_refused_with_the_reason(box, releases, signer, tmp_path):
    layout, state, service = box
    not_tar = tmp_path / "notes.release"
    not_tar.write_text("hello")
    damaged = tmp_path / "damaged.release"
    with tarfile.open(releases["0.1.1"]) as good, tarfile.open(damaged, "w") as bad:
        for member in good.getmembers():
            data = bytearray(good.extractfile(member).read())
            if member.name.startswith("wheels/table_companion"):
                data[len(data) // 2] ^= 0xFF  # one bit flipped in the program's wheel
            bad.addfile(member, io.BytesIO(bytes(data)))
    for path, reason in ((not_tar, "is not a release file"), (damaged, "is damaged")):
        with pytest.raises(release.ReleaseError, match=reason):
            update.install(path, state, layout=layout, service=service,
                           python=sys._base_executable, system_site_packages=False,
                           keys=signer[1], build_user=None, say=lambda line: None)
    assert layout.running() == "a" and not layout.slot("b").exists() and not service.starts


def test_a_release_unpacks_as_plain_files_whatever_its_entries_claim(releases, signer, tmp_path):
    """Owners, set-uid modes and times in the archive do not reach the box: each file is
    written by name, never extracted with the archive's metadata."""
    claims = tmp_path / "claims.release"
    with tarfile.open(releases["0.1.1"]) as good, tarfile.open(claims, "w") as odd:
        for member in good.getmembers():
            data = good.extractfile(member).read()
            member.mode, member.uid, member.gid, member.mtime = 0o6777, 4242, 4242, 0
            odd.addfile(member, io.BytesIO(data))
    unpacked = tmp_path / "unpacked"
    manifest = release.read_release(claims, unpacked, signer[1], release.Expect(MACHINE))
    assert manifest["version"] == "0.1.1"
    for name in manifest["files"]:
        info = (unpacked / name).stat()
        assert info.st_mode & 0o7000 == 0 and info.st_uid == os.getuid(), name
        assert info.st_mtime > 0, name


def test_doctor_and_about_name_the_running_and_the_kept_version(tmp_path, monkeypatch):
    from companion.screens.system import AboutScreen
    from companion.simulator.simbox import SimBox

    layout = slots.Layout(tmp_path / "opt")
    for name, version in (("a", "0.0.9"), ("b", "0.1.0")):
        layout.slot(name).mkdir(parents=True)
        (layout.slot(name) / "release.json").write_text(json.dumps({"version": version}))
    layout.point("b")  # laid out before the kept link: the other of a and b is kept
    monkeypatch.setattr(slots.sys, "prefix", str(layout.slot("b")))
    assert slots.version_line() == (
        "0.1.0 running; 0.0.9 kept (`sudo companion-update --rollback` goes back to it)")
    box = SimBox(tmp_path / "state")
    try:
        assert AboutScreen(box.app.table).lines()[:2] == ["Table Companion 0.1.0", "Kept: 0.0.9"]
    finally:
        box.close()
    layout.slot("c").mkdir()
    (layout.slot("c") / "release.json").write_text(json.dumps({"version": "0.0.8"}))
    layout.point("c", "kept")  # the link, once an update wrote it, names the kept one
    assert slots.version_line().startswith("0.1.0 running; 0.0.8 kept")
    monkeypatch.setattr(slots.sys, "prefix", str(tmp_path / "a-dev-venv"))
    assert slots.version_line() == "0.1.0 running; no other version kept"


def test_the_update_stops_the_phone_page_with_the_box_and_starts_only_the_box(monkeypatch):
    """Its socket starts the page again at the next request, on the version the update left."""
    ran: list[list[str]] = []
    monkeypatch.setattr(update.subprocess, "run",
                        lambda words, check: ran.append(words) or subprocess.CompletedProcess(words, 0))
    service = update.Service()
    service.stop()
    assert service.start() is True
    assert ran == [["systemctl", "stop", "companion.service", "companion-web.service"],
                   ["systemctl", "reset-failed", "companion.service"],
                   ["systemctl", "start", "companion.service"]]


def test_the_command_says_what_it_needs(capsys):
    from companion.cli import main

    assert main(["update"]) == 2
    assert "name a release file, or --rollback" in capsys.readouterr().err
    assert main(["update", "--boot-check"]) == 0  # no /opt/companion/trial.json here


def test_a_release_whose_release_json_is_a_folder_is_refused_with_the_reason(tmp_path):
    """A file whose release.json is a folder (a hand-made tar) says so, never a traceback."""
    odd = tmp_path / "odd.release"
    with tarfile.open(odd, "w") as archive:
        folder = tarfile.TarInfo("release.json")
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
    with pytest.raises(release.ReleaseError, match=r"no release\.json where a release has it"):
        release.read_release(odd, tmp_path / "into", [], release.Expect(MACHINE))
    assert not (tmp_path / "into").exists()
