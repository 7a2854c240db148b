"""Text from outside the box (replay and import files, config and data files, scripts) read with
bounds: a size and a line length, so a path set to ``/dev/zero``, a file of one endless line or
a stream that never ends is refused with one line that names it, in a few kilobytes of memory.

The limits are far above anything the box writes or ships (the longest example game is 7 KB,
its longest line 1.7 KB) and are documented in the README ("Files the box reads").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

MAX_DATA_BYTES = 1 << 20       # a config or data file (TOML), or a script: 1 MiB
MAX_GAME_BYTES = 4 << 20       # a replay or import file of JSON actions: 4 MiB
MAX_GAME_LINES = 50_000        # ... and at most this many lines (a long game has a few hundred)
MAX_LINE_BYTES = 64 << 10      # one line of any of them: 64 KiB
CHUNK = 64 << 10


class TooLarge(ValueError):
    """A file over a bound: ``where`` (the file, or ``file:line``) and the ``problem``; the
    message is the one line of both."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def lines(stream: BinaryIO, name: str, max_bytes: int = MAX_GAME_BYTES,
          max_lines: int = MAX_GAME_LINES, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """The lines of ``stream`` (without their ``\\n``), one at a time; TooLarge as soon as a
    bound is passed, having held at most one line and one chunk."""
    total, number, pending = 0, 0, b""
    while chunk := stream.read(CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise TooLarge(name, f"larger than {_size(max_bytes)}; not read")
        *whole, pending = (pending + chunk).split(b"\n")
        for line in whole:
            number += 1
            yield _checked(line, name, number, max_lines, max_line)
        if len(pending) > max_line:
            raise TooLarge(f"{name}:{number + 1}", f"a line longer than {_size(max_line)}; not read")
    if pending:
        yield _checked(pending, name, number + 1, max_lines, max_line)


def _checked(line: bytes, name: str, number: int, max_lines: int, max_line: int) -> bytes:
    if len(line) > max_line:
        raise TooLarge(f"{name}:{number}", f"a line longer than {_size(max_line)}; not read")
    if number > max_lines:
        raise TooLarge(name, f"more than {max_lines:,} lines; not read")
    return line


def read_bytes(stream: BinaryIO, name: str, max_bytes: int = MAX_DATA_BYTES,
               max_line: int = MAX_LINE_BYTES) -> bytes:
    """All of ``stream`` within the bounds of a data file; TooLarge past them."""
    return b"\n".join(lines(stream, name, max_bytes, max_bytes, max_line))


def read_text(path: Path | str, max_bytes: int = MAX_DATA_BYTES,
              max_line: int = MAX_LINE_BYTES, encoding: str = "utf-8") -> str:
    """A data file's text: OSError, UnicodeDecodeError or TooLarge as ``Path.read_text`` would
    raise the first two."""
    with open(path, "rb") as stream:
        return read_bytes(stream, str(path), max_bytes, max_line).decode(encoding)


def write_atomic(path: Path, text: str, check: Callable[[Path], None] | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file, flushed to the disk before it is
    renamed over ``path`` (a pulled stick or a power cut keeps the old file or the new one,
    never half of one); ``check``, given the temporary file, may raise to keep the old one."""
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check(part)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
    try:            # the rename is durable once its folder is flushed
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:  # a file system that cannot flush a folder (some of a stick's): renamed all the same
        pass
