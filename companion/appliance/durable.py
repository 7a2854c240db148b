"""A file replaced whole or not at all, also on the boot partition's FAT: what first boot
writes there (the blanked settings, the problems report) and on the data partition."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_durably(target: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``target`` whole or not at all: a new file, flushed, renamed over the old, and
    the directory flushed; neither name is followed if it is a link. A cut before the rename
    leaves the old file and a ``.new`` one, which :func:`recover` removes; on FAT a cut inside
    the rename may leave only the new one, complete, which :func:`recover` puts in place."""
    fresh = target.with_name(target.name + ".new")
    # Made anew, never through a link: root writes some of these files into folders another
    # user owns (the spool's last.txt), where a planted link would aim the write elsewhere.
    fresh.unlink(missing_ok=True)
    with open(os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600),
              "wb") as out:
        out.write(data)
        out.flush()
        with contextlib.suppress(PermissionError):  # FAT has no modes to set
            os.fchmod(out.fileno(), mode)
        os.fsync(out.fileno())
    os.replace(fresh, target)  # a rename replaces a link named target, never its aim
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def recover(target: Path) -> str | None:
    """Finish or undo a replacement a power cut interrupted; what was done, if anything."""
    fresh = target.with_name(target.name + ".new")
    if not fresh.exists():
        return None
    if target.exists():
        fresh.unlink()  # cut before the rename: the old file is whole
        return f"removed {fresh.name}, left by a power cut before it replaced {target.name}"
    os.replace(fresh, target)  # cut inside the rename: the new file was flushed before it
    return f"put {fresh.name} in place of {target.name}, which a power cut removed"
