"""The Table a game's screen gets stays a few operations, each one idea (issue: a game is one
folder): the stack's moves, the games, act and say, and the box's clock, dice, config and
sensor. A new member is a decision, made here."""

from __future__ import annotations

from companion.contract.spec import BoxTable, Games, Place, Table
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from companion.ui.widgets import MessageScreen
from tests.counter_game import SPEC


def members(protocol: type) -> set[str]:
    own = set()
    for klass in protocol.__mro__:
        if klass.__name__ in {"Protocol", "Generic", "object"}:
            continue
        own |= {name for name in vars(klass) if not name.startswith("_")}
    return own


def test_a_screen_sees_fourteen_members():
    assert members(Table) == {
        "dispatch", "refuse", "toast", "beep",                # act and say
        "push", "pop", "pop_to", "on_top",                     # move between screens
        "games",                                               # start, resume, the session
        "clock", "rng", "config", "sensor", "state_dir",       # what the box has
    }


def test_the_games_hold_starting_and_the_session():
    assert members(Games) == {"specs", "session", "start", "resume", "shown", "roster_names"}


def test_pop_to_goes_back_to_the_game_or_home_and_the_game_stays(tmp_path, monkeypatch):
    monkeypatch.setitem(GAMES, SPEC.key, SPEC)
    box = SimBox(tmp_path)
    try:
        app = box.app
        assert app.table.games.start(SPEC.key)
        root = app.stack.screens[-1]
        app.table.push(MessageScreen(app.table, "Menu", ["a menu left open"]))
        app.table.push(MessageScreen(app.table, "Question", ["and a question over it"]))
        app.table.pop_to(Place.GAME)
        assert app.stack.screens[-1] is root and app.table.games.shown()
        app.table.push(MessageScreen(app.table, "Menu", ["again"]))
        app.table.pop_to(Place.HOME)
        assert len(app.stack.screens) == 1 and not app.table.games.shown()
        assert app.table.games.session is not None  # a running game stays saved
    finally:
        box.close()


def test_the_box_screens_add_only_the_box_own_things():
    assert members(BoxTable) - members(Table) == {
        "settings", "stack", "journal_ok", "saved_games", "discard", "journal_health",
        "journal_saved_words", "change_setting", "saved_settings", "dice"}
