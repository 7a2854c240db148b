"""The slots the program is installed in, and which one this process runs from.

Three slot folders, ``slots/a``, ``b`` and ``c``: the version running (the ``venv`` link),
the one kept for going back (the ``kept`` link) and, only while an update builds, the new
one, in the slot nothing points at (:meth:`Layout.free`), so a cut during the build leaves
both versions as they were.

Kept apart from :mod:`companion.appliance.update` (which installs releases): ``companion run`` asks
:func:`state_dir_for_run` at every start and should not load the installer to do so.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import __version__

PREFIX = Path("/opt/companion")
SLOTS = ("a", "b", "c")
LINKS = ("venv", "safe", "kept")  # the links in the prefix that name a slot
TRIAL_DIR = "update-trial"
BACKUP_NAME = "journal.before-update.db"
JOURNAL_NAME = "journal.db"
SPOOL_NAME = "update-spool"  # in the state directory: release files handed to the updater
RESULT_NAME = "last.txt"     # in the spool: what the updater made of them, a line each
SPOOL = Path("/var/lib/companion") / SPOOL_NAME
# A release file starts with its list of files (release.json), read before anything else.
MANIFEST_NAME = "release.json"
MANIFEST_MAX_BYTES = 1 << 20
UPDATE_KEYS_DIR = Path("/etc/companion/update-keys")  # the public keys updates are signed with
PLUGINS_RECORD = "plugins.json"  # in a slot: the game plugins carried into it, those left out
SET_ASIDE = ".set-aside"  # appended to a release file's name in the spool: cut off too often
CUT_LOG_NAME = "update-log.cut.txt"  # in the prefix: the messages of the last update cut off


class UpdateError(Exception):
    """An update that could not start or finish; the message says what to do."""


@dataclass(frozen=True)
class Layout:
    prefix: Path = PREFIX

    @property
    def venv(self) -> Path:
        return self.prefix / "venv"

    @property
    def safe(self) -> Path:
        return self.prefix / "safe"

    @property
    def trial(self) -> Path:
        return self.prefix / "trial.json"

    def slot(self, name: str) -> Path:
        return self.prefix / "slots" / name

    def target(self, link: str) -> str | None:
        """The slot ``link`` (venv, safe, kept) points at, None if it names none."""
        path = self.prefix / link
        name = Path(os.readlink(path)).name if path.is_symlink() else ""
        return name if name in SLOTS else None

    def running(self) -> str:
        name = self.target("venv")
        if name is None:
            raise UpdateError(f"{self.venv} is not a link to slots/a, b or c: install with "
                              "systemd/install.sh first")
        return name

    def kept(self) -> str | None:
        """The slot of the version kept for going back (None: none kept). A box installed
        before the ``kept`` link keeps the other of slots a and b, if it holds a version."""
        if (self.prefix / "kept").is_symlink():
            return self.target("kept")
        other = {"a": "b", "b": "a"}.get(self.target("venv") or "")
        return other if other and self.version(other) else None

    def pointed(self) -> set[str]:
        """The slots in use: named by a link, the kept one, or the update being tried."""
        trial = read_trial(self) or {}
        names = {self.target(link) for link in LINKS} | {self.kept()}
        names |= {trial.get(key) for key in ("from", "to", "kept")}
        return {name for name in names if name in SLOTS}

    def free(self) -> str:
        """The slot an update builds into: one nothing points at (its folder is replaced)."""
        pointed = self.pointed()
        for name in SLOTS:
            if name not in pointed:
                return name
        raise UpdateError(f"every slot in {self.prefix / 'slots'} is in use")

    def version(self, name: str) -> str | None:
        try:
            return str(json.loads((self.slot(name) / "release.json").read_text())["version"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def point(self, slot: str, link: str = "venv") -> None:
        """Point ``link`` (venv: the running slot; safe; kept) at ``slot``, atomically and
        durably."""
        path = self.prefix / link
        partial = path.with_name(path.name + ".partial")
        partial.unlink(missing_ok=True)
        partial.symlink_to(f"slots/{slot}")
        os.replace(partial, path)
        sync_dir(self.prefix)

    def unpoint(self, link: str) -> None:
        """Remove ``link`` (kept: no version kept), durably."""
        (self.prefix / link).unlink(missing_ok=True)
        sync_dir(self.prefix)


def sync_dir(path: Path) -> None:
    """A rename is durable once its directory is flushed (a power cut may come next)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_json(path: Path, data: dict) -> None:
    partial = path.with_name(path.name + ".partial")
    with partial.open("w") as handle:
        json.dump(data, handle, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)
    sync_dir(path.parent)


def read_trial(layout: Layout) -> dict | None:
    try:
        return json.loads(layout.trial.read_text())
    except (OSError, ValueError):
        return None


def this_slot() -> tuple[Layout, str] | None:
    """The layout and slot this Python runs from, if it is one of the slots."""
    prefix = Path(sys.prefix).resolve()  # run through the venv link or the slot's own path
    if prefix.name in SLOTS and prefix.parent.name == "slots":
        return Layout(prefix.parent.parent), prefix.name
    return None


def trial_of_this_slot() -> dict | None:
    """The update being tried, when this Python runs from the version it tries."""
    found = this_slot()
    trial = read_trial(found[0]) if found else None
    return trial if found and trial and trial.get("to") == found[1] else None


def on_trial() -> bool:
    """Whether this Python runs from the version an update is trying (either start)."""
    return trial_of_this_slot() is not None


def state_dir_for_run(state_dir: Path) -> Path:
    """Where ``companion run`` keeps its journal: the trial copy while this version is on
    trial (its first start after an update), else ``state_dir``."""
    if (trial_of_this_slot() or {}).get("phase") == "trial":
        return state_dir / TRIAL_DIR
    return state_dir


@dataclass
class Versions:
    running: str
    kept: str | None


def versions() -> Versions:
    """The version running and the one a rollback would go back to (None: none kept)."""
    found = this_slot()
    if not found:
        return Versions(__version__, None)
    layout, _ = found
    kept = layout.kept()
    return Versions(__version__, layout.version(kept) if kept else None)


def version_line() -> str:
    """For doctor: the version running, and the one `companion-update --rollback` goes to."""
    found = versions()
    if found.kept is None:
        return f"{found.running} running; no other version kept"
    return (f"{found.running} running; {found.kept} kept "
            "(`sudo companion-update --rollback` goes back to it)")


def plugins_left_out(slot: Path | None = None) -> dict[str, str]:
    """The game plugins kept on the box that ``slot`` (default: the one running) was built
    without, with why (``companion.appliance.plugins``)."""
    if slot is None:
        found = this_slot()
        if found is None:
            return {}
        slot = found[0].slot(found[1])
    try:
        record = json.loads((slot / PLUGINS_RECORD).read_text())
        return {str(name): str(why) for name, why in dict(record["left_out"]).items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def set_aside_releases(spool: Path = SPOOL) -> list[Path]:
    """The release files set aside in ``spool`` after their installs were cut off
    (:mod:`companion.appliance.spool`), oldest first."""
    with contextlib.suppress(OSError):
        return sorted(spool.glob(f"*.release{SET_ASIDE}"), key=lambda path: path.stat().st_mtime)
    return []


def cut_log(prefix: Path = PREFIX) -> list[str]:
    """The messages of the last update a cut interrupted and of the boot's check that found
    it (empty when none is kept)."""
    try:
        return (prefix / CUT_LOG_NAME).read_text(errors="replace").splitlines()
    except OSError:
        return []
