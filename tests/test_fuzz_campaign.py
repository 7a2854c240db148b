"""The fuzz campaign's own machinery: the button walk sees what it must, each invariant check
fails on a planted fault, and ``bench/fuzz.py`` exits non-zero when a zero-aim figure is not 0.

The campaign's figures themselves come from ``python bench/fuzz.py`` (CI runs ``--quick``).
"""

from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path

import pytest
from PIL import Image

from companion.simulator.walk import run_steps

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_module(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    return importlib.import_module(name)


@pytest.fixture
def walker(tmp_path):
    walker = bench_module("fuzz_buttons").Walker(random.Random(7))
    walker.open(tmp_path / "box")
    yield walker
    walker.close()


def started(walker, game: str = "miams"):
    run_steps(walker.box, (f"game:{game}", "menu:Start", "ACTION"))
    walker.check()
    assert walker.box.app.play.session.spec.key == game and not walker.breaks
    return walker.box.app


@pytest.mark.slow
def test_a_short_walk_drives_edges_through_games_of_each_kind(walker):
    """Raw edges on the mock pins (bounce and chords included) reach the loop and start
    games; a healthy box breaks no invariant on a fresh walk through the Miams setup."""
    walker.episode(("menu:Miams",), 120)
    assert walker.edges >= 400 and walker.gestures == 122
    assert walker.games_started["miams"] >= 1
    assert walker.exceptions == 0 and walker.max_queue >= 2  # bounce reaches the queue


def test_a_state_that_is_not_the_replay_of_its_actions_is_a_break(walker):
    app = started(walker)
    app.play.session.state = app.play.session.spec.rules.initial_state()
    app.play.session.actions.append({"type": "player", "crosses": 0})  # so the check runs again
    walker.check()
    assert walker.breaks["replay"] == 1


def test_a_journal_that_lost_an_action_is_a_break(walker):
    app = started(walker)
    app.play.journal.pop_last(app.play.session.game_id)
    app.play.session.actions.append(app.play.session.actions.pop())  # the same actions, seen afresh
    walker._checked = ()
    walker.check()
    assert walker.breaks["journal"] == 1


def test_a_blank_frame_while_awake_is_a_break(walker, monkeypatch):
    monkeypatch.setattr(walker.box, "frame", lambda: Image.new("1", (128, 64)))
    walker.check()
    assert walker.breaks["blank"] == 1


def test_text_cut_to_fit_is_a_break(walker):
    with walker.watching_text():
        walker.box.app.stack.toast("W" * 60)
        walker.box.app.panel.render()
    walker.check()
    assert walker.breaks["cut_text"] == 1 and "cut_text on HomeScreen" in walker.examples[0]


def test_a_queue_that_grows_is_a_break(walker):
    for _ in range(100):
        walker.box.app.events.put(object())
    walker.check()
    assert walker.breaks["queue"] == 1


def test_a_recovered_exception_is_counted(walker):
    walker.box.app.errors += 1
    walker.check()
    assert walker.exceptions == 1


@pytest.mark.parametrize(("figures", "status"), [
    ({"sensor_exceptions": 0, "invariant_breaks": 0, "button_exceptions": 0}, 0),
    ({"sensor_exceptions": 0, "invariant_breaks": 2}, 1),
    ({"replay_tracebacks": 1}, 1),
    ({"bad_file_tracebacks": 0, "sensor_false_faces": 1}, 1),
    ({"flood_rss_growth_mb": 3.2}, 0),  # not a zero aim
])
def test_the_campaign_fails_when_a_zero_aim_is_missed(monkeypatch, capsys, figures, status):
    fuzz = bench_module("fuzz")
    monkeypatch.setattr(fuzz, "run", lambda names, quick: {"quick": quick, **figures})
    assert fuzz.main(["--quick", "--json"]) == status
    err = capsys.readouterr().err
    assert ("aim 0 missed" in err) == bool(status)


def test_the_text_section_reports_the_long_name_frame():
    figures = bench_module("fuzz_text").run(quick=True)
    assert set(figures) == {"max_frame_ms_long_text"} and figures["max_frame_ms_long_text"] > 0
