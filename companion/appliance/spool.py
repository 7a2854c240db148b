"""The release files handed to the updater (the spool), the tries a cut interrupted, and the
updater's own log, both kept on the data partition so that a power cut loses neither.

A file is deleted from the spool once tried, so a cut during its install leaves it there and
the next boot tries it again. Each try is counted first (``update-tries.json`` in the prefix,
flushed): a release whose install was cut off twice (an update that itself makes the power go,
a weak supply during pip) is not tried a third time but set aside, renamed to
``NAME.release.set-aside`` in the spool (which the path unit does not watch), and the box, the
page and ``companion doctor`` say so with what to do.

The updater's messages go to the system's journal, which the image keeps in memory only; they
are also appended to ``update-log.txt`` in the prefix, each flushed as it is said, a section
per run. The boot's check, when it found a cut update, copies the cut run's section and its
own into ``update-log.cut.txt``, which ``companion doctor`` shows. Both files are root's, in a
folder only root writes (the spool is the box's user's: ``last.txt`` is written there as a
new file renamed into place, never through a link planted there).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from .durable import write_durably
from .release import ReleaseError
from .slots import (
    CUT_LOG_NAME,
    RESULT_NAME,
    SET_ASIDE,
    SPOOL,
    Layout,
    UpdateError,
    set_aside_releases,
    sync_dir,
    write_json,
)
from .update import install

TRIES_NAME = "update-tries.json"   # in the prefix: the tries of each release file, by name
LOG_NAME = "update-log.txt"        # in the prefix: the updater's messages, a section per run
CUT_TRIES = 2                      # interrupted tries before a release is set aside
LOG_MAX_BYTES = 64 * 1024          # past this, a new run keeps the last half of the log
SECTION = "== "                    # the first line of a run's section


def read_tries(prefix: Path) -> dict[str, int]:
    try:
        return {str(name): int(count)
                for name, count in json.loads((prefix / TRIES_NAME).read_text()).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _write_tries(prefix: Path, tries: dict[str, int]) -> None:
    if tries:
        write_json(prefix / TRIES_NAME, tries)
    elif (prefix / TRIES_NAME).exists():
        (prefix / TRIES_NAME).unlink()
        sync_dir(prefix)


def cut_off_twice(name: str) -> str:
    return (f"its install was cut off {CUT_TRIES} times (the power, or a restart): set aside "
            f"as {name}{SET_ASIDE}; check the power supply, then hand it over again "
            "(companion doctor says more)")


def take_spooled(spool: Path = SPOOL, state_dir: Path | None = None, *,
                 layout: Layout | None = None, **kwargs: Any) -> list[str]:
    """Install each release file handed over in ``spool`` (by the phone page), oldest first;
    each is removed once tried, and set aside untried once :data:`CUT_TRIES` tries of it were
    cut off. One line per file, also left in ``spool/last.txt``."""
    layout = layout or Layout()
    lines: list[str] = []
    for release in sorted(spool.glob("*.release"), key=lambda path: path.stat().st_mtime):
        tries = read_tries(layout.prefix)
        cut = tries.pop(release.name, 0)
        if cut >= CUT_TRIES:
            os.replace(release, release.with_name(release.name + SET_ASIDE))
            sync_dir(spool)
            _write_tries(layout.prefix, tries)
            lines.append(f"{release.name}: not installed: {cut_off_twice(release.name)}")
            continue
        if cut == 0:  # handed over anew: what older cuts left is old news
            for old in [*set_aside_releases(spool), layout.prefix / CUT_LOG_NAME]:
                old.unlink(missing_ok=True)
        # Counted before the try (and flushed): a cut during it leaves the count.
        _write_tries(layout.prefix, {**tries, release.name: cut + 1})
        try:
            lines.append(f"{release.name}: running "
                         + install(release, state_dir or spool.parent, layout=layout, **kwargs))
        except (UpdateError, ReleaseError) as exc:
            lines.append(f"{release.name}: not installed: {exc}")
        finally:
            release.unlink(missing_ok=True)
            _write_tries(layout.prefix, {name: count for name, count in
                                         read_tries(layout.prefix).items()
                                         if name != release.name})
    if lines:
        write_durably(spool / RESULT_NAME, "".join(line + "\n" for line in lines).encode())
    return lines


class UpdateLog:
    """The updater's messages, appended to ``update-log.txt`` in ``prefix`` as they are said,
    each flushed (a power cut keeps every message said before it), under a first line that
    names the run. Never in the way: a log that cannot be written is left out."""

    def __init__(self, prefix: Path, run: str) -> None:
        self.path, self.run, self.begun = prefix / LOG_NAME, run, False

    def __call__(self, line: str) -> None:
        with contextlib.suppress(OSError):
            if not self.begun:
                self.begun = True
                self._keep_within_bounds()
                self._append(f"{SECTION}{time.strftime('%Y-%m-%d %H:%M:%S')} {self.run}")
            self._append(f"{time.strftime('%H:%M:%S')} {line}")

    def _append(self, line: str) -> None:
        fresh = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, (line.replace("\n", " ") + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        if fresh:
            sync_dir(self.path.parent)

    def _keep_within_bounds(self) -> None:
        size = self.path.stat().st_size if self.path.exists() else 0
        if size > LOG_MAX_BYTES:
            text = self.path.read_bytes()[-LOG_MAX_BYTES // 2:]
            start = text.find(f"\n{SECTION}".encode())
            write_durably(self.path, text[start + 1:] if start >= 0 else b"")


def sections(text: str) -> list[list[str]]:
    """The log's runs, each its lines (the first names the run)."""
    found: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith(SECTION) or not found:
            found.append([])
        found[-1].append(line)
    return found


def keep_cut_log(prefix: Path) -> None:
    """After a boot's check that found a cut update: the cut run's section and the check's,
    kept apart from the log (the install the next boot takes up again starts a new section)."""
    with contextlib.suppress(OSError):
        runs = sections((prefix / LOG_NAME).read_text(errors="replace"))
        kept = [line for run in runs[-2:] for line in run]
        write_durably(prefix / CUT_LOG_NAME, "".join(line + "\n" for line in kept).encode())
