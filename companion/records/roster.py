"""The roster: the players the box knows, as people rather than seats.

A roster player is a row of ``players``; ``game_players`` says where they sat in each game.
A finished game's summary keeps each seat's name (what the history and the stats read, by an
index); a seat linked to a roster player takes that player's name, so renaming a player
rewrites the names of their seats in every summary, and merging two players moves the one's
seats to the other. A seat with no link (a game imported or played before the roster) keeps the
name its game gave it; renaming or merging first links such seats of the same name to the
player, so they follow too.

Each change is one short transaction on its own connection beside the box's (SQLite WAL): the
box reads the roster afresh at each setup, so it picks a change up at its next game.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from companion.appliance.slots import TRIAL_DIR
from companion.contract.names import MAX_LETTERS, same_name

from ..journal import schema
from . import ids
from .history import journal_path

ROSTER_VERSION = 2      # the journal version that made the players tables
BUSY_MS = 3000          # how long a write waits for the box's own write to end
ALLOWED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -'")
# The settings row that says which roster player is the box's user ("me" in a BG Stats play
# file): a player id, or null once the question was answered with nobody; no row: never asked.
ME_SETTING = "roster_me"
UPDATE_TRIED = "an update is being tried; try again in a minute (if this stays, restart the box)"


class RosterError(Exception):
    """A roster change that cannot be made; the message says why in a few words."""


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    last_used: float | None
    games: int


def clean_name(name: str) -> str:
    """``name`` with its spaces tidied, or RosterError if the box could not show it."""
    name = " ".join(str(name).split())
    if not name:
        raise RosterError("a name needs at least one letter")
    if len(name) > MAX_LETTERS:
        raise RosterError(f"a name has at most {MAX_LETTERS} letters")
    if not set(name) <= ALLOWED:
        raise RosterError("a name uses letters A-Z, digits, spaces, - and ' only")
    return name


@contextlib.contextmanager
def connect(where: str | Path | None) -> Iterator[sqlite3.Connection]:
    """The journal at ``where`` opened for a roster change (never created, never migrated);
    None is a box that keeps no journal."""
    if where is None:
        raise RosterError("this box keeps no journal")
    path = journal_path(where)
    if not path.exists():
        raise RosterError(f"no journal at {path}")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True,
                               isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise RosterError(f"cannot open {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        conn.create_function("swap_name", 3, _swap_name, deterministic=True)
        if schema.version(conn) < ROSTER_VERSION:
            raise RosterError("this journal has no roster yet: start the box once to upgrade it")
        yield conn
    except sqlite3.Error as exc:
        raise RosterError(f"cannot use {path}: {exc}") from exc
    finally:
        conn.close()


@contextlib.contextmanager
def connect_for_change(where: str | Path | None) -> Iterator[sqlite3.Connection]:
    """The journal opened for a change made beside the box (the phone page's roster, settings
    and dice), refused while an update is being tried: the box then plays on the trial's copy
    of the journal, whose roster and settings replace the journal's when the trial is undone
    (docs/update.md). The copy's folder is there from before the copy is taken until the
    update is kept or undone."""
    if where is not None and (journal_path(where).parent / TRIAL_DIR).exists():
        raise RosterError(UPDATE_TRIED)
    with connect(where) as conn:
        yield conn


def players(conn: sqlite3.Connection) -> list[Player]:
    """Every roster player, the last used first, with the number of games they sat in."""
    return [Player(*row) for row in conn.execute(
        "SELECT p.id, p.name, p.last_used, COUNT(g.game_id) FROM players p "
        "LEFT JOIN game_players g ON g.player_id = p.id GROUP BY p.id "
        "ORDER BY p.last_used IS NULL, p.last_used DESC, p.name").fetchall()]


def me_row(read: Callable[[str, tuple], list[tuple]]) -> tuple[bool, int | None]:
    """(whether the box asked who "me" is, the roster id of "me" or None), read with ``read``
    (a connection's or a history book's query); an id that left the roster reads as None."""
    rows = read("SELECT s.value, p.id FROM settings s LEFT JOIN players p "
                "ON p.id = CAST(s.value AS INTEGER) WHERE s.key = ?", (ME_SETTING,))
    if not rows:
        return False, None
    return True, rows[0][1]


def me(conn: sqlite3.Connection) -> Player | None:
    """The roster player marked as the box's user, if any."""
    _, player_id = me_row(lambda sql, args: conn.execute(sql, args).fetchall())
    return None if player_id is None else find(conn, player_id)


def set_me(conn: sqlite3.Connection, who: str | int | None) -> Player | None:
    """Mark ``who`` (a name or an id) as the box's user, or nobody with None."""
    player = None if who is None else find(conn, who)
    _write(conn, [("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) "
                   "DO UPDATE SET value = excluded.value",
                   (ME_SETTING, json.dumps(None if player is None else player.id)))])
    return player


def find(conn: sqlite3.Connection, who: str | int) -> Player:
    """A player by name (as the box compares names) or by id; RosterError if none."""
    every = players(conn)
    named = [p for p in every if isinstance(who, str) and same_name(p.name, who)]
    number = who if isinstance(who, int) else int(who) if who.strip().isdecimal() else None
    found = named or [p for p in every if p.id == number]
    if not found:
        raise RosterError(f"no player {who} in the roster (add them first)")
    return found[0]


def _taken(conn: sqlite3.Connection, name: str, but: int | None = None) -> None:
    for player in players(conn):
        if player.id != but and same_name(player.name, name):
            raise RosterError(f"{player.name} is in the roster already (merge instead)")


def _write(conn: sqlite3.Connection, statements: list[tuple[str, tuple]]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        for sql, args in statements:
            conn.execute(sql, args)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _swap_name(text: str | None, old: str, new: str) -> str | None:
    """``text`` (a game's one-line result) with the whole word ``old`` written ``new``."""
    if text is None:
        return None
    return re.sub(rf"(?<![\w'-]){re.escape(old)}(?![\w'-])", lambda _: new, text)


def _renamed(player_id: int, old: str, new: str) -> list[tuple[str, tuple]]:
    """The summaries' seats linked to ``player_id`` now bear ``new``, and their games' results
    say ``new`` where they said ``old``."""
    linked = "(game_id, seat) IN (SELECT game_id, seat FROM game_players WHERE player_id = ?)"
    games = "game_id IN (SELECT game_id FROM game_players WHERE player_id = ?)"
    return [(f"UPDATE summary_players SET name = ? WHERE bot = 0 AND {linked}", (new, player_id)),
            (f"UPDATE summary_items SET name = ? WHERE {linked}", (new, player_id)),
            ("UPDATE summaries SET headline = swap_name(headline, ?, ?), "
             f"short = swap_name(short, ?, ?) WHERE {games}", (old, new, old, new, player_id))]


def _adopt(player: Player) -> tuple[str, tuple]:
    """Link the unlinked seats that bear ``player``'s name (imported and older games) to them."""
    return ("INSERT INTO game_players (game_id, seat, player_id) SELECT s.game_id, s.seat, ? "
            "FROM summary_players s LEFT JOIN game_players g ON g.game_id = s.game_id "
            "AND g.seat = s.seat WHERE s.bot = 0 AND s.name = ? AND g.player_id IS NULL",
            (player.id, player.name))


def _adopts(conn: sqlite3.Connection) -> bool:
    """Whether the journal has summaries (version 3) whose seats can be linked."""
    return schema.version(conn) >= 3


def add(conn: sqlite3.Connection, name: str) -> Player:
    """A new roster player (offered first at the box's next setup)."""
    name = clean_name(name)
    _taken(conn, name)
    _write(conn, [("INSERT INTO players (name, last_used) VALUES (?, ?)", (name, time.time()))])
    player = find(conn, name)
    if _adopts(conn):
        _write(conn, [_adopt(player)])
    return find(conn, player.id)


def rename(conn: sqlite3.Connection, who: str | int, new: str) -> Player:
    """Give a player a new name, in the roster and in every game they played."""
    player = find(conn, who)
    new = clean_name(new)
    _taken(conn, new, but=player.id)
    steps = [_adopt(player), *_renamed(player.id, player.name, new)] if _adopts(conn) else []
    kept = ids.roster_uuids(lambda sql, args: conn.execute(sql, args).fetchall())[player.id]
    _write(conn, [("UPDATE players SET name = ? WHERE id = ?", (new, player.id)), *steps,
                  ("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)",  # the same person
                   (f"{ids.UUID_SETTING}{player.id}", json.dumps(kept)))])
    return find(conn, player.id)


def merge(conn: sqlite3.Connection, gone: str | int, kept: str | int) -> Player:
    """Two roster entries are one person: ``gone``'s games become ``kept``'s, ``gone`` goes."""
    old, into = find(conn, gone), find(conn, kept)
    if old.id == into.id:
        raise RosterError("pick two different players to merge")
    _write(conn, [
        *([_adopt(old), _adopt(into)] if _adopts(conn) else []),
        ("UPDATE game_players SET player_id = ? WHERE player_id = ?", (into.id, old.id)),
        *(_renamed(into.id, old.name, into.name) if _adopts(conn) else []),
        ("UPDATE players SET last_used = MAX(COALESCE(last_used, 0), ?) WHERE id = ?",
         (old.last_used or 0, into.id)),
        ("UPDATE settings SET value = ? WHERE key = ? AND value = ?",  # "me" stays "me"
         (json.dumps(into.id), ME_SETTING, json.dumps(old.id))),
        ("DELETE FROM players WHERE id = ?", (old.id,)),
        ("DELETE FROM settings WHERE key = ?", (f"{ids.UUID_SETTING}{old.id}",)),
    ])
    return find(conn, into.id)
