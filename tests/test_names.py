"""Players' names with five buttons: the letter wheel, the pick list of recent and common names,
the roster kept in the journal across restarts, and Makan's setup that uses them."""

from __future__ import annotations

import re
import sqlite3

from companion.games import box_config
from companion.games.makan_mania.data import DRINKS_FILE
from companion.games.makan_mania.setup_screen import NamesScreen, SetupScreen
from companion.journal import schema
from companion.journal.journal import Journal
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from companion.ui.name_editor import NamePicker, NameWheel

SETUP = ("game:makan",)


def labels(screen) -> list[str]:
    return [item.label for item in screen.items]


def type_name(box: SimBox, name: str) -> None:
    """Turn the wheel to each letter by the shorter way round and take it with OK."""
    for letter in name:
        wheel = box.screen
        target = wheel.ring.index(letter)
        down = (target - wheel.index) % len(wheel.ring)
        steps = ("DOWN",) * down if down <= len(wheel.ring) // 2 else ("UP",) * (len(wheel.ring) - down)
        run_steps(box, (*steps, "OK"))


def names_of(box: SimBox) -> list[str]:
    return [p.name for p in box.app.play.session.state.players]


def test_a_typed_name_plays_and_is_offered_first_at_the_next_setup_after_a_restart(tmp_path):
    box = SimBox(tmp_path)
    run_steps(box, (*SETUP, "menu:Names", "OK", "UP"))
    assert box.screen.items[box.screen.selected].label == "New name…", "UP once from the top"
    run_steps(box, ("OK",))
    assert isinstance(box.screen, NameWheel) and box.screen.current == "A", "a capital first"
    type_name(box, "Zed")
    assert box.screen.letters == "Zed" and box.screen.current == "a", "then small letters"
    run_steps(box, ("ACTION",))
    assert isinstance(box.screen, NamesScreen)
    assert box.screen.items[0].detail == "Zed"
    run_steps(box, ("menu:Done", "menu:Start"))
    assert names_of(box) == ["Zed", "Ben", "Cai", "Dee"]
    box.close()

    box = SimBox(tmp_path)  # the box restarted: the roster comes from the journal
    assert box.app.table.games.roster_names()[:4] == ["Zed", "Ben", "Cai", "Dee"], "last game, seat order"
    run_steps(box, SETUP)
    assert box.screen.names() == ["Zed", "Ben", "Cai", "Dee"]
    run_steps(box, ("menu:Names", "OK"))
    assert labels(box.screen)[0] == "Zed"
    box.close()


def toast(box: SimBox) -> str:
    return " ".join(box.app.stack.toast_lines) if box.app.stack.toast_lines else ""


def test_a_recent_name_is_picked_and_a_duplicate_refused(tmp_path):
    box = SimBox(tmp_path)
    journal = box.app.play.journal
    journal.record_players(journal.new_game("makan"), ["Ivy", "Omar", "Rex"])
    run_steps(box, (*SETUP, "menu:Players", "DOWN", "DOWN", "OK"))
    assert box.screen.names() == ["Ivy", "Omar"], "the last players first"
    run_steps(box, ("menu:Names", "DOWN", "OK"))     # player 2's list
    picker = box.screen
    assert isinstance(picker, NamePicker)
    # The seat's own name, the other recent ones, common names; Ivy (player 1) last, marked.
    assert labels(picker)[:4] == ["Omar", "Rex", "Ana", "Ben"]
    assert labels(picker)[-2:] == ["Ivy", "New name…"] and picker.items[-2].detail == "taken"
    run_steps(box, ("DOWN", "OK"))
    assert isinstance(box.screen, NamesScreen) and box.screen.items[1].detail == "Rex"

    run_steps(box, ("OK", "UP", "UP", "OK"))     # Ivy again, for player 2
    assert isinstance(box.screen, NamePicker), "refused: the list stays"
    assert toast(box) == "Ivy plays already: pick another name" and box.beeps()[-1] == "error"
    run_steps(box, ("DOWN", "OK"))
    type_name(box, "ivy ")
    run_steps(box, ("ACTION",))
    assert isinstance(box.screen, NameWheel), "the same name in other letters is refused too"
    assert toast(box) == "ivy plays already: pick another name"
    run_steps(box, ("BACK", "BACK", "BACK", "BACK"))
    assert box.screen.letters == "" and box.screen.current == "i", "BACK deletes; the wheel stays"
    run_steps(box, ("BACK", "BACK", "menu:Done", "menu:Start"))
    assert names_of(box) == ["Ivy", "Rex"]
    box.close()


def test_the_wheel_repeats_while_held_and_stops_at_the_length_limit(tmp_path):
    box = SimBox(tmp_path, journal=False)
    assert box.app.table.games.roster_names() == []
    run_steps(box, (*SETUP, "menu:Names", "OK", "UP", "OK"))
    box.hold("DOWN", 1.0)   # one step as it goes down, then the repeats of the decoder
    assert box.screen.index >= 4, "a held DOWN turns the wheel on by itself"
    run_steps(box, ("OK",) * 10)
    wheel = box.screen
    assert len(wheel.letters) == 10 and wheel.ring == ("✓",), "ten letters, then only done"
    run_steps(box, ("DOWN", "OK"))
    assert isinstance(box.screen, NamesScreen) and len(box.screen.items[0].detail) == 10


def test_an_empty_name_is_refused_and_back_leaves_the_wheel(tmp_path):
    box = SimBox(tmp_path, journal=False)
    run_steps(box, (*SETUP, "menu:Names", "OK", "UP", "OK", "UP"))
    assert box.screen.current == "✓", "done is one UP from the first letter"
    run_steps(box, ("OK",))
    assert isinstance(box.screen, NameWheel) and toast(box).startswith("Type a letter first")
    run_steps(box, ("BACK",))
    assert isinstance(box.screen, NamePicker)


def test_the_setup_keeps_its_choices_when_the_table_backs_out(tmp_path):
    """"Makan forgets the player count if you back out" (issue 14, point 13)."""
    box = SimBox(tmp_path)
    run_steps(box, (*SETUP, "menu:Players", "UP", "OK", "menu:Drinks"))
    run_steps(box, ("BACK",))
    assert len(box.app.stack.screens) == 1, "back on the home menu"
    run_steps(box, SETUP)
    assert box.screen.count == 5
    assert [(i.label, i.detail) for i in box.screen.items[1:5]] == [
        ("Players:", "5"), ("Names:", "Ana Ben Cai +2"), ("Trays:", "file order"),
        ("Drinks:", "box deals")]


def test_box_deals_refuses_a_deck_too_small_at_setup(tmp_path):
    """Issue 13: a deck of single copies crashed in round 3; setup now refuses it with why."""
    path = tmp_path / "drinks.toml"
    path.write_text(re.sub(r"copies = \d+", "copies = 1", DRINKS_FILE.read_text(encoding="utf-8")),
                    encoding="utf-8")
    cfg = box_config.parse({"games": {"makan": {"drinks": str(path)}}})
    box = SimBox(tmp_path / "state", cfg)
    run_steps(box, (*SETUP, "menu:Drinks", "menu:Start"))
    assert isinstance(box.screen, SetupScreen) and box.app.play.session is None
    assert toast(box) == "Deck has 10 drinks, 25 needed (5 rounds)"
    assert box.beeps()[-1] == "error"
    run_steps(box, ("menu:Drinks", "menu:Start"))     # typed in by hand, the deck is not used
    assert box.app.play.session is not None


def _version_1_journal(tmp_path) -> None:
    """A journal as the release before the roster wrote it (user_version 1)."""
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.executescript(schema.SCHEMA_V0)
    for statement in schema.MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO games (game, started_at) VALUES ('makan', 1000.0)")
    conn.execute("INSERT INTO actions VALUES (1, 1, '{\"type\":\"setup\"}', 0, 1001.0)")
    conn.execute("INSERT INTO settings VALUES ('volume', '2')")
    conn.execute("INSERT INTO marks VALUES ('checkpoint', 'round 2')")
    conn.commit()
    conn.close()


def test_a_version_1_journal_migrates_with_nothing_lost(tmp_path):
    _version_1_journal(tmp_path)
    journal, _ = Journal.open(tmp_path)
    assert schema.version(journal._disk) == schema.VERSION >= 2
    assert journal.load(1).actions == [{"type": "setup"}]
    assert [(g.id, g.actions, g.last_at) for g in journal.saved_games()] == [(1, 1, 1001.0)]
    assert journal.settings() == {"volume": 2}
    assert journal._read("SELECT value FROM marks WHERE key = 'checkpoint'") == [("round 2",)]
    assert journal.roster() == []
    journal.record_players(1, ["Ana", "Ben"])
    assert journal.roster() == ["Ana", "Ben"]
    assert journal._read("SELECT game_id, seat, name FROM game_players JOIN players "
                         "ON players.id = player_id ORDER BY seat") == [(1, 0, "Ana"), (1, 1, "Ben")]


def test_the_roster_is_held_like_any_change_when_the_disk_is_full(tmp_path):
    journal, _ = Journal.open(tmp_path)
    game = journal.new_game("makan")
    journal.record_players(game, ["Ana", "Ben"])
    pages = journal._disk.execute("PRAGMA page_count").fetchone()[0]
    journal._disk.execute(f"PRAGMA max_page_count = {pages}")
    later = journal.new_game("makan")
    for n in range(200):   # names long enough to fill the capped file
        journal.record_players(later, [f"Player {n} " + "x" * 300, "Ben"])
        if not journal.status.ok:
            break
    assert not journal.status.ok, "the disk filled"
    assert journal.roster()[:2] == [f"Player {n} " + "x" * 300, "Ben"], "reads see what is held"
    journal._disk.execute("PRAGMA max_page_count = 100000")
    journal.retry()
    assert journal.status.ok
    journal.close()
    journal, _ = Journal.open(tmp_path)
    assert journal.roster()[:2] == [f"Player {n} " + "x" * 300, "Ben"]
    assert "Ana" in journal.roster()


def test_done_keeps_the_letter_the_wheel_was_turned_to(tmp_path):
    """Issue 24, item 6: "Ma" taken, the wheel turned to x, ◆ done: the name is "Max" as
    shown, not "Ma". An untouched slot (just after OK took a letter) adds nothing."""
    box = SimBox(tmp_path, journal=False)
    run_steps(box, (*SETUP, "menu:Names", "OK", "UP", "OK"))
    type_name(box, "Ma")
    wheel = box.screen
    run_steps(box, ("DOWN",) * (wheel.ring.index("x") - wheel.index))
    assert wheel.typed == "Max"
    run_steps(box, ("ACTION",))
    assert isinstance(box.screen, NamesScreen) and box.screen.items[0].detail == "Max"
    run_steps(box, ("OK", "UP", "OK"))
    type_name(box, "Max")
    assert box.screen.typed == "Max"   # the next slot is untouched
    run_steps(box, ("ACTION",))
    assert box.screen.items[0].detail == "Max"
