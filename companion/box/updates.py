"""Updates on the box's side: a release the phone page handed over is installed only once
someone at the box says OK ("Install 0.3.0?"), which moves it into the updater's spool; then
the updater's news for the panel, read from the spool as files land there: the release taken,
then the line the updater left for it (docs/update.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from companion.appliance.slots import (
    MANIFEST_MAX_BYTES,
    MANIFEST_NAME,
    RESULT_NAME,
    SPOOL,
    SPOOL_NAME,
    plugins_left_out,
    set_aside_releases,
)
from companion.contract.spec import Screen, Table
from companion.ui.widgets import ConfirmScreen

from .panel import Health

RELEASE_SUFFIX = ".release"


def spool_of(state_dir: Path) -> Path:
    return state_dir / SPOOL_NAME


def is_release(name: str) -> bool:
    return name.endswith(RELEASE_SUFFIX)


def handed_version(path: Path) -> str | None:
    """The version a handed-over file says it holds (its first entry, ``release.json``), or
    None when it is not a release file. Nothing is checked here: the updater checks the
    signature and every file before it installs anything."""
    import tarfile  # only when a file is handed over: not on the box's start-up path

    try:
        with path.open("rb") as raw, tarfile.open(fileobj=raw, mode="r|") as archive:
            first = next(iter(archive), None)
            if first is None or first.name != MANIFEST_NAME or not first.isfile() \
                    or first.size > MANIFEST_MAX_BYTES:
                return None
            manifest = archive.extractfile(first)
            return str(json.load(manifest)["version"]) if manifest else None
    except (OSError, tarfile.TarError, ValueError, KeyError, TypeError, EOFError):
        return None


def install_question(table: Table, handed: Path, spool: Path, name: str,
                     tell: Callable[[Health], None]) -> Screen | None:
    """"Install 0.3.0?" for a file handed over: OK moves it into the updater's spool, BACK
    deletes it. None (and the reason told) when it is not a release file."""
    path = handed / name
    version = handed_version(path)
    if version is None:
        path.unlink(missing_ok=True)
        tell(Health("update", False, ("Update refused:", f"{name} is not a release"), error=True))
        return None

    def install() -> None:
        try:
            os.replace(path, spool / name)
        except OSError as exc:
            tell(Health("update", False, ("Update not handed over:", exc.strerror or str(exc)),
                        error=True))

    def decline() -> None:
        path.unlink(missing_ok=True)
        tell(Health("update", True, ("Update not installed:", f"{version} left out")))

    return ConfirmScreen(table, "Update", f"Install {version}? The box restarts; every game "
                         "is kept.", install, decline)


def is_news(name: str) -> bool:
    """A whole release file (the page renames it in once written) or the updater's result."""
    return name.endswith(RELEASE_SUFFIX) or name == RESULT_NAME


def update_health(spool: Path, name: str) -> Health | None:
    """What the table is told of ``name``, just landed in ``spool``: None for a result file
    that is gone or empty (the updater rewrites it whole)."""
    if name.endswith(RELEASE_SUFFIX):
        return Health("update", True, ("Update received:", "installing it now"))
    try:
        lines = [line for line in (spool / name).read_text(errors="replace").splitlines() if line]
    except OSError:
        return None
    if not lines:
        return None
    refused = [line for line in lines if ": not installed: " in line]
    if refused:
        reason = refused[-1].split(": not installed: ", 1)[1]
        return Health("update", False, ("Update not installed:", reason), error=True)
    version = lines[-1].rsplit(": running ", 1)[-1]
    # The version running at the end: the new one, or the old one after a rollback.
    return Health("update", True, ("Update finished:", f"running {version}"))


def plugins_health() -> Health | None:
    """At start: the game plugins kept on the box that the update to this version left out
    (``companion doctor`` says why), or None."""
    left = plugins_left_out()
    if not left:
        return None
    names = ", ".join(name.split("-", 1)[0] for name in left)
    return Health("plugins", False, ("Update left out:", names), error=True)


def set_aside_health(spool: Path = SPOOL) -> Health | None:
    """At start: a release file the updater set aside after its installs were cut off
    (``companion doctor`` says what to do), or None."""
    if not set_aside_releases(spool):
        return None
    return Health("update", False, ("Update set aside:", "cut off twice, see doctor"),
                  error=True)
