"""The game journal: every action committed to SQLite before the box shows its result.

State is a replay of a game's actions, so resuming after a power cut and undo are the same
mechanism. The journal never takes the box down: if the database cannot be used, the box
keeps playing in memory and says "journal off".
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    started_at REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing'   -- playing | finished | abandoned
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    undoable INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class JournalError(Exception):
    """The journal could not write; the message is short enough for the screen."""


@dataclass(frozen=True)
class SavedGame:
    id: int
    game: str
    status: str
    actions: list[dict[str, Any]]


class Journal:
    """A SQLite journal in WAL mode with synchronous=FULL."""

    FILENAME = "journal.db"

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, state_dir: Path) -> tuple[Journal | None, str | None]:
        """Open (or create) the journal; on failure return (None, a message for the screen).

        A corrupt file is moved aside (nothing is deleted) and a fresh journal started.
        """
        path = Path(state_dir) / cls.FILENAME
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return None, f"Journal off: cannot create {path.parent} ({exc.strerror})"
        try:
            return cls(cls._connect(path), path), None
        except sqlite3.DatabaseError as exc:
            if not _looks_corrupt(exc) or not path.exists():
                return None, f"Journal off: {path} unusable ({exc})"
        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        try:
            path.rename(aside)
            for suffix in ("-wal", "-shm"):
                side = path.with_name(path.name + suffix)
                if side.exists():
                    side.rename(aside.with_name(aside.name + suffix))
            journal = cls(cls._connect(path), path)
        except (OSError, sqlite3.DatabaseError) as exc:
            return None, f"Journal off: {path} is damaged and could not be replaced ({exc})"
        return journal, f"Journal was damaged; kept as {aside.name}, new one started"

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row[0] != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed: {row[0]}")
            conn.executescript(SCHEMA)
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _write(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        try:
            with self._conn:  # commits (fsync under synchronous=FULL) before returning
                return self._conn.execute(sql, args)
        except sqlite3.Error as exc:
            raise JournalError(_short_reason(exc)) from exc

    def new_game(self, game: str) -> int:
        """Start a game; any other unfinished game is kept as history, marked abandoned."""
        try:
            with self._conn:
                self._conn.execute("UPDATE games SET status='abandoned' WHERE status='playing'")
                cur = self._conn.execute(
                    "INSERT INTO games (game, started_at) VALUES (?, ?)", (game, time.time())
                )
        except sqlite3.Error as exc:
            raise JournalError(_short_reason(exc)) from exc
        return int(cur.lastrowid)

    def append(self, game_id: int, action: dict[str, Any], undoable: bool) -> None:
        """Commit one action; it is durable when this returns."""
        self._write(
            "INSERT INTO actions (game_id, seq, action, undoable) VALUES "
            "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE game_id = ?), ?, ?)",
            (game_id, game_id, json.dumps(action, separators=(",", ":")), int(undoable)),
        )

    def pop_last(self, game_id: int) -> None:
        """Remove the game's last action (the caller has checked it may be undone)."""
        self._write(
            "DELETE FROM actions WHERE game_id = ? AND seq = "
            "(SELECT MAX(seq) FROM actions WHERE game_id = ?)",
            (game_id, game_id),
        )

    def set_status(self, game_id: int, status: str) -> None:
        self._write("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def load(self, game_id: int) -> SavedGame:
        row = self._conn.execute("SELECT game, status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(game_id)
        actions = [
            json.loads(text)
            for (text,) in self._conn.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
            )
        ]
        return SavedGame(game_id, row[0], row[1], actions)

    def unfinished(self) -> SavedGame | None:
        """The game being played when the box last stopped, if any."""
        row = self._conn.execute(
            "SELECT id FROM games WHERE status = 'playing' ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return self.load(row[0]) if row else None

    def history(self, limit: int = 20) -> list[tuple[int, str, str]]:
        return list(
            self._conn.execute(
                "SELECT id, game, status FROM games ORDER BY id DESC LIMIT ?", (limit,)
            )
        )

    def settings(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self._conn.execute("SELECT key, value FROM settings")}

    def save_setting(self, key: str, value: Any) -> None:
        self._write(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._conn.close()


def _looks_corrupt(exc: sqlite3.DatabaseError) -> bool:
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


def _short_reason(exc: sqlite3.Error) -> str:
    text = str(exc).lower()
    if "full" in text:
        return "disk full"
    if "readonly" in text or "read-only" in text:
        return "disk read-only"
    return "write failed"
