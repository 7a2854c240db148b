"""The journal's health for the phone page, in a file in RAM.

The box writes it whenever the health changes (the phone page runs in another process and
cannot ask); it lives in the unit's ``RuntimeDirectory=`` (``/run/companion``), in RAM,
because the SD card may be what failed. Absent outside the service: nothing is written.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from .health import JournalStatus

log = logging.getLogger(__name__)

FILENAME = "journal-health.json"
RUNTIME_DIR = Path("/run/companion")


def runtime_dir() -> Path | None:
    """The service's runtime directory (systemd sets ``$RUNTIME_DIRECTORY``), else None."""
    value = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    return Path(value) if value else None


def as_text(status: JournalStatus) -> str:
    return json.dumps({"ok": status.ok, "held": status.held, "reason": status.reason,
                       "kept_on": status.kept_on, "volatile": status.volatile,
                       "kept_in": status.kept_in})


def publish(directory: Path, text: str) -> None:
    """Replace the file with ``text`` (atomically: the page never reads half of it)."""
    partial = directory / (FILENAME + ".partial")
    try:
        partial.write_text(text)
        os.replace(partial, directory / FILENAME)
    except OSError as exc:  # RAM full or the directory gone: the box plays on regardless
        log.warning("journal health not published: %s", exc)


def read(directory: Path = RUNTIME_DIR) -> JournalStatus | None:
    """What the box last said, or None (no box running, or nothing published)."""
    try:
        data = json.loads((directory / FILENAME).read_text())
        return JournalStatus(bool(data["ok"]), int(data["held"]), str(data["reason"]),
                             str(data.get("kept_on", "")), bool(data.get("volatile", True)),
                             str(data.get("kept_in", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
