"""The screen walk: every named screen is reached without an exception, matches its golden
PNG and shows every text uncut (PiFinder's pattern: the whole app runs headless on fake
hardware)."""

from __future__ import annotations

import random
from contextlib import contextmanager

import pytest

from companion.commands.screenshot import render
from companion.contract.names import MAX_LETTERS
from companion.frame.font import BitmapFont
from companion.games.catalog import GAMES
from companion.simulator.walk import named_screens, run_steps
from tests.conftest import assert_golden

SCREENS = named_screens()
@pytest.mark.parametrize("name", sorted(SCREENS))
def test_named_screen_matches_golden(name):
    box = render(name, SCREENS[name])
    try:
        assert box.app.running
        assert box.app.errors == 0
        assert_golden(box.frame(), name)
    finally:
        box.close()


@contextmanager
def spying(monkeypatch):
    """Record every text drawn and every text cut to fit while the box renders a frame."""
    drawn: list[str] = []
    cut: list[str] = []
    draw, fit = BitmapFont.draw, BitmapFont.fit

    def spy_draw(self, image, xy, text, fill=255):
        drawn.append(text)
        return draw(self, image, xy, text, fill)

    def spy_fit(self, text, width):
        out = fit(self, text, width)
        if out != text:
            cut.append(text)
        return out

    with monkeypatch.context() as patch:
        patch.setattr(BitmapFont, "draw", spy_draw)
        patch.setattr(BitmapFont, "fit", spy_fit)
        yield drawn, cut


def shown(box, monkeypatch) -> tuple[list[str], list[str]]:
    """The texts of the current frame, and those that had to be cut."""
    with spying(monkeypatch) as (drawn, cut):
        box.app.panel.render()
    return drawn, cut


@pytest.mark.parametrize("name", sorted(SCREENS))
@pytest.mark.slow
def test_no_text_is_cut_on_a_named_screen(name, monkeypatch):
    """Every title, body line and hint of every named screen fits at 1:1 as written."""
    box = render(name, SCREENS[name])
    try:
        drawn, cut = shown(box, monkeypatch)
        assert drawn and cut == []
    finally:
        box.close()


def longest(name: str) -> str:
    """A name as long as the wheel allows, in the widest letters, with its first letters kept
    (so a walk's "menu:Ana" still finds "Anawwwwwww")."""
    return (name + "w" * MAX_LETTERS)[:MAX_LETTERS]


def renamed(actions):
    """The same game with every player's name at its longest."""
    out = []
    for action in actions:
        players = action.get("players")
        if isinstance(players, list):
            action = {**action, "players": [{**p, "name": longest(p["name"])} for p in players]}
        out.append(action)
    return out


@pytest.mark.parametrize("name", sorted(SCREENS))
@pytest.mark.slow
def test_no_text_is_cut_with_every_icon_and_the_longest_names(name, monkeypatch):
    """Issue 24, item 7 (UX: "The words that matter are never cut ... every screen is checked
    with every icon showing and the longest names allowed"): the sensor configured and
    offline, the sound muted and the journal off, every player named with ten wide letters."""
    from companion.box.panel import Health
    from companion.games.makan_mania import setup_screen
    from companion.simulator import walk

    monkeypatch.setattr(setup_screen, "COMMON_NAMES", tuple(map(longest, setup_screen.COMMON_NAMES)))
    seed = walk.import_game
    monkeypatch.setattr(walk, "import_game", lambda journal, spec, actions, final, *rest: seed(
        journal, spec, renamed(actions), spec.rules.replay(renamed(actions)), *rest))
    # Its own state directory: another test file may render the same screen at the same time.
    box = render(f"longest/{name}", SCREENS[name])
    try:
        # After the walk, so that its steps mean what they say (a sensor adds a Café choice).
        box.app.sensor.configured = True
        box.app.panel.tell(Health("sensor", ok=False))   # the link says it is offline
        box.app.panel.tell(Health("journal", ok=False))  # and the journal that it is off
        box.app.settings.values["volume"] = 0
        assert box.app.panel.status_icons() == "⊘🔇⚠"
        drawn, cut = shown(box, monkeypatch)
        assert drawn and cut == []
    finally:
        box.close()


def random_presses(box, rng: random.Random, count: int) -> None:
    """Short, long and held presses at random, with the odd stall of the loop."""
    buttons = ["UP", "DOWN", "OK", "BACK", "ACTION"]
    for _ in range(count):
        button = rng.choice(buttons)
        roll = rng.random()
        if roll < 0.1:
            box.press(button, long=True)
        elif roll < 0.15:
            box.hold(button, rng.uniform(0.1, 2.5))
        else:
            box.press(button)
        if rng.random() < 0.02:
            box.jump(rng.uniform(1, 200))


@pytest.mark.slow
def test_monkey_presses_never_break_the_box(box):
    """Random presses from the home menu across every screen: no exception, always a screen."""
    random_presses(box, random.Random(1234), 1000)
    assert box.app.errors == 0, "a press raised inside the box (see the log)"
    assert box.app.stack.screens, "the box lost its screen stack"
    assert box.frame().size == (128, 64)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.slow
def test_monkey_presses_inside_each_game(box, game, seed):
    """Random presses starting at a game's setup reach its options, undo and resume paths."""
    run_steps(box, (f"game:{game}",))
    random_presses(box, random.Random(seed), 350)
    assert box.app.errors == 0, f"a press raised inside {game} (see the log)"
