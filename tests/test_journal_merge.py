"""Going back to an older version keeps every play the newer one recorded (issue 36: "When the
old version cannot read what the new one wrote, go back by replaying the new actions into the
kept journal through the stable action vocabulary, not by throwing them away")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from companion.appliance import journal_merge, update
from companion.journal import schema
from companion.journal.journal import Journal
from companion.records import phones

ROLL = {"type": "roll", "dice": [1, 2, 3]}


def plays(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT g.id, g.game, g.status, a.seq, a.action, a.undoable "
                            "FROM games g JOIN actions a ON a.game_id = g.id "
                            "ORDER BY g.id, a.seq").fetchall()


def newer_version_ran_on(path: Path) -> None:
    """What a release one migration ahead does when it opens the journal."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE update_probe (x INTEGER)")
        conn.execute(f"PRAGMA user_version = {schema.VERSION + 1}")


def journal_before_and_after_an_update(tmp_path: Path) -> tuple[Path, Path]:
    """A journal with a game going on, its copy taken by the update, then the newer version's
    play on it: more of that game (one action undone), a new game finished, the roster, a
    setting."""
    state, kept = tmp_path / "state", tmp_path / "journal.before-update.db"
    journal, _ = Journal.open(state)
    first = journal.new_game("makan")
    journal.append(first, {"type": "setup", "players": 2}, False)
    journal.append(first, ROLL, True)
    journal.close()
    update.backup_journal(state / "journal.db", kept)
    journal, _ = Journal.open(state)
    journal.pop_last(first, then=[({"type": "roll", "dice": [6, 6, 6]}, True)])
    journal.append(first, {"type": "bank"}, True)
    second = journal.new_game("miams")
    journal.record_players(second, ["Ada", "Bo"])
    journal.append(second, {"type": "setup", "players": 2}, False)
    journal.append(second, ROLL, True, finishes=True)
    journal.save_setting("volume", 2)
    journal.close()
    newer_version_ran_on(state / "journal.db")
    return state / "journal.db", kept


def test_an_older_version_reads_its_own_schema_and_not_a_newer_one(tmp_path):
    journal, kept = journal_before_and_after_an_update(tmp_path)
    assert not journal_merge.readable_by_kept(kept, journal)
    assert journal_merge.readable_by_kept(journal, kept)


def test_every_play_of_the_newer_version_reaches_the_kept_journal(tmp_path):
    journal, kept = journal_before_and_after_an_update(tmp_path)
    assert plays(kept) != plays(journal)
    assert journal_merge.carry_plays(journal, kept) == 2
    assert plays(kept) == plays(journal)
    assert journal_merge.schema_version(kept) == schema.VERSION  # still the older one's
    # The older version opens it for writing, with the newer one's games and players.
    older = tmp_path / "older" / "journal.db"
    older.parent.mkdir()
    kept.replace(older)
    reopened, _ = Journal.open(older.parent)
    try:
        assert reopened.status.ok
        assert [game.game for game in reopened.saved_games()] == ["makan"]
    finally:
        reopened.close()
    with sqlite3.connect(older) as conn:
        assert conn.execute("SELECT name FROM players ORDER BY name").fetchall() == [("Ada",), ("Bo",)]
        assert conn.execute("SELECT value FROM settings WHERE key = 'volume'").fetchone() == ("2",)


def test_a_game_changed_after_the_copy_loses_its_stale_summary(tmp_path):
    journal, kept = journal_before_and_after_an_update(tmp_path)
    with sqlite3.connect(kept) as conn:
        conn.execute("INSERT INTO summaries (game_id, game, last_seq, ended_at, headline, short, "
                     "final) VALUES (1, 'makan', 2, 0, 'old', 'old', '{}')")
    journal_merge.carry_plays(journal, kept)
    with sqlite3.connect(kept) as conn:
        assert conn.execute("SELECT COUNT(*) FROM summaries WHERE game_id = 1").fetchone() == (0,)


def test_going_back_by_hand_keeps_the_phones_paired_since_the_update(tmp_path):
    """A phone paired while the newer version ran stays paired after going back (the journal
    in a schema the older one does not read is carried into its copy)."""
    journal, kept = journal_before_and_after_an_update(tmp_path)
    for path, session in ((kept, "paired before"), (journal, "paired before"),
                          (journal, "paired since")):
        with sqlite3.connect(path) as conn:
            phones.ensure(conn)
            phones.add(conn, session, "Firefox", 1.0)
    said: list[str] = []
    assert update.journal_for_older(kept, journal, said.append) is True
    assert said and "carried" in said[0]
    with sqlite3.connect(journal) as conn:
        assert phones.known(conn, "paired before") and phones.known(conn, "paired since")
        assert journal_merge.schema_version(journal) == schema.VERSION
