"""Noticing the box's writes: ``PRAGMA data_version`` on a read-only connection, polled on the
server's own event loop every :data:`POLL_S` (a cheap read of a counter in the WAL index, not a
busy loop), and a wake-up for every open page's event stream when it moves."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path

from companion.journal.store import open_ro
from companion.records.history import journal_path

log = logging.getLogger(__name__)

POLL_S = 0.1        # a change reaches the pages within this plus a page's render (< 300 ms)
REOPEN_S = 2.0      # while there is no journal yet, look for one this often


class JournalWatch:
    """Counts the changes other connections commit to the journal at ``where``."""

    def __init__(self, where: str | Path, poll_s: float = POLL_S) -> None:
        self.path = journal_path(where)
        self.poll_s = poll_s
        self.changes = 0
        self._conn: sqlite3.Connection | None = None
        self._seen: int | None = None
        self._event = asyncio.Event()

    def _read(self) -> int | None:
        if self._conn is None:
            if not self.path.exists():
                return None
            self._conn = open_ro(self.path, sqlite3.connect, check=False)
            if self._conn is None:
                return None
        try:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as exc:
            log.warning("journal watch: %s", exc)
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
            return None

    def check(self) -> bool:
        """Read the counter once; True (and every waiter woken) when the journal changed."""
        value = self._read()
        if value is None or value == self._seen:
            return False
        first = self._seen is None
        self._seen = value
        if first:
            return False        # a new connection's first reading: nothing to compare with
        self.changes += 1
        event, self._event = self._event, asyncio.Event()
        event.set()
        return True

    async def run(self) -> None:
        """Poll until cancelled (the server's lifespan starts and stops it)."""
        try:
            while True:
                self.check()
                await asyncio.sleep(self.poll_s if self._conn is not None else REOPEN_S)
        finally:
            if self._conn is not None:
                self._conn.close()

    async def wait(self, timeout: float) -> bool:
        """Wait for the next change; False after ``timeout`` seconds without one."""
        event = self._event
        try:
            await asyncio.wait_for(event.wait(), timeout)
            return True
        except TimeoutError:
            return False
