"""Pig installed beside the box: found through its entry point, it is on the home menu, plays,
journals, resumes after a power cut, undoes, and shows in History and Stats, on the phone's
Live page, in the exports, in ``companion doctor`` and in the screen walk. Nothing of the box
names it: all of it comes from its GameSpec."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from companion_pig import SPEC

from companion.cli import main
from companion.doctor.checks import FAIL, OK, check_config
from companion.games import box_config
from companion.games.catalog import GROUP
from companion.records.bgstats import to_bgsplay
from companion.records.export import to_csv, to_jsonl
from companion.records.history import open_book
from companion.records.store import import_game
from companion.screens.stats import StatsScreen
from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens, run_steps
from companion.ui.words import player_lines
from companion.web.live import live

HERE = Path(__file__).resolve().parent.parent
EXAMPLE = HERE / "pig_game.jsonl"


def example() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]


def start(box: SimBox) -> None:
    """From the home menu: Pig, then Start game (two players, to 100)."""
    run_steps(box, ("menu:Pig", "menu:Start"))


def test_the_box_finds_pig_through_its_entry_point(games):
    (entry,) = [e for e in entry_points(group=GROUP) if e.name == "pig"]
    assert entry.dist.name == "table-companion-pig" and entry.load() is SPEC
    assert games["pig"] is SPEC


def test_pig_is_on_the_home_menu_after_the_games_of_the_box(box):
    labels = [item.label for item in box.screen.items]
    assert "Pig" in labels and labels.index("Pig") < labels.index("History")


def test_pig_plays_and_journals_every_action(box):
    start(box)
    assert box.screen.name() == "PlayScreen"
    box.press("OK")
    box.press("OK")
    session = box.app.play.session
    assert [a["type"] for a in session.actions] == ["setup", "roll", "roll"]
    saved = box.app.play.journal.load(session.game_id)
    assert saved.game == "pig" and saved.actions == session.actions


def test_pig_resumes_after_a_power_cut(tmp_path):
    """The box is killed (SIGKILL: nothing closes) mid-game; the next start offers the game."""
    state = tmp_path / "state"
    script = textwrap.dedent(f"""
        import os, signal
        from companion.simulator.simbox import SimBox
        from companion.simulator.walk import run_steps
        box = SimBox({str(state)!r}, seed=5)
        run_steps(box, ("menu:Pig", "menu:Start", "OK", "OK", "ACTION", "OK"))
        print(len(box.app.play.session.actions), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == -signal.SIGKILL, done.stderr
    played = int(done.stdout.split()[-1])
    box = SimBox(state)
    try:
        assert box.screen.name() == "ResumeScreen" and "Pig" in box.screen.question
        box.press("OK")
        assert box.screen.name() == "PlayScreen"
        assert len(box.app.play.session.actions) == played
        assert box.app.play.session.state == SPEC.rules.replay(box.app.play.session.actions)
    finally:
        box.close()


def test_long_back_undoes_the_last_roll(box):
    start(box)
    box.press("OK")
    before = box.app.play.session.state
    box.press("OK")
    box.press("BACK", long=True)
    assert box.app.play.session.state == before and len(box.app.play.session.actions) == 2


def finished(box: SimBox) -> int:
    """The example game recorded in the box's journal; its id."""
    actions = example()
    game_id = import_game(box.app.play.journal, SPEC, actions, SPEC.rules.replay(actions), 1764500000.0, 600)
    box.app.stack.screens[0].on_enter()
    return game_id


def test_a_finished_game_shows_in_history_and_stats(box, tmp_path):
    finished(box)
    book = open_book(tmp_path / "state")
    try:
        (played,) = book.games()
        assert played.game == "pig" and played.headline == "Ana 105 – Ben 41 – Cai 21"
        assert ("Ana", 1) in book.players()
        lines = player_lines(book.player_record("Ana"), {"pig": SPEC.short})
        assert [(line.label, line.value) for line in lines[2:4]] == [("Pig", "1 game"),
                                                                       ("  won", "1 of 1 (100%)")]
        rows = SPEC.records.stats.lines(book.read)
        assert [line.label for line in rows if not line.label.startswith(" ")] == ["Ana", "Ben", "Cai"]
    finally:
        book.close()
    run_steps(box, ("menu:History",))
    assert any(item.label.endswith("Pig") for item in box.screen.items)
    stats = StatsScreen(box.app.table)
    stats.on_enter()
    assert "Pig: wins ▶" in [item.label for item in stats.items]


def test_the_live_page_lists_the_game_as_its_facts(box):
    from companion.web.board import board
    from companion.web.server import _environment

    start(box)
    box.press("OK")
    data = live(lambda sql, args=(): box.app.play.journal.read(sql, args))
    assert data["kind"] == "game" and data["template"] is None and data["title"] == "Pig"
    assert data["facts"]["Turn"] == "Player 1" and data["facts"]["Target"] == 100
    page = _environment().get_template("live_part.html").render(g=data, b=board(data))
    assert "<dt>Pot</dt>" in page and "<dt>Player 2</dt><dd>0</dd>" in page
    assert "cannot be shown" not in page
    assert any(label == "Pot" for label, _ in board(data)["facts"])   # the table view's board


def test_the_exports_carry_pig(box, tmp_path):
    game_id = finished(box)
    book = open_book(tmp_path / "state")
    try:
        rows = to_csv(book).splitlines()
        assert rows[1].startswith("1,Pig,") and ",Ana,105,1," in rows[1]
        bgstats = to_bgsplay(book)
        assert [game["name"] for game in bgstats["games"]] == ["Pig"]
        assert not bgstats["games"][0]["cooperative"]
        lines = to_jsonl(book, game_id).splitlines()
        assert lines[0].startswith("# Pig, game") and json.loads(lines[1]) == example()[0]
    finally:
        book.close()


def test_the_doctor_checks_pigs_config_section(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("[games.pig]\ntarget = 50\n")
    found, cfg = check_config(str(good))
    assert found.level == OK and cfg.games["pig"].target == 50
    bad = tmp_path / "bad.toml"
    bad.write_text("[games.pig]\ntarget = 7\n")
    found, cfg = check_config(str(bad))
    assert found.level == FAIL and "target" in found.detail and cfg is None
    assert "[games.pig]" in box_config.example_toml()


@pytest.mark.parametrize("name", sorted(f"pig-{name}" for name in SPEC.screens.walk))
def test_the_screen_walk_reaches_pigs_screens(name, tmp_path):
    box = SimBox(tmp_path / "state")
    try:
        run_steps(box, named_screens()[name])
        assert box.frame().getbbox() is not None
        assert box.app.errors == 0
    finally:
        box.close()


def test_companion_replay_pig_plays_the_example(capsys):
    assert main(["replay", "pig", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert '"winner": "Ana"' in out
