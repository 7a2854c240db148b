"""Going back to an older version without losing a play.

An update keeps the journal as the older version left it (``journal.before-update.db``). Going
back, the newer version's journal is what the box runs on again when the older version reads
its schema; when it does not (the newer one migrated it further), the plays are carried into
the kept copy through the tables every version has the same way: the games, their actions (the
rules' own vocabulary, as ``companion replay`` reads it), the settings and the roster. A game
whose actions changed loses its summary, which the older version writes again when it opens
the journal. Used by the updater as root, from its copy (:mod:`companion.appliance.privileged`):
SQLite only.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from companion.journal.schema import SUMMARY_TABLES

# The tables carried into the older journal, whole, in this order (a game before its rows).
CARRIED = ("games", "actions", "settings", "players", "game_players")
# Going back by hand, also the phones paired since (the page writes them beside the box; an
# older version without the table keeps none). Not from a trial's copy: the page went on
# pairing phones on the journal meanwhile.
CARRIED_BACK = (*CARRIED, "phones")


def schema_version(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def readable_by_kept(kept: Path, journal: Path) -> bool:
    """Whether the version that left ``kept`` reads ``journal``: each start migrates the
    journal to the schema the version knows, so ``kept``'s is the one it knows."""
    return schema_version(journal) <= schema_version(kept)


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def _games(conn: sqlite3.Connection, schema: str) -> dict[int, tuple]:
    """Each game: its status and its actions, to see which ones the newer version changed."""
    found: dict[int, tuple] = {
        game_id: (status, []) for game_id, status in conn.execute(
            f"SELECT id, status FROM {schema}.games")}
    for game_id, seq, action in conn.execute(
            f"SELECT game_id, seq, action FROM {schema}.actions ORDER BY game_id, seq"):
        found.setdefault(game_id, ("", []))[1].append((seq, action))
    return {game_id: (status, tuple(actions)) for game_id, (status, actions) in found.items()}


def carry_plays(journal: Path, kept: Path, tables: tuple[str, ...] = CARRIED) -> int:
    """Write into ``kept`` every game, action, setting and player of ``journal`` (each of
    ``tables`` both have), in one transaction, flushed; the number of games that changed."""
    with contextlib.closing(sqlite3.connect(kept.resolve().as_uri(), uri=True)) as conn:
        conn.execute("ATTACH DATABASE ? AS newer", (f"{journal.resolve().as_uri()}?mode=ro",))
        before, after = _games(conn, "main"), _games(conn, "newer")
        changed = {game_id for game_id in before.keys() | after.keys()
                   if before.get(game_id) != after.get(game_id)}
        with conn:
            for table in tables:
                mine, theirs = _columns(conn, "main", table), _columns(conn, "newer", table)
                common = ", ".join(name for name in mine if name in theirs)
                if not common:
                    continue
                conn.execute(f"DELETE FROM main.{table}")
                conn.execute(f"INSERT INTO main.{table} ({common}) SELECT {common} FROM newer.{table}")
            for table in SUMMARY_TABLES:
                if _columns(conn, "main", table):
                    conn.executemany(f"DELETE FROM main.{table} WHERE game_id = ?",
                                     [(game_id,) for game_id in sorted(changed)])
        conn.execute("DETACH DATABASE newer")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with kept.open("rb+") as handle:
        os.fsync(handle.fileno())
    owner = kept.stat()
    for suffix in ("-wal", "-shm"):  # left only if another process holds it open
        with contextlib.suppress(FileNotFoundError):
            os.chown(kept.with_name(kept.name + suffix), owner.st_uid, owner.st_gid)
    return len(changed)
