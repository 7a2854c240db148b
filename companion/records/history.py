"""The games recorded in a journal, read for the history list, the stats and the exports.

A reader, beside the box's one writer (SQLite WAL): :func:`open_book` opens ``journal.db``
read-only, whether on the box or copied off it. A journal from an older release, or with
finished games not yet summarised, is read through a copy in memory that is migrated and
summarised there, so the file itself is never changed by reading it. Lists and stats read the
``summaries`` rows (indexed); only opening one game reads its actions.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.contract.config import DEVICE_STATE_DIR
from companion.contract.facts import GameRecord, PlayerRecord, Seat
from companion.contract.rules import Action
from companion.contract.spec import GameSpec

from ..games.catalog import GAMES
from ..journal import schema
from ..journal.journal import Journal
from ..journal.store import Op, commit, memory_copy, open_ro
from . import store


class HistoryError(Exception):
    """The journal cannot be read; the message is short enough for the screen."""


@dataclass(frozen=True)
class Played:
    """One game in the list: finished ones with their result, the others marked."""

    id: int
    game: str
    started_at: float
    status: str                 # playing | finished | abandoned
    ended_at: float | None
    seconds: float | None
    headline: str | None        # None unless finished and summarised
    players: tuple[str, ...]
    short: str | None = None    # the list's few words: "Dee 55", "won R3", "lost 59-64"


class Book:
    """Read-only access to the recorded games of one journal."""

    def __init__(self, conn: sqlite3.Connection, source: str) -> None:
        self.conn = conn
        self.source = source

    def read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise HistoryError(f"cannot read the journal: {exc}") from exc

    def close(self) -> None:
        self.conn.close()

    # ----- the list -----------------------------------------------------------------------
    def count(self) -> int:
        return int(self.read("SELECT COUNT(*) FROM games")[0][0])

    def games(self, limit: int = 50, offset: int = 0) -> list[Played]:
        """The games, the last started first; unfinished ones have no headline."""
        return self._played("", (), limit, offset)

    def _played(self, where: str, args: tuple[Any, ...], limit: int, offset: int) -> list[Played]:
        rows = self.read(
            "SELECT g.id, g.game, g.started_at, g.status, s.ended_at, s.seconds, s.headline, "
            "s.short, "
            "(SELECT json_group_array(name) FROM (SELECT name FROM summary_players p "
            " WHERE p.game_id = g.id AND p.bot = 0 ORDER BY p.seat)) "
            f"FROM games g LEFT JOIN summaries s ON s.game_id = g.id {where} "
            "ORDER BY g.id DESC LIMIT ? OFFSET ?", (*args, limit, offset))
        out = []
        for gid, key, started, status, ended, seconds, headline, short, names in rows:
            if status == "finished" and headline is not None:
                players = tuple(json.loads(names))
            else:  # not summarised: the names the setup gave
                ended = seconds = headline = short = None
                try:
                    players = setup_names(self.actions(gid, limit=1))
                except HistoryError:
                    players = ()
            out.append(Played(gid, key, started, status, ended, seconds, headline, players, short))
        return out

    def actions(self, game_id: int, limit: int = -1) -> list[Action]:
        rows = self.read("SELECT action FROM actions WHERE game_id = ? ORDER BY seq LIMIT ?",
                         (game_id, limit))
        try:
            return [json.loads(text) for (text,) in rows]
        except ValueError as exc:
            raise HistoryError(f"cannot read game {game_id}: an action is not JSON") from exc

    def game(self, game_id: int) -> tuple[Played, list[Seat], dict[str, Any] | None]:
        """One game: its row, its seats and its final state as JSON (None if unfinished, or
        if its summary cannot be read: the box's next start makes it again);
        KeyError if the journal has no such game."""
        found = self._played("WHERE g.id = ?", (game_id,), 1, 0)
        if not found:
            raise KeyError(game_id)
        played = found[0]
        try:
            final = json.loads(self.read("SELECT final FROM summaries WHERE game_id = ?",
                                         (game_id,))[0][0]) if played.headline is not None else None
        except (ValueError, TypeError):
            final = None
        if final is None:
            return replace(played, headline=None, short=None), [], None
        items: dict[int, list[str]] = {}
        for seat, item in self.read("SELECT seat, item FROM summary_items WHERE game_id = ? "
                                    "ORDER BY rowid", (game_id,)):
            items.setdefault(seat, []).append(item)
        seats = [Seat(n, s, bool(w), bool(st), bool(b), tuple(items.get(seat, ())))
                 for seat, n, s, w, st, b in self.read(
                     "SELECT seat, name, score, winner, start, bot FROM summary_players "
                     "WHERE game_id = ? ORDER BY seat", (game_id,))]
        return played, seats, final

    # ----- stats (only finished games have summaries) ------------------------------------
    def players(self, games: dict[str, GameSpec[Any]] = GAMES) -> list[tuple[str, int]]:
        """Everyone who finished a game (never a bot, nor the one seat of a cooperative game:
        its stats are the game's own), the most played first."""
        but, args = _people(games)
        return [(n, c) for n, c in self.read(
            f"SELECT name, COUNT(*) FROM summary_players WHERE bot = 0 {but} GROUP BY name "
            "ORDER BY COUNT(*) DESC, name", args)]

    def player_record(self, name: str, games: dict[str, GameSpec[Any]] = GAMES) -> PlayerRecord:
        """A player's games and wins, in all and per game (the most played first), with the
        best score and what the game's own stats add."""
        but, args = _people(games)
        rows = self.read(
            "SELECT game, COUNT(*), SUM(winner), MAX(score), AVG(score) FROM summary_players "
            f"WHERE bot = 0 {but} AND name = ? GROUP BY game", (*args, name))
        per_game = []
        for key, games_n, won, best, average in sorted(rows, key=lambda r: -r[1]):
            stats = games[key].records.stats if key in games else None
            more = stats.player(self.read, name, average) \
                if stats is not None and stats.player is not None else []
            per_game.append(GameRecord(key, games_n, won, best, tuple(more)))
        return PlayerRecord(sum(r[1] for r in rows), sum(r[2] for r in rows), tuple(per_game))


def _people(games: dict[str, GameSpec[Any]]) -> tuple[str, tuple[str, ...]]:
    """The condition (and its arguments) that leaves out the seats of cooperative games."""
    table = tuple(key for key, spec in games.items() if spec.records.cooperative)
    return (f"AND game NOT IN ({', '.join('?' * len(table))})", table) if table else ("", ())


def setup_names(actions: list[Action]) -> tuple[str, ...]:
    """The player names a game's setup action gives (none for a Café or an unnamed Miams)."""
    setup = actions[0] if actions and actions[0].get("type") == "setup" else {}
    names = [p.get("name") if isinstance(p, dict) else p for p in setup.get("players", ())]
    if isinstance(setup.get("name"), str):
        names.append(setup["name"])
    return tuple(n for n in names if isinstance(n, str) and n)


def reading(where: str | Path | None, read: Callable[[Book], Any], fallback: Any) -> Any:
    """``read(book)`` on the box's journal at ``where``, opened read-only for just this;
    ``fallback`` when there is none to read (none yet, no state directory, unreadable)."""
    if where is None:
        return fallback
    try:
        book = open_book(where, check=False, fill=False)
    except HistoryError:
        return fallback
    try:
        return read(book)
    except HistoryError:
        return fallback
    finally:
        book.close()


def journal_path(where: str | Path) -> Path:
    """``journal.db`` in a state directory, or the path itself when it names a file."""
    where = Path(where)
    return where if where.suffix == ".db" or where.is_file() else where / "journal.db"


def sim_state_dir() -> Path:
    """Where the simulator keeps its journal: the user's state directory."""
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "companion"


def state_dir(given: str | None) -> Path:
    """The state directory given, else the device's when it holds a journal, else the simulator's."""
    if given:
        return Path(given)
    device = Path(DEVICE_STATE_DIR)
    return device if (device / Journal.FILENAME).exists() else sim_state_dir()


def open_book(where: str | Path, *, check: bool = True, fill: bool = True,
              connect: Callable[..., sqlite3.Connection] = sqlite3.connect) -> Book:
    """Open the journal at ``where`` (a state directory or a journal file) for reading.

    An older journal is read from a copy in memory migrated there; so is one with finished
    games not yet summarised, with ``fill`` (the box's screens leave that to the box's start
    and skip ``check``, the whole-file check the box made at start). Raises
    :class:`HistoryError` with a short reason.
    """
    path = journal_path(where)
    if not path.exists():
        raise HistoryError(f"no journal at {path}")
    conn = open_ro(path, connect, check=check)
    if conn is None:
        raise HistoryError(f"{path} is not a journal this box can read")
    book = Book(conn, str(path))
    try:
        current = schema.version(conn) >= schema.VERSION and not (fill and store.stale(book.read))
    except (sqlite3.Error, HistoryError):
        current = False
    if current:
        return book
    mem = memory_copy(conn)
    conn.close()
    book = Book(mem, str(path))

    def load(game_id: int) -> tuple[str, list[Action]]:
        key = book.read("SELECT game FROM games WHERE id = ?", (game_id,))[0][0]
        return key, book.actions(game_id)

    store.backfill(book.read, lambda statements: commit(mem, [Op("summary", statements)]), load)
    return book
