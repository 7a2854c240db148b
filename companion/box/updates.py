"""The updater's news for the panel, read from the spool as files land there: a release handed
over (from the phone page), then the line the updater left for it (docs/update.md)."""

from __future__ import annotations

from pathlib import Path

from companion.appliance.slots import RESULT_NAME, SPOOL_NAME

from .panel import Health

RELEASE_SUFFIX = ".release"


def spool_of(state_dir: Path) -> Path:
    return state_dir / SPOOL_NAME


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
