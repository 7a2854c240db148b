"""The game journal: every action committed to SQLite before the box shows its result.

State is a replay of a game's actions, so resuming after a power cut and undo are the same
mechanism. The journal never takes the box down and never drops a change: when the disk
refuses a write, the journal keeps a copy of itself in memory, holds every change there in
order, and writes them all in one transaction as soon as the disk takes writes again.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import schema
from .check import Finding, StartupReport
from .health import JournalStatus, Notice
from .spare import Place, Spare, default_places, merge_back
from .store import (
    Connect,
    Op,
    Statement,
    commit,
    data_version,
    file_identity,
    mark_sql,
    memory_copy,
    open_files,
    open_rw,
    short_reason,
)

log = logging.getLogger(__name__)

PRESSES = ("action", "undo")  # the changes a player made, counted in the messages
GAME_END = ("checkpoint", "game end")  # the save point a finished game leaves


class JournalError(Exception):
    """The journal could not be read; the message is short enough for the screen."""


@dataclass(frozen=True)
class SavedGame:
    id: int
    game: str
    status: str
    actions: list[dict[str, Any]]


@dataclass(frozen=True)
class GameSummary:
    """One unfinished game, as the resume list shows it."""

    id: int
    game: str
    started_at: float
    actions: int
    last_at: float  # when its last action was played (its start if none)


class Journal:
    """A SQLite journal in WAL mode with synchronous=FULL that heals after a failed write."""

    FILENAME = "journal.db"

    def __init__(self, path: Path, disk: sqlite3.Connection | None,
                 mem: sqlite3.Connection | None, reason: str, report: StartupReport,
                 connect: Connect, places: Sequence[Place] = ()) -> None:
        self.path = path
        self.startup = report
        self._disk = disk  # the file, open for writing; None until it can be
        self._mem = mem  # while the disk refuses: a copy of the journal plus the held changes
        self._held: list[Op] = []
        self._reason = reason
        self._connect = connect
        self._notices: list[Notice] = []
        self._closed = False
        self._places = places
        self._spare: Spare | None = None  # held play written to a second filesystem
        # The file this journal writes, checked before every commit (see _lost_file).
        self._identity = file_identity(path) if disk is not None else None
        self._versions = data_version(disk)
        self._replaced = False  # the file is no longer ours: never written again this run
        if mem is not None:
            self._start_spare()

    # ----- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, state_dir: Path, *, connect: Connect = sqlite3.connect,
             places: Sequence[Place] | None = None) -> tuple[Journal, Finding | None]:
        """Check and open the journal; return it and what to show at start (or None).

        Always returns a journal: one that cannot be written keeps new changes in memory,
        reading the saved games from the file when it can. ``connect`` opens SQLite files
        (tests replace it to make the disk refuse). ``places`` are where held play is written
        when the disk fails (:func:`spare.default_places` unless given); a spare the last run
        left there is merged back. What was found is in ``journal.startup``.
        """
        path = Path(state_dir) / cls.FILENAME
        places = default_places() if places is None else places
        opened = open_files(path, connect)
        if opened.disk is not None:
            merge_back(opened.disk, path, places, opened.report)
        journal = cls(path, opened.disk, opened.mem, opened.reason, opened.report, connect,
                      places)
        return journal, opened.report.note

    # ----- health -------------------------------------------------------------------------
    @property
    def status(self) -> JournalStatus:
        if self._mem is None:
            return JournalStatus(ok=True)
        spare = self._spare
        return JournalStatus(ok=False, held=_presses(self._held), reason=self._reason,
                             kept_on=spare.place.name if spare else "", volatile=spare is None
                             or spare.place.volatile, kept_in=str(spare.path) if spare else "")

    def take_notice(self) -> Notice | None:
        """The newest change of health not yet shown ("Disk full: play kept…", "Journal back…")."""
        notice = self._notices[-1] if self._notices else None
        self._notices.clear()
        return notice

    def retry(self) -> int:
        """Try to write what is held (the loop calls this every few seconds).

        Returns how many player actions were written back; 0 if none or the disk still refuses.
        """
        if self._mem is None or self._replaced:
            return 0
        if self._disk is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._disk, _ = open_rw(self.path, self._connect, check=False)
                self._identity, self._versions = file_identity(self.path), data_version(self._disk)
            except (sqlite3.Error, schema.NewerJournal, OSError) as exc:
                self._reason = short_reason(exc, self.path.parent)
                return 0
        if self._lost_file():
            return 0
        try:
            commit(self._disk, self._held)
        except sqlite3.Error as exc:
            self._reason = short_reason(exc, self.path.parent)
            return 0
        saved = _presses(self._held)
        log.warning("journal back: %d held change(s) written", len(self._held))
        self._held.clear()
        self._mem.close()
        self._mem = None
        self._reason = ""
        if self._spare is not None:  # everything is on the journal's own disk again
            self._spare.close(remove=True)
            self._spare = None
        self._checkpoint_wal()
        self._notices.append(Notice(error=False, saved=saved))
        return saved

    def _run(self, op: Op) -> None:
        """Commit ``op``, or hold it in memory (after the ones held before it)."""
        if self._mem is None:
            if not self._lost_file():
                try:
                    commit(self._file(), [op])
                    self._identity = file_identity(self.path)  # a commit may checkpoint
                    return
                except sqlite3.Error as exc:
                    self._start_holding(short_reason(exc, self.path.parent))
            self._hold(op)
            return
        self._hold(op)
        self.retry()

    def _hold(self, op: Op) -> None:
        """Apply ``op`` in memory and on the spare, after the ones held before it."""
        commit(self._memory(), [op])
        self._held.append(op)
        if self._spare is not None:
            try:
                self._spare.hold(op)
            except sqlite3.Error as exc:  # the second place failed too: try the next one
                log.error("spare journal %s failed (%s)", self._spare.path, exc)
                self._spare.close(remove=False)
                self._start_spare()

    def _lost_file(self) -> bool:
        """Whether the file on disk is no longer the one this journal writes (renamed over,
        deleted, or copied over in place: SQLite's own connection keeps its pages and sees
        none of it); if so, hold everything from now on, as for a failed disk, and never write
        to that path again in this run. A write by another writer through SQLite (a checkpoint
        after its commit) is no replacement."""
        if self._replaced:
            return True
        now = file_identity(self.path)
        changed = now != self._identity
        if changed and now is not None and self._identity is not None \
                and now[:2] == self._identity[:2] and data_version(self._disk) != self._versions:
            self._identity, self._versions, changed = now, data_version(self._disk), False
        if not changed:
            return False
        log.error("journal file %s was replaced or overwritten under the box", self.path)
        self._replaced = True
        if self._mem is None:
            self._start_holding("journal replaced")
        else:
            self._reason = "journal replaced"
        return True

    def _start_holding(self, reason: str) -> None:
        log.error("journal write failed (%s): holding changes in memory", reason)
        try:
            self._mem = memory_copy(self._disk)
        except sqlite3.Error:  # the file cannot even be read: keep the changes from now on
            log.exception("could not copy the journal to memory")
            self._mem = memory_copy(None)
        self._reason = reason
        self._start_spare()
        self._notices.append(Notice(error=True, status=self.status))

    def _file(self) -> sqlite3.Connection:
        """The file open for writing, which a journal not holding changes in memory has."""
        if self._disk is None:
            raise RuntimeError("the journal file is not open")
        return self._disk

    def _memory(self) -> sqlite3.Connection:
        """The copy in memory, which a journal holding changes has."""
        if self._mem is None:
            raise RuntimeError("the journal holds nothing in memory")
        return self._mem

    def _start_spare(self) -> None:
        """Write the journal as held so far to the first place that takes it."""
        try:
            self._spare = Spare.start(self.path, self._memory(), self._held, self._places)
        except sqlite3.Error:
            log.exception("could not start a spare journal")
            self._spare = None

    def _checkpoint_wal(self) -> None:
        """Copy the WAL into the file and empty it, so losing the WAL costs only later play."""
        if self._disk is not None and self._mem is None:
            try:
                self._disk.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.Error as exc:
                log.warning("WAL checkpoint failed: %s", exc)
            self._identity = file_identity(self.path)

    # ----- changes ------------------------------------------------------------------------
    def new_game(self, game: str) -> int:
        """Start a game and return its id; other unfinished games stay resumable."""
        row = self._read("SELECT COALESCE(MAX(id), 0) + 1 FROM games")
        game_id = int(row[0][0])
        self._run(Op("game", (("INSERT INTO games (id, game, started_at) VALUES (?, ?, ?)",
                                (game_id, game, time.time())),)))
        return game_id

    def append(self, game_id: int, action: dict[str, Any], undoable: bool, *,
               finishes: bool = False) -> None:
        """Commit one action (and, if it ends the game, the game's end with it)."""
        statements = [action_sql(game_id, action, undoable)]
        if finishes:
            statements += [status_sql(game_id, "finished"), mark_sql(*GAME_END)]
        self._run(Op("action", tuple(statements)))
        if finishes:
            self._checkpoint_wal()

    def pop_last(self, game_id: int, *, count: int = 1, reopens: bool = False,
                 then: Sequence[tuple[dict[str, Any], bool]] = (), finishes: bool = False) -> None:
        """Remove the game's last ``count`` actions (the caller has checked they may be undone)
        and append ``then`` (action, undoable), all in one transaction; with ``reopens`` the
        finished game is playing again, with ``finishes`` what ``then`` adds ends it."""
        statements = [(
            "DELETE FROM actions WHERE game_id = ? AND seq IN "
            "(SELECT seq FROM actions WHERE game_id = ? ORDER BY seq DESC LIMIT ?)",
            (game_id, game_id, count))]
        if reopens:
            statements += [status_sql(game_id, "playing"), *forget_summary_sql(game_id)]
        statements += [action_sql(game_id, action, undoable) for action, undoable in then]
        if finishes:
            statements += [status_sql(game_id, "finished"), mark_sql(*GAME_END)]
        self._run(Op("undo", tuple(statements)))
        if finishes:
            self._checkpoint_wal()

    def forget(self, game_id: int) -> None:
        """A game whose setup was undone was never played: no saved game, no history row, no
        seats for its players (their names stay in the roster)."""
        self._run(Op("undo", (*forget_summary_sql(game_id),
                              ("DELETE FROM game_players WHERE game_id = ?", (game_id,)),
                              ("DELETE FROM actions WHERE game_id = ?", (game_id,)),
                              ("DELETE FROM games WHERE id = ?", (game_id,)))))

    def set_status(self, game_id: int, status: str) -> None:
        """Mark a game ``playing``, ``finished`` or ``abandoned``; a game's end is a save point."""
        statements = [status_sql(game_id, status)]
        if status == "finished":
            statements.append(mark_sql(*GAME_END))
        else:  # only a finished game has a summary in the history
            statements += forget_summary_sql(game_id)
        self._run(Op("status", tuple(statements)))
        if status == "finished":
            self._checkpoint_wal()

    def finish(self, game_id: int) -> None:
        """The game is over: no longer offered for resume."""
        self.set_status(game_id, "finished")

    def discard(self, game_id: int) -> None:
        """The table chose to drop this saved game; it stays in history as abandoned."""
        self.set_status(game_id, "abandoned")

    def checkpoint(self, label: str) -> None:
        """A save point (the end of a round or game): the file holds everything up to here.

        ``label`` names it for the start-up check ("round 2"): if the WAL is lost later, the
        box says "Log gone: play after round 2 may be lost".
        """
        self._run(Op("mark", (mark_sql(GAME_END[0], label),)))
        self._checkpoint_wal()

    def record(self, statements: tuple[Statement, ...]) -> None:
        """Commit rows derived from the games (a finished game's summary) in one transaction,
        held in memory like any change while the disk refuses."""
        self._run(Op("summary", statements))

    def save_setting(self, key: str, value: Any) -> None:
        self._run(Op("setting", (("INSERT INTO settings (key, value) VALUES (?, ?) "
                                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                   (key, json.dumps(value))),)))

    # ----- the roster of players -----------------------------------------------------------
    def record_players(self, game_id: int, names: list[str]) -> None:
        """Who sat where in a game (seat 0 first); each name joins the roster or is used again."""
        now = time.time()
        statements: list[Statement] = []
        for seat, name in enumerate(names):
            statements += [
                ("INSERT INTO players (name, last_used) VALUES (?, ?) "
                 "ON CONFLICT(name) DO UPDATE SET last_used = excluded.last_used", (name, now)),
                ("INSERT OR REPLACE INTO game_players (game_id, seat, player_id) "
                 "VALUES (?, ?, (SELECT id FROM players WHERE name = ?))", (game_id, seat, name)),
            ]
        if statements:
            self._run(Op("players", tuple(statements)))

    def roster(self, limit: int = 20) -> list[str]:
        """The names of recent players, the last used first (a game's players in seat order)."""
        return [name for (name,) in self._read(
            "SELECT p.name FROM players p LEFT JOIN game_players g ON g.player_id = p.id "
            "AND g.game_id = (SELECT MAX(game_id) FROM game_players WHERE player_id = p.id) "
            "ORDER BY p.last_used DESC, g.game_id DESC, g.seat LIMIT ?", (limit,))]

    def close(self) -> None:
        """Write what is held if the disk allows, mark a clean stop, checkpoint, close.

        Once: the box also registers it to run at interpreter exit (see ``boot.build_app``)."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        self.retry()
        if self._held:
            log.error("journal closed with %d change(s) the disk refused (%s)%s",
                      len(self._held), self._reason, f"; they are in {self._spare.path}"
                      if self._spare is not None else "")
        if self._spare is not None:
            self._spare.close(remove=False)  # merged back at the next start
        if self._mem is None and self._disk is not None:
            try:
                commit(self._disk, [Op("mark", (mark_sql("clean", "1"),))])
            except sqlite3.Error as exc:
                log.warning("could not mark the journal closed: %s", exc)
            self._checkpoint_wal()
        for conn in (self._disk, self._mem):
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()

    # ----- reading ------------------------------------------------------------------------
    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        conn = self._mem if self._mem is not None else self._file()
        try:
            return conn.execute(sql, args).fetchall()
        except sqlite3.ProgrammingError:
            raise  # a closed journal is a bug in the caller, not a disk problem
        except sqlite3.Error as exc:
            raise JournalError(f"read failed: {short_reason(exc, self.path.parent)}") from exc

    def read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows for the history (what the disk holds plus what is held in memory)."""
        return self._read(sql, args)

    def load(self, game_id: int) -> SavedGame:
        row = self._read("SELECT game, status FROM games WHERE id = ?", (game_id,))
        if not row:
            raise KeyError(game_id)
        actions = [json.loads(text) for (text,) in self._read(
            "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]
        return SavedGame(game_id, row[0][0], row[0][1], actions)

    def saved_games(self) -> list[GameSummary]:
        """Every unfinished game, the one played last first."""
        rows = self._read(
            "SELECT g.id, g.game, g.started_at, COUNT(a.seq), "
            "COALESCE(MAX(a.at), g.started_at) AS last FROM games g "
            "LEFT JOIN actions a ON a.game_id = g.id WHERE g.status = 'playing' "
            "GROUP BY g.id ORDER BY last DESC, g.id DESC")
        return [GameSummary(*row) for row in rows]

    def unfinished(self) -> SavedGame | None:
        """The unfinished game played last, if any."""
        games = self.saved_games()
        return self.load(games[0].id) if games else None

    def history(self, limit: int = 20) -> list[tuple[int, str, str]]:
        return self._read("SELECT id, game, status FROM games ORDER BY id DESC LIMIT ?",
                          (limit,))

    def settings(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self._read("SELECT key, value FROM settings")}


def action_sql(game_id: int, action: dict[str, Any], undoable: bool) -> Statement:
    """The game's next action, stamped with the time it was played."""
    return ("INSERT INTO actions (game_id, seq, action, undoable, at) VALUES "
            "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM actions WHERE game_id = ?), ?, ?, ?)",
            (game_id, game_id, json.dumps(action, separators=(",", ":")), int(undoable),
             time.time()))


def status_sql(game_id: int, status: str) -> Statement:
    return "UPDATE games SET status = ? WHERE id = ?", (status, game_id)


def forget_summary_sql(game_id: int) -> list[Statement]:
    return [(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
            for table in schema.SUMMARY_TABLES]


def _presses(ops: list[Op]) -> int:
    return sum(op.kind in PRESSES for op in ops)
