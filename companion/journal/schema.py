"""The journal's tables and their migrations, numbered by ``PRAGMA user_version``.

Version 0 is the schema of the first releases (no version number was set); each migration
moves a database one version up inside the caller's transaction, so a journal is either
wholly migrated or left as it was.
"""

from __future__ import annotations

import sqlite3

# The tables as the first releases made them (user_version 0).
SCHEMA_V0 = """
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

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 0 -> 1: when each action was played (for the saved-games list), and the marks the
    # start-up check reads: a clean-close flag and the last WAL checkpoint.
    (
        "ALTER TABLE actions ADD COLUMN at REAL",
        "CREATE TABLE marks (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # 1 -> 2: the roster of players (one row per name, when it last sat down) and who sat
    # where in each game, so setup screens offer the recent names first.
    (
        "CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT NOT NULL, last_used REAL)",
        "CREATE UNIQUE INDEX players_by_name ON players (name)",
        "CREATE TABLE game_players (game_id INTEGER NOT NULL REFERENCES games(id), "
        "seat INTEGER NOT NULL, player_id INTEGER NOT NULL REFERENCES players(id), "
        "PRIMARY KEY (game_id, seat))",
    ),
    # 2 -> 3: each finished game's summary, so the history and stats screens read a few
    # indexed rows instead of replaying games (companion/records/store.py writes them; an old
    # journal's finished games are summarised when the box or the CLI next opens it). Only a
    # finished game has one: the journal removes it in the change that reopens the game.
    (
        "CREATE TABLE summaries (game_id INTEGER PRIMARY KEY REFERENCES games(id), "
        "game TEXT NOT NULL, last_seq INTEGER NOT NULL, ended_at REAL NOT NULL, seconds REAL, "
        "won INTEGER, variant TEXT, survived INTEGER, headline TEXT NOT NULL, "
        "short TEXT NOT NULL, final TEXT NOT NULL)",
        "CREATE INDEX summaries_by_game ON summaries (game, variant, won, survived)",
        "CREATE TABLE summary_players (game_id INTEGER NOT NULL, seat INTEGER NOT NULL, "
        "game TEXT NOT NULL, variant TEXT, name TEXT NOT NULL, score INTEGER, "
        "winner INTEGER NOT NULL, start INTEGER NOT NULL, bot INTEGER NOT NULL, "
        "PRIMARY KEY (game_id, seat))",
        "CREATE INDEX summary_players_by_name ON summary_players "
        "(bot, name, game, variant, winner, score)",
        "CREATE TABLE summary_items (game_id INTEGER NOT NULL, seat INTEGER NOT NULL, "
        "name TEXT NOT NULL, item TEXT NOT NULL)",
        "CREATE INDEX summary_items_by_game ON summary_items (game_id)",
        "CREATE INDEX summary_items_by_name ON summary_items (name, item)",
        "CREATE INDEX games_by_status ON games (status, id)",
    ),
)

# The tables that hold a game's summary (removed together when a game is reopened).
SUMMARY_TABLES = ("summaries", "summary_players", "summary_items")

VERSION = len(MIGRATIONS)


class NewerJournal(Exception):
    """The journal was written by a newer release; this one only reads it."""


def version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Bring ``conn`` to :data:`VERSION` in one transaction; return the version it had."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = version(conn)
        if found > VERSION:
            raise NewerJournal(f"journal version {found} is newer than {VERSION}")
        if found < VERSION:
            if found == 0:
                for statement in SCHEMA_V0.split(";"):
                    if statement.strip():
                        conn.execute(statement)
            for step in MIGRATIONS[found:]:
                for statement in step:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return found
