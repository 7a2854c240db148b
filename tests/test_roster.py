"""The roster as people: add, rename and merge players; history, stats and the box's name
picker follow; `companion history roster` on the command line."""

from __future__ import annotations

import pytest

from companion.games.catalog import GAMES
from companion.journal.journal import Journal
from companion.records import roster
from companion.records.history import open_book
from companion.records.store import import_game, record
from companion.ui.words import player_lines
from tests.test_history import example, run

TITLES = {key: spec.title for key, spec in GAMES.items()}


def _makan(journal: Journal, names: list[str] | None = None) -> int:
    """The example Makan game (Ana, Ben, Cai, Dee) recorded as the box records one."""
    spec = GAMES["makan"]
    actions = example("makan")
    game_id = import_game(journal, spec, actions, spec.rules.replay(actions), 1_700_000_000, 1800)
    journal.record_players(game_id, names or ["Ana", "Ben", "Cai", "Dee"])
    return game_id


@pytest.fixture
def state(tmp_path):
    journal, _ = Journal.open(tmp_path)
    _makan(journal)
    journal.close()
    return tmp_path


def _book_names(state) -> tuple[tuple[str, ...], str]:
    book = open_book(state)
    try:
        played = book.games()[0]
        return played.players, played.headline
    finally:
        book.close()


def test_rename_renames_the_player_in_history_stats_and_the_box_roster(state):
    with roster.connect(state) as conn:
        renamed = roster.rename(conn, "dee", "Deedee")   # names compare as the box does
    assert (renamed.name, renamed.games) == ("Deedee", 1)
    players, headline = _book_names(state)
    assert players == ("Ana", "Ben", "Cai", "Deedee")
    assert headline.startswith("Deedee 55 – Ben 46")
    book = open_book(state)
    assert ("Dee", 1) not in book.players() and ("Deedee", 1) in book.players()
    assert player_lines(book.player_record("Deedee"), TITLES)[1].value == "1 of 1 (100%)"
    book.close()
    journal, _ = Journal.open(state)   # the box's next setup offers the new name
    assert "Deedee" in journal.roster() and "Dee" not in journal.roster()
    journal.close()


def test_merge_joins_two_players_games(tmp_path):
    journal, _ = Journal.open(tmp_path)
    _makan(journal)
    _makan(journal, ["Ana", "Ben", "Cai", "D"])   # Dee entered as "D" the second time
    journal.close()
    with roster.connect(tmp_path) as conn:
        kept = roster.merge(conn, "D", "Dee")
        assert (kept.name, kept.games) == ("Dee", 2)
        assert [p.name for p in roster.players(conn)].count("D") == 0
    book = open_book(tmp_path)
    assert ("Dee", 2) in book.players()
    assert all(p.players == ("Ana", "Ben", "Cai", "Dee") for p in book.games())
    book.close()


def test_a_game_ending_after_a_rename_keeps_the_new_name(tmp_path):
    journal, _ = Journal.open(tmp_path)
    game_id = _makan(journal)
    with roster.connect(tmp_path) as conn:
        roster.rename(conn, "Ana", "Anna")
    spec, actions = GAMES["makan"], example("makan")
    record(journal.read, journal.record, game_id, spec, actions, spec.rules.replay(actions))
    journal.close()
    assert _book_names(tmp_path)[0] == ("Anna", "Ben", "Cai", "Dee")


def test_add_links_the_games_an_imported_name_played(tmp_path, capsys):
    run(capsys, "history", "--state-dir", str(tmp_path), "import",
        "docs/examples/makan_4p.jsonl", "--game", "makan")
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path), "roster", "add", "Cai")
    assert code == 0 and out.strip().endswith("Cai: 1 game")
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path), "roster", "rename",
                       "Cai", "Kai")
    assert code == 0
    assert "Kai" in _book_names(tmp_path)[0]
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path), "roster", "list")
    assert code == 0 and "Kai" in out and "1 game " in out


@pytest.mark.parametrize(("argv", "said"), [
    (("add", "Ana"), "Ana is in the roster already"),
    (("add", "   "), "at least one letter"),
    (("add", "Bartholomew1"), "at most 10 letters"),
    (("add", "Zoë"), "letters A-Z"),
    (("rename", "Nobody", "Someone"), "no player Nobody"),
    (("rename", "Ana", "ben"), "Ben is in the roster already"),
    (("merge", "Ana", "ana"), "two different players"),
])
def test_refused_changes_say_why_and_change_nothing(state, capsys, argv, said):
    code, _, err = run(capsys, "history", "--state-dir", str(state), "roster", *argv)
    assert code == 2 and said in err and "Traceback" not in err
    with roster.connect(state) as conn:
        assert sorted(p.name for p in roster.players(conn)) == ["Ana", "Ben", "Cai", "Dee"]


def test_no_journal_is_said(tmp_path, capsys):
    code, _, err = run(capsys, "history", "--state-dir", str(tmp_path / "none"), "roster", "list")
    assert code == 2 and "no journal" in err


def test_state_dir_is_taken_after_the_roster_verb_too(tmp_path, capsys):
    """Issue 24, item 15: `history roster list --state-dir X` works as `history --state-dir X
    roster list` does (as `history list --state-dir X` already did)."""
    run(capsys, "history", "--state-dir", str(tmp_path), "import",
        "docs/examples/makan_4p.jsonl", "--game", "makan")
    code, out, _ = run(capsys, "history", "roster", "add", "Cai", "--state-dir", str(tmp_path))
    assert code == 0 and out.strip().endswith("Cai: 1 game")
    code, out, _ = run(capsys, "history", "roster", "list", "--state-dir", str(tmp_path))
    assert code == 0 and "Cai" in out


def test_a_box_without_a_journal_has_no_roster_to_change():
    """The "me" question on a box that keeps no journal says so rather than failing."""
    with pytest.raises(roster.RosterError, match="keeps no journal"), roster.connect(None):
        pass
