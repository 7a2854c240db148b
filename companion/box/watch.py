"""Files other processes hand the box, told to the loop as they land: nothing polls.

The phone page marks the settings and card files it saved, and the updater leaves its news,
in the box's state directory; the box learns of each from the kernel (inotify) on one reader
thread per process, which only posts a :class:`~companion.box.events.Call` onto the loop's
queue. A folder that does not exist is not watched (a simulator has no update spool), and
where the kernel has no inotify (a laptop that is not Linux) nothing is watched: the box then
reads those files at its next start, and says so in its log.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
import os
import select
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .events import Call

log = logging.getLogger(__name__)

# <sys/inotify.h>: a file written and closed, or renamed into the folder (a whole file).
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of the name)
READ_BYTES = 64 * 1024


@dataclass(frozen=True, eq=False)
class Watched:
    """``on_change(name)`` runs on the loop (through ``post``) when a file whose name
    ``wanted`` accepts lands in ``folder``."""

    folder: Path
    wanted: Callable[[str], bool]
    on_change: Callable[[str], object]
    post: Callable[[object], None]


class _Reader:
    """The process's one inotify descriptor and the thread that reads it: every box of a
    process (the tests run hundreds) shares it, as the kernel allows a user 128 of them."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._lock = threading.Lock()
        self._watching: dict[int, list[Watched]] = {}  # one descriptor per folder
        threading.Thread(target=self._read, name="folder-watch", daemon=True).start()

    def add(self, watched: Watched) -> bool:
        descriptor = self._libc.inotify_add_watch(self._fd, os.fsencode(watched.folder),
                                                  IN_CLOSE_WRITE | IN_MOVED_TO)
        if descriptor < 0:
            log.debug("not watched: %s (%s)", watched.folder, os.strerror(ctypes.get_errno()))
            return False
        with self._lock:
            self._watching.setdefault(descriptor, []).append(watched)
        return True

    def remove(self, watched: Watched) -> None:
        with self._lock:
            for descriptor, listeners in list(self._watching.items()):
                if watched in listeners:
                    listeners.remove(watched)
                    if not listeners:
                        del self._watching[descriptor]
                        self._libc.inotify_rm_watch(self._fd, descriptor)

    def _read(self) -> None:
        while True:
            select.select([self._fd], [], [])
            try:
                data = os.read(self._fd, READ_BYTES)
            except BlockingIOError:
                continue
            # One call per file, however many events a burst of writes made.
            for watched, name in dict.fromkeys(self._landed(data)):
                watched.post(Call(functools.partial(watched.on_change, name)))

    def _landed(self, data: bytes) -> list[tuple[Watched, str]]:
        landed = []
        offset = 0
        with self._lock:
            while offset + EVENT_HEADER.size <= len(data):
                descriptor, _mask, _cookie, length = EVENT_HEADER.unpack_from(data, offset)
                offset += EVENT_HEADER.size
                name = os.fsdecode(data[offset:offset + length].rstrip(b"\0"))
                offset += length
                landed += [(watched, name) for watched in self._watching.get(descriptor, ())
                           if name and watched.wanted(name)]
        return landed


_reader: _Reader | None = None
_reader_lock = threading.Lock()


def _shared_reader() -> _Reader | None:
    global _reader
    with _reader_lock:
        if _reader is None and sys.platform.startswith("linux"):
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd < 0:
                log.warning("inotify: %s", os.strerror(ctypes.get_errno()))
                return None
            _reader = _Reader(libc, fd)
        return _reader


class FolderWatch:
    """The folders one box watches; ``start`` returns those that could be watched."""

    def __init__(self, watched: list[Watched]) -> None:
        self._watched = watched
        self._started: list[Watched] = []

    def start(self) -> list[Path]:
        reader = _shared_reader()
        if reader is None:
            log.info("no inotify here: settings from the phone page and the updater's news "
                     "are read at the next start")
            return []
        self._started = [watched for watched in self._watched if reader.add(watched)]
        return [watched.folder for watched in self._started]

    def stop(self) -> None:
        if _reader is not None:
            for watched in self._started:
                _reader.remove(watched)
        self._started = []
