"""Updates that keep every game: a new venv beside the two kept, a trial start, a way back.

The program lives in ``/opt/companion`` (on the SD-card image: on the data partition, since
the root filesystem is read-only):

- ``slots/a``, ``b`` and ``c``: venvs, each with the ``release.json`` it came from: the
  running version, the kept one and, only while an update builds, the new one;
- ``venv``: a link to the running slot (the units run ``/opt/companion/venv/bin/…``);
- ``kept``: a link to the slot ``companion-update --rollback`` goes back to;
- ``safe``: a link to the slot that last reported READY (the one an update starts from);
- ``trial.json``: only while an update is being tried.

``companion update FILE`` installs the release into the slot nothing points at (a cut during
the build leaves the running and the kept version as they were: the next boot removes the
half-built slot) and stops the box. The new version then starts on trial against a copy of
the journal (``update-trial/`` in the state directory, so the real journal is not touched,
not even migrated); once it reports READY to systemd the copy is dropped and it starts on
the real journal, which its schema migrations bring up to date. If either start fails (no
READY within the unit's TimeoutStartSec, or a crash), the links go back, the journal copy
taken before the update is put back if the real journal was opened, the old version starts
and the new slot is removed. Once the new version is kept, the old one becomes the kept one
and the version kept before is removed: the SD card holds two versions, three only while one
is built. A power cut during the trial leaves ``trial.json``: at the next boot
``companion-update-check.service`` runs the updater's ``--boot-check``, which goes back the
same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from .journal_merge import CARRIED_BACK, carry_plays, readable_by_kept
from .lockfile import LOCK_NAME
from .plugins import kept_dir
from .release import Expect, read_release
from .signing import PublicKey, trusted_keys
from .slotbuild import BuildUserError, build_slot
from .slots import (
    BACKUP_NAME,
    JOURNAL_NAME,
    SLOTS,
    TRIAL_DIR,
    Layout,
    UpdateError,
    read_trial,
    sync_dir,
    write_json,
)

BUILD_USER = "companion"  # builds a slot: nothing from a release runs as root


class Service:
    """The box's unit, through systemctl. ``start`` returns once it is READY (Type=notify):
    False if it failed or timed out first. ``stop`` also stops the phone page, which its
    socket starts again at the next request: a change it was writing lands first, and the
    page then runs the version the update left."""

    unit = "companion.service"
    page = "companion-web.service"

    def _systemctl(self, *words: str) -> int:
        return subprocess.run(["systemctl", *words], check=False).returncode

    def stop(self) -> None:
        self._systemctl("stop", self.unit, self.page)

    def start(self) -> bool:
        # The update's own starts do not count against the start limit of a crash loop.
        self._systemctl("reset-failed", self.unit)
        return self._systemctl("start", self.unit) == 0


def backup_journal(source: Path, copy: Path) -> None:
    """A consistent copy of the journal with SQLite's backup (the WAL included), flushed."""
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.unlink(missing_ok=True)
    if not source.exists():
        return
    with contextlib.closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as src, \
            contextlib.closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)
    with copy.open("rb+") as handle:
        os.fsync(handle.fileno())


def restore_journal(copy: Path, journal: Path) -> None:
    """Put the copy back as the journal (its -wal and -shm of the newer version removed),
    owned as its folder is: the copy was made by root, and a journal the box cannot write
    would hold every play in memory."""
    for suffix in ("-wal", "-shm"):
        journal.with_name(journal.name + suffix).unlink(missing_ok=True)
    owned_as(copy, journal.parent, 0o640)
    os.replace(copy, journal)
    sync_dir(journal.parent)


def journal_for_older(kept: Path, journal: Path, say: Say) -> bool:
    """Going back to the version that left ``kept`` (the journal's copy taken before the
    update): the journal stays when that version reads its schema, with every play since;
    else the plays are carried into the copy (:mod:`.journal_merge`), which is put back
    (True)."""
    if not kept.exists() or (journal.exists() and readable_by_kept(kept, journal)):
        return False
    if journal.exists():
        games = carry_plays(journal, kept, CARRIED_BACK)
        say(f"the journal was in a newer version's schema: its plays were carried into the "
            f"copy kept for the older version ({games} game(s) changed since)")
    restore_journal(kept, journal)
    return True


def owned_as(path: Path, folder: Path, mode: int) -> None:
    """Give ``path`` (made by root) to the owner of ``folder``, with ``mode``."""
    owner = folder.stat()
    os.chown(path, owner.st_uid, owner.st_gid)
    os.chmod(path, mode)


def _check_writable(prefix: Path) -> None:
    if os.statvfs(prefix).f_flag & os.ST_RDONLY or not os.access(prefix, os.W_OK):
        raise UpdateError(f"{prefix} is read-only: updates need it on a writable partition "
                          "(on the SD-card image it is on the data partition)")


def base_python() -> str:
    """The system Python the running venv was made from (each slot is made from it too)."""
    return getattr(sys, "_base_executable", None) or sys.executable


Say = Callable[[str], None]
LOCK_FILE = "update.lock"
P = ParamSpec("P")
R = TypeVar("R")


def leftovers(layout: Layout) -> list[Path]:
    """What a cut left in the prefix: ``incoming-*`` folders (a release being unpacked, a slot
    being removed) and, once ``venv`` names a slot, the slot folders nothing points at (a
    build cut off, :meth:`Layout.pointed`)."""
    found = sorted(layout.prefix.glob("incoming-*"))
    if layout.target("venv") is not None:
        pointed = layout.pointed()
        found += [layout.slot(name) for name in SLOTS
                  if name not in pointed and layout.slot(name).exists()]
    return found


def set_aside(layout: Layout, slot: str) -> Path:
    """Move ``slot`` out of the slots, to a folder removed as ``incoming-*`` is (a rename: a
    cut leaves it whole in one place or the other); :func:`remove_slot` removes it."""
    aside = layout.prefix / f"incoming-removed-{slot}"
    shutil.rmtree(aside, ignore_errors=True)
    os.rename(layout.slot(slot), aside)
    sync_dir(aside.parent)
    sync_dir(layout.slot(slot).parent)
    return aside


def remove_slot(layout: Layout, slot: str) -> None:
    shutil.rmtree(set_aside(layout, slot))


def one_at_a_time(step: Callable[P, R]) -> Callable[P, R]:
    """Run ``step`` (an install, a rollback, the boot's check) holding the box's update lock:
    a second one is refused with the reason, never run beside it. Holding it, what a cut
    left (:func:`leftovers`) is removed first, and said."""

    @functools.wraps(step)
    def locked(*args: P.args, **kwargs: P.kwargs) -> R:
        layout = kwargs.get("layout") or Layout()
        assert isinstance(layout, Layout)
        kwargs["layout"] = layout
        _check_writable(layout.prefix)
        with open(layout.prefix / LOCK_FILE, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise UpdateError("another update or rollback is running on this box: wait "
                                  "for it to finish (journalctl -u companion-update)") from None
            said = kwargs.get("say")
            say: Say = said if callable(said) else print
            for stale in leftovers(layout):
                say(f"removed {stale.relative_to(layout.prefix)}, left by an update cut off")
                if stale.parent == layout.prefix:
                    shutil.rmtree(stale, ignore_errors=True)
                else:
                    remove_slot(layout, stale.name)
            return step(*args, **kwargs)

    return locked


@one_at_a_time
def install(release: Path, state_dir: Path, *, layout: Layout | None = None,
            service: Service | None = None, python: str | None = None,
            system_site_packages: bool = True, say: Say = print,
            keys: list[PublicKey] | None = None, allow_downgrade: bool = False,
            build_user: str | None = BUILD_USER) -> str:
    """Install ``release`` beside the running version and switch to it, once it is signed by
    one of ``keys`` (default: the keys this box trusts) and not older than the version running
    (unless ``allow_downgrade``); the slot is built as ``build_user`` (:func:`build_slot`).
    The version running at the end (the new one, or the old one after an automatic rollback)."""
    layout = layout or Layout()
    service = service or Service()
    _check_writable(layout.prefix)
    if read_trial(layout):
        raise UpdateError("an update is already being tried: wait for it, or run "
                          "companion update --boot-check to finish it")
    running, kept = layout.running(), layout.kept()
    layout.point(running, "safe")  # so the slot nothing points at is the third
    target = layout.free()
    # Until trial.json names the new slot, this folder says a build is under way: a cut
    # leaves it, and the next boot's check removes it and the slot (:func:`leftovers`).
    with tempfile.TemporaryDirectory(dir=layout.prefix, prefix="incoming-") as scratch:
        os.chmod(scratch, 0o755)  # read by the user who builds the slot
        say(f"checking {release.name}")
        manifest = read_release(release, Path(scratch, "release"),
                                trusted_keys() if keys is None else keys,
                                Expect(platform.machine(), layout.version(running),
                                       allow_downgrade))
        say(f"signed by {manifest['signed_by']}")
        say(f"installing {manifest['version']} into slot {target}, beside "
            f"{layout.version(running)} running"
            + (f" and {layout.version(kept)} kept" if kept else ""))
        unpacked = Path(scratch, "release")
        try:
            left_out = build_slot(layout.slot(target), unpacked / "wheels",
                                  unpacked / LOCK_NAME, python or base_python(),
                                  plugins=kept_dir(layout.prefix),
                                  system_site_packages=system_site_packages, user=build_user)
        except (subprocess.CalledProcessError, BuildUserError) as exc:
            shutil.rmtree(layout.slot(target), ignore_errors=True)
            raise UpdateError(f"{release.name} did not install ({exc}); the running version "
                              "is unchanged") from exc
        shutil.copy(unpacked / "release.json", layout.slot(target) / "release.json")
        for name, why in left_out.items():
            say(f"the plugin {name} is left out of {manifest['version']}: {why}")
        shutil.rmtree(unpacked)  # its room, for the journal's copies
        say("stopping the box and copying the journal")
        # The trial's folder before the stop: the phone page refuses roster and settings
        # changes while it is there, and the stop (the page's too) lets one already on its way
        # land before the trial's copy is taken.
        (state_dir / TRIAL_DIR).mkdir(exist_ok=True)
        service.stop()
        journal = state_dir / JOURNAL_NAME
        backup_journal(journal, state_dir / BACKUP_NAME)
        backup_journal(journal, state_dir / TRIAL_DIR / JOURNAL_NAME)
        # The trial start writes its copy as the box's user: READY only with a journal it can
        # write.
        owned_as(state_dir / TRIAL_DIR, state_dir, 0o750)
        if (state_dir / TRIAL_DIR / JOURNAL_NAME).exists():
            owned_as(state_dir / TRIAL_DIR / JOURNAL_NAME, state_dir, 0o640)
        write_json(layout.trial, {"from": running, "to": target, "kept": kept,
                                   "version": manifest["version"], "phase": "trial",
                                   "state_dir": str(state_dir)})
    layout.point(target)
    return _try(layout, service, state_dir, say)


def _try(layout: Layout, service: Service, state_dir: Path, say: Say) -> str:
    trial = read_trial(layout) or {}
    say(f"starting {trial.get('version')} on a copy of the journal")
    if not service.start():
        return rollback_trial(layout, service, say, "it did not report READY on the journal's copy")
    say("it reported READY: stopping it, then starting it on the journal")
    service.stop()
    write_json(layout.trial, {**trial, "phase": "journal"})
    if not service.start():
        return rollback_trial(layout, service, say, "it did not report READY on the journal")
    say("it reported READY on the journal: keeping it")
    # Until trial.json goes, a cut goes back: kept is then pointed at the older slot again.
    layout.point(trial["from"], "kept")
    layout.point(trial["to"], "safe")
    layout.trial.unlink()
    sync_dir(layout.prefix)
    older = trial.get("kept")
    if older and older not in layout.pointed():  # two versions on the card again
        remove_slot(layout, older)
    # The journal's copy stays: a rollback by hand carries the plays back into it.
    shutil.rmtree(state_dir / TRIAL_DIR, ignore_errors=True)
    say(f"updated: {trial.get('version')} runs, {layout.version(trial['from'])} is kept; "
        "companion-update --rollback goes back")
    return str(trial.get("version"))


def rollback_trial(layout: Layout, service: Service | None, say: Say, why: str) -> str:
    """Undo the update being tried: the old slot, the version kept before, and the journal as
    it was before it; the slot it built is removed."""
    trial = read_trial(layout)
    if not trial:
        raise UpdateError("no update is being tried")
    if service:
        service.stop()
    state_dir = Path(trial["state_dir"])
    journal, on_trial = state_dir / JOURNAL_NAME, state_dir / TRIAL_DIR / JOURNAL_NAME
    if trial.get("phase") == "journal":  # the new version has written the journal
        journal_for_older(state_dir / BACKUP_NAME, journal, say)
    elif on_trial.exists() and journal.exists():
        # Killed while the new version ran on its copy, the updater left it playing there.
        games = carry_plays(on_trial, journal)
        if games:
            say(f"{games} game(s) played on {trial.get('version')}'s trial kept")
    layout.point(trial["from"])
    layout.point(trial["from"], "safe")
    older = trial.get("kept")
    if older and layout.slot(older).exists():
        layout.point(older, "kept")
    else:
        layout.unpoint("kept")
    built = trial["to"]
    aside = set_aside(layout, built) if built != trial["from"] and layout.slot(built).exists() \
        else None
    shutil.rmtree(state_dir / TRIAL_DIR, ignore_errors=True)
    layout.trial.unlink()
    sync_dir(layout.prefix)
    if aside:
        shutil.rmtree(aside)
    old = layout.version(trial["from"]) or "the previous version"
    say(f"rolled back to {old}: {trial.get('version')} {why}")
    if service and not service.start():
        say("the previous version did not start either: see journalctl -u companion -b")
    return old


@one_at_a_time
def rollback(*, layout: Layout | None = None, service: Service | None = None,
             say: Say = print, state_dir: Path | None = None) -> str:
    """Go back (or forward again) to the kept version by hand. An older version that does
    not read the journal's schema gets the journal's copy taken before the update, with every
    play since carried into it (:func:`journal_for_older`), and a copy of that for the next
    time."""
    layout = layout or Layout()
    service = service or Service()
    _check_writable(layout.prefix)
    if read_trial(layout):
        return rollback_trial(layout, service, say, "was being tried")
    running, kept = layout.running(), layout.kept()
    version = layout.version(kept) if kept else None
    if kept is None or version is None:
        raise UpdateError("no version is kept to go back to (the first install keeps none)")
    service.stop()
    if state_dir is not None:
        copy = state_dir / BACKUP_NAME
        if journal_for_older(copy, state_dir / JOURNAL_NAME, say):
            backup_journal(state_dir / JOURNAL_NAME, copy)  # for going back again
    # The two links swap; safe names the running slot meanwhile, so a cut between the
    # renames leaves no version that nothing points at.
    layout.point(running, "safe")
    layout.point(kept)
    layout.point(running, "kept")
    if service.start():
        layout.point(kept, "safe")
        say(f"running {version} again; {layout.version(running)} is kept")
    else:
        say(f"{version} did not start: see journalctl -u companion -b; "
            "companion-update --rollback goes forward again")
    return version


def boot_check(*, layout: Layout | None = None, say: Say = print,
               state_dir: Path | None = None) -> bool:
    """At boot, before the box starts: an update still on trial was cut off (a power cut,
    the updater killed) and is rolled back, and what a cut left (:func:`leftovers`: a build
    cut off; the slot kept before and the trial's folder in ``state_dir``, when the cut came
    once the update was kept) is removed. True if there was anything to do."""
    layout = layout or Layout()
    trial_dir = state_dir / TRIAL_DIR if state_dir else None
    if not read_trial(layout) and not leftovers(layout) \
            and not (trial_dir and trial_dir.exists()):
        return False
    _after_a_cut(layout=layout, say=say, trial_dir=trial_dir)
    return True


@one_at_a_time
def _after_a_cut(*, layout: Layout, say: Say, trial_dir: Path | None) -> None:
    if read_trial(layout):
        rollback_trial(layout, None, say, "was cut off before it reported READY")
    elif trial_dir and trial_dir.exists():
        # Nothing plays on it: the update was kept (or its copy was being taken).
        shutil.rmtree(trial_dir)
        say(f"removed {trial_dir.name}, left by an update cut off")
