"""A file replaced whole or not at all, also on the boot partition's FAT: what first boot
writes there (the blanked settings, the problems report) and on the data partition."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_durably(target: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``target`` whole or not at all: a new file, flushed, renamed over the old, and
    the directory flushed. A cut before the rename leaves the old file and a ``.new`` one,
    which :func:`recover` removes; on FAT a cut inside the rename may leave only the new one,
    complete, which :func:`recover` puts in place."""
    fresh = target.with_name(target.name + ".new")
    with open(fresh, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    with contextlib.suppress(PermissionError):  # FAT has no modes to set
        fresh.chmod(mode)
    os.replace(fresh, target)
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
