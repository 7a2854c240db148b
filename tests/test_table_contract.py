"""The Table a game's screen gets stays a few operations, each one idea (issue: a game is one
folder): the stack's moves, the games, act and say, and the box's clock, dice, config and
sensor. A new member is a decision, made here."""

from __future__ import annotations

from companion.contract.spec import BoxTable, Games, Place, Table


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


def test_pop_to_goes_to_a_screen_the_game_or_home():
    assert {place.name for place in Place} == {"GAME", "HOME"}


def test_the_box_screens_add_only_the_box_own_things():
    assert members(BoxTable) - members(Table) == {
        "settings", "stack", "journal_ok", "saved_games", "discard", "journal_health",
        "journal_saved_words", "change_setting", "saved_settings"}
