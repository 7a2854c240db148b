"""History: summaries written when a game ends and filled in for old journals, the list and the
stats read from them, and `companion history` import, list, show and export."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.catalog import GAMES
from companion.journal import schema as journal_schema
from companion.journal.journal import Journal
from companion.records.history import open_book
from companion.records.store import backfill_journal, stale
from companion.simulator.simbox import SimBox
from companion.ui.words import player_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}

# The schema of the release at commit 5f34937, as it wrote journals (no user_version). Its own
# copy on purpose: it must stay what that release wrote whatever journal_schema becomes.
SCHEMA_5F34937 = """
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


def example(key: str) -> list[dict]:
    text = (ROOT / "docs" / "examples" / EXAMPLES[key]).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()
            and not line.startswith("#")]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def imported(tmp_path, capsys):
    """A state directory holding the three example games, imported by the CLI."""
    for n, key in enumerate(EXAMPLES):
        code, _, err = run(capsys, "history", "--state-dir", str(tmp_path), "import",
                             str(ROOT / "docs" / "examples" / EXAMPLES[key]), "--game", key,
                             "--date", f"2026-11-2{n} 19:30", "--minutes", "30")
        assert code == 0, err
    return tmp_path


def test_imported_examples_are_listed_with_their_results(imported, capsys):
    code, out, _ = run(capsys, "history", "--state-dir", str(imported), "list", "--json")
    rows = json.loads(out)
    assert code == 0
    assert [r["game"] for r in rows] == ["miams", "cafe", "makan"]
    assert rows[0]["result"] == "Arthur 64 – you 59, Lunch"
    assert rows[1]["result"] == "lost in round 3"
    assert rows[2]["result"] == "Dee 55 – Ben 46 – Cai 38 – Ana 35"
    assert rows[2]["players"] == ["Ana", "Ben", "Cai", "Dee"] and rows[2]["minutes"] == 30


def test_show_gives_the_final_state_and_each_seat(imported, capsys):
    code, out, _ = run(capsys, "history", "--state-dir", str(imported / "journal.db"), "show", "1")
    shown = json.loads(out)
    assert code == 0
    assert shown["final"]["winners"] == ["Dee"]
    assert [(s["name"], s["score"], s["winner"]) for s in shown["seats"]] == [
        ("Ana", 35, False), ("Ben", 46, False), ("Cai", 38, False), ("Dee", 55, True)]
    assert shown["seats"][3]["drinks"][0] == "Ice Kachang"
    code, _, err = run(capsys, "history", "--state-dir", str(imported), "show", "9")
    assert code == 1 and "no game 9" in err


def test_jsonl_export_replays_to_the_same_final_state(imported, tmp_path, capsys):
    out_file = tmp_path / "cafe.jsonl"
    assert run(capsys, "history", "--state-dir", str(imported), "export", "--format", "jsonl",
               "--id", "2", "--out", str(out_file))[0] == 0
    code, replayed, _ = run(capsys, "replay", "cafe", str(out_file))
    assert code == 0
    spec = GAMES["cafe"]
    assert json.loads(replayed) == spec.rules.summary(spec.rules.replay(example("cafe")))


def test_a_game_exported_as_json_lines_imports_with_its_own_date(imported, tmp_path, capsys,
                                                                   monkeypatch):
    """The file's first line says when the game was played, with the box's offset from UTC:
    imported elsewhere (another time zone) it is the same instant and length, not the import
    time; --date and --minutes still say otherwise when given."""
    out_file = tmp_path / "makan.jsonl"
    assert run(capsys, "history", "--state-dir", str(imported), "export", "--format", "jsonl",
               "--id", "1", "--out", str(out_file))[0] == 0
    first = out_file.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# Makan Mania, game 1 of 2026-11-20 19:30:00 ") and first.endswith(
        ", 30 min")
    elsewhere = tmp_path / "other"
    original = time.mktime((2026, 11, 20, 19, 30, 0, 0, 0, -1))  # as the fixture imported it
    try:
        monkeypatch.setenv("TZ", "Asia/Singapore")
        time.tzset()
        code, said, err = run(capsys, "history", "--state-dir", str(elsewhere), "import",
                              str(out_file), "--game", "makan")
        assert code == 0, err
        shown = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(original))  # in Singapore
        assert said == f"game 1: Makan Mania, {shown}\n"
    finally:
        monkeypatch.undo()
        time.tzset()
    book = open_book(elsewhere)
    try:
        played = book.games(limit=1)[0]
    finally:
        book.close()
    assert (played.started_at, played.seconds) == (original, 1800)
    code, said, _ = run(capsys, "history", "--state-dir", str(elsewhere), "import", str(out_file),
                        "--game", "makan", "--date", "2026-12-01 10:00", "--minutes", "5")
    assert code == 0 and said.endswith("2026-12-01 10:00:00\n")


def test_import_refuses_what_is_not_a_finished_game(tmp_path, capsys):
    half = tmp_path / "half.jsonl"
    half.write_text("\n".join(json.dumps(a) for a in example("miams")[:5]), encoding="utf-8")
    code, _, err = run(capsys, "history", "--state-dir", str(tmp_path), "import", str(half),
                       "--game", "miams")
    assert code == 1 and "does not end" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "setup"}\nnot json\n', encoding="utf-8")
    code, _, err = run(capsys, "history", "--state-dir", str(tmp_path), "import", str(bad),
                       "--game", "miams")
    assert code in (1, 2) and "bad.jsonl:" in err
    assert not (tmp_path / "journal.db").exists()  # checked before the journal is opened


def test_a_game_finished_on_the_box_is_summarised_at_once(tmp_path):
    box = SimBox(tmp_path)
    try:
        spec, actions = GAMES["miams"], example("miams")
        assert box.app.table.games.start(spec.key, actions[0])
        for action in actions[1:]:
            assert box.app.table.dispatch(action)
        journal = box.app.play.journal
        assert journal.read("SELECT game_id, headline FROM summaries") == [
            (1, "Arthur 64 – you 59, Lunch")]
        assert box.app.table.undo()  # the final score taken back: the game is playing again
        listed = open_book(tmp_path).games()[0]
        assert (listed.status, listed.headline) == ("playing", None)
        assert journal.read("SELECT COUNT(*) FROM summary_players") == [(0,)]  # stats drop it
        last = dict(actions[-1], stars=actions[-1]["stars"] + 10)
        assert box.app.table.dispatch(last)  # a new end replaces the summary
        assert stale(journal.read) == []
        assert journal.read("SELECT headline FROM summaries") == [("you 69 – Arthur 64, Lunch",)]
    finally:
        box.close()


def test_stats_count_wins_scores_and_drinks(imported):
    book = open_book(imported)
    try:
        assert dict(book.players()) == {"Ana": 1, "Ben": 1, "Cai": 1, "Dee": 1, "You": 1}
        record = book.player_record("Dee")
        lines = {line.label: line.value for line in player_lines(record, {"makan": "Makan"})}
        # Issue 24, item 15: every figure has its label ("won"), not "1 · 1 won 100%".
        assert lines["All games"] == "1 game" and lines["  won"] == "1 of 1 (100%)"
        assert lines["  best score"] == "55" and lines["  drink"] == "Chendol"
        cafe = [(line.label, line.value) for line in GAMES["cafe"].records.stats.lines(book.read)]
        assert ("Survived", "2.0 rounds") in cafe
        assert cafe[-4:] == [("  games", "1 game"), ("    won", "0 of 1 (0%)"),
                             ("No Double Trouble", ""), ("  games", "none")]
        miams = [(line.label, line.value) for line in GAMES["miams"].records.stats.lines(book.read)]
        assert miams == [("Lunch", "1 game"), ("  won", "0 of 1 (0%)"), ("  best score", "59")]
    finally:
        book.close()


def make_old_journal(path: Path) -> None:
    """A journal as the release at 5f34937 wrote it: three finished example games, one
    cut off while playing, one abandoned, and a setting."""
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_5F34937)
    games = [("makan", "finished"), ("cafe", "finished"), ("miams", "finished"),
             ("miams", "playing"), ("cafe", "abandoned")]
    for game_id, (key, status) in enumerate(games, 1):
        conn.execute("INSERT INTO games (game, started_at, status) VALUES (?, ?, ?)",
                     (key, 1_764_000_000.0 + game_id * 3600, status))
        actions = example(key)[: None if status == "finished" else 3]
        for seq, action in enumerate(actions, 1):
            conn.execute("INSERT INTO actions (game_id, seq, action, undoable) VALUES "
                         "(?, ?, ?, 1)", (game_id, seq, json.dumps(action)))
    conn.execute("INSERT INTO settings VALUES ('volume', '2')")
    conn.commit()
    conn.close()


def dump(path: Path) -> tuple[list, list, list]:
    conn = sqlite3.connect(path)
    try:
        return (conn.execute("SELECT id, game, started_at, status FROM games").fetchall(),
                conn.execute("SELECT game_id, seq, action FROM actions").fetchall(),
                conn.execute("SELECT key, value FROM settings").fetchall())
    finally:
        conn.close()


def test_an_old_journal_migrates_with_nothing_lost(tmp_path):
    path = tmp_path / "journal.db"
    make_old_journal(path)
    before = dump(path)
    journal, _ = Journal.open(tmp_path)
    try:
        assert journal.read("PRAGMA user_version") == [(journal_schema.VERSION,)]
        assert backfill_journal(journal) == 3
        assert stale(journal.read) == []
    finally:
        journal.close()
    assert dump(path) == before  # every game, action and setting, unchanged
    book = open_book(tmp_path)
    try:
        listed = {p.id: p for p in book.games()}
        assert len(listed) == 5
        assert listed[1].headline.startswith("Dee 55") and listed[1].seconds is None
        assert listed[4].status == "playing" and listed[4].headline is None
        assert listed[4].players == ()
        assert listed[5].status == "abandoned"
    finally:
        book.close()


def test_reading_an_old_journal_copy_changes_nothing(tmp_path, capsys):
    path = tmp_path / "copied.db"
    make_old_journal(path)
    data = path.read_bytes()
    code, out, err = run(capsys, "history", "--state-dir", str(path), "list", "--json")
    assert code == 0, err
    assert [r["result"] is not None for r in json.loads(out)] == [False, False, True, True, True]
    assert path.read_bytes() == data


def test_no_journal_is_said_in_one_line(tmp_path, capsys):
    code, _, err = run(capsys, "history", "--state-dir", str(tmp_path / "none"), "list")
    assert code == 2 and err.strip().startswith("companion history: no journal at")


def test_the_first_mounted_drive_is_found(tmp_path, monkeypatch):
    from companion.records import export as history_export

    media = tmp_path / "media"
    (media / "pi" / "STICK").mkdir(parents=True)
    (media / "pi" / "NOTMOUNTED").mkdir()
    mounted = {media / "pi" / "STICK"}
    monkeypatch.setattr(history_export.os.path, "ismount", lambda p: Path(p) in mounted)
    assert history_export.removable_drive([tmp_path / "absent", media]) == media / "pi" / "STICK"
    mounted.clear()
    assert history_export.removable_drive([media]) is None


def test_imported_games_open_on_the_simulated_box(imported):
    """A fresh state directory filled by the CLI: Home → History → a game → its final screens."""
    from companion.simulator.walk import run_steps

    box = SimBox(imported)
    try:
        run_steps(box, ("menu:History", *("DOWN",) * 4, "OK", "OK"))
        assert box.screen.title == "Makan · Scores"
        box.press("BACK")
        box.press("BACK")
        run_steps(box, ("menu:Stats", "menu:Dee"))
        assert ("All games", "1 game") in box.screen.rows()
        assert box.app.errors == 0
    finally:
        box.close()


def test_the_box_start_summarises_within_its_budget_and_skips_what_does_not_replay(tmp_path):
    path = tmp_path / "journal.db"
    make_old_journal(path)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO games (game, started_at, status) VALUES ('miams', 1.0, 'finished')")
    conn.execute("""INSERT INTO actions VALUES (6, 1, '{"type": "score"}', 1)""")
    conn.commit()
    conn.close()
    journal, _ = Journal.open(tmp_path)
    try:
        assert backfill_journal(journal, budget_s=0.0) == 1  # one game, then the time is up
        assert backfill_journal(journal) == 2                 # the rest; game 6 cannot be
        assert stale(journal.read) == [6]
    finally:
        journal.close()
    listed = {p.id: p for p in open_book(tmp_path, fill=False).games()}
    assert listed[6].status == "finished" and listed[6].headline is None


def test_an_action_that_is_not_json_skips_its_game_only(tmp_path, capsys, caplog):
    """One damaged action row: the other games are still summarised, and the list says it."""
    path = tmp_path / "journal.db"
    make_old_journal(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE actions SET action = 'zzz' WHERE game_id = 1 AND seq = 1")
    conn.commit()
    conn.close()
    code, out, err = run(capsys, "history", "--state-dir", str(tmp_path), "list", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and "Traceback" not in err
    assert rows[1]["result"] is None and rows[1]["players"] == []
    assert rows[2]["result"] == "lost in round 3" and rows[3]["result"] is not None
    journal, _ = Journal.open(tmp_path)
    try:
        assert backfill_journal(journal) == 2 and stale(journal.read) == [1]
    finally:
        journal.close()
    assert "Traceback" not in caplog.text


def test_a_summary_that_cannot_be_read_is_made_again(imported, capsys):
    conn = sqlite3.connect(imported / "journal.db")
    conn.execute("UPDATE summaries SET final = '{not json' WHERE game_id = 1")
    conn.commit()
    conn.close()
    code, out, _ = run(capsys, "history", "--state-dir", str(imported), "show", "1")
    assert code == 0 and json.loads(out)["final"]["winners"] == ["Dee"]  # rebuilt in memory
    assert run(capsys, "history", "--state-dir", str(imported), "export", "--format", "csv",
               "--out", "-")[0] == 0
    from companion.simulator.walk import run_steps

    box = SimBox(imported)
    try:
        assert box.app.play.journal.read("SELECT json_valid(final) FROM summaries WHERE game_id = 1"
                                    ) == [(1,)]  # the box's start made it again; break it anew
        box.app.play.journal.record((("UPDATE summaries SET final = '{not json' WHERE game_id = 1",
                                 ()),))
        run_steps(box, ("menu:History", *("DOWN",) * 4, "OK"))
        assert ("Cannot read this game", "") in box.screen.rows()
        assert box.app.errors == 0
    finally:
        box.close()


@pytest.mark.parametrize("players", ["Ann", [{"name": "Ann"}], ["Ann", "Bo"]])
def test_the_cafe_is_played_by_the_table_whatever_its_setup_holds(players):
    """The Café is cooperative and its rules define no players: one seat, the table."""
    from companion.records.store import summarise

    spec, actions = GAMES["cafe"], example("cafe")
    final = spec.rules.summary(spec.rules.replay(actions))
    made = summarise(spec, [{**actions[0], "players": players}, *actions[1:]], final)
    assert [s.name for s in made.seats] == ["Table"]


def test_a_file_that_is_not_a_journal_is_said_in_one_line(tmp_path):
    """In a process of its own, where the CLI's logging reaches standard error."""
    path = tmp_path / "journal.db"
    path.write_text("not a database\n")
    done = subprocess.run([sys.executable, "-m", "companion", "history", "--state-dir",
                           str(path), "list"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"companion history: {path} is not a journal this box can read"]


def test_a_game_that_does_not_replay_is_logged_in_one_line(tmp_path, caplog):
    path = tmp_path / "journal.db"
    make_old_journal(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE actions SET action = '{\"type\": \"zzz\"}' WHERE game_id = 3 AND seq = 2")
    conn.commit()
    conn.close()
    open_book(tmp_path).close()
    said = [r.getMessage() for r in caplog.records if "has no summary" in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("game 3 has no summary: ")
    assert "\n" not in said[0] and "Error(" not in said[0]


@pytest.mark.parametrize(("argv", "said"), [
    (["list", "--limit", "0"], "--limit: at least 1 game"),
    (["list", "--limit", "-1"], "--limit: at least 1 game"),
    (["import", "EXAMPLE", "--game", "cafe", "--minutes", "99999999999"], "--minutes: 0 to 10080"),
    (["import", "EXAMPLE", "--game", "cafe", "--minutes", "nan"], "--minutes: 0 to 10080"),
    (["import", "EXAMPLE", "--game", "cafe", "--minutes", "-1"], "--minutes: 0 to 10080"),
])
def test_history_numbers_out_of_bounds_are_refused(imported, capsys, argv, said):
    argv = [str(ROOT / "docs" / "examples" / EXAMPLES["cafe"]) if a == "EXAMPLE" else a
            for a in argv]
    code, out, err = run(capsys, "history", "--state-dir", str(imported), *argv)
    assert code == 2 and out == "" and said in err
    assert len(open_book(imported).games()) == 3  # nothing imported
