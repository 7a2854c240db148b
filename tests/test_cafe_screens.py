"""Crazy Café screens on a simulated box: titles, hints, words and text that fits the OLED."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.commands.screenshot import render
from companion.games.crazy_cafe import SPEC, rules, screens
from companion.simbox import SimBox
from companion.stack import _wrap
from companion.ui.canvas import WIDTH
from companion.ui.font import SMALL, BitmapFont
from companion.walk import named_screens, run_steps
from firmware_bridge.events import DiceSettled

CAFE_SCREENS = {name: steps for name, steps in named_screens().items() if name.startswith("cafe-")}
DT_MANUAL = ("Double", "Dice")  # Table dice come right after Box rolls without a sensor


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
        box.app.render()
    return drawn, cut


def start_game(box, *choices: str, sensor: bool = False) -> None:
    box.app.sensor.configured = sensor
    run_steps(box, ("game:cafe", *[f"menu:{c}" for c in choices], "menu:Start"))


def state(box):
    return box.app.session.state


# ----- text fits ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CAFE_SCREENS))
def test_no_text_is_cut_on_a_named_screen(name, monkeypatch):
    """Every title, body line and hint of the Café's named screens fits as written."""
    box = render(name, CAFE_SCREENS[name])
    try:
        drawn, cut = shown(box, monkeypatch)
        assert drawn and cut == []
    finally:
        box.close()


def test_dice_to_roll_after_an_order_fit_the_width(box, monkeypatch):
    """After an order that held all four sensor dice the timer says which to roll, uncut."""
    start_game(box, "Dice", sensor=True)
    box.press("OK")  # round 1 starts
    box.app.post(DiceSettled(("cake", "pizza", "water", "bill"), ()))
    box.app.pump()
    box.press("ACTION")  # order done: which dice were on it?
    for _ in range(4):
        box.press("OK")  # tick
        box.press("DOWN")
    box.press("ACTION")
    assert state(box).to_roll == (0, 1, 2, 3)
    drawn, cut = shown(box, monkeypatch)
    assert "Roll dice 1 2 3 4" in drawn and cut == []


def test_every_refusal_fits_two_lines_of_the_screen():
    """Refusals are read on the OLED: every RuleError message of the engine, with its
    placeholders filled by the longest values they can take, wraps to at most two lines."""
    source = Path(rules.__file__).read_text(encoding="utf-8")
    messages = re.findall(r'RuleError\(f?"((?:[^"\\]|\\.)*)"\)', source)
    assert len(messages) >= 25
    longest = {"index + 1": "4", "KINDS[index]": "yellow", "face!r": "'milkshake'",
               "kind!r": "'abcdefghijkl'", "side": "light", "what": "fulfilled",
               "math.ceil(state.deadline - at)": "1800",
               "key.replace('_', ' ').capitalize()": "Double trouble", "low": "60",
               "high": "600"}
    for message in messages:
        text = re.sub(r"\{([^}]*)\}", lambda m: longest[m.group(1)], message).replace("\\n", "\n")
        assert len(_wrap(text)) <= 2, text


# ----- titles and hints ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cafe-setup", "cafe-ready", "cafe-timer", "cafe-paused",
                                  "cafe-times-up", "cafe-round-2", "cafe-result"])
def test_game_screens_carry_the_spec_title(name):
    """The title bar says where we are, with the title the home menu shows."""
    box = render(name, CAFE_SCREENS[name])
    try:
        assert box.screen.title.startswith(f"{SPEC.title} · ")
        assert SPEC.title == "Crazy Café"
    finally:
        box.close()


def test_round_titles_name_the_round(box):
    """Round screens and TIME'S UP say which round."""
    start_game(box)
    assert box.screen.title == "Crazy Café · Round 1"
    box.press("OK")
    box.advance(181)
    assert isinstance(box.screen, screens.TimesUpScreen)
    assert box.screen.title == "Crazy Café · Round 1"
    box.press("OK")
    assert box.screen.title == "Crazy Café · Round 2"


@pytest.mark.parametrize("choices, sensor, verb", [
    ((), False, "roll"),
    (("Dice",), True, "done"),
    (("Dice",), False, "done"),
    (DT_MANUAL, False, "double"),
])
def test_timer_hint_reads_the_same_in_every_dice_mode(box, choices, sensor, verb):
    """One hint pattern in every mode: what ACTION does, OK pauses, ▼ opens the list."""
    start_game(box, *choices, sensor=sensor)
    box.press("OK")
    assert box.screen.hint == f"◆{verb} OK pause ▼list"
    assert SMALL.width(box.screen.hint) <= WIDTH - 2


def test_order_done_is_in_the_list_in_every_mode(box):
    """Box dice: short ACTION rolls, so "order done" must be reachable from the ▼ list too."""
    start_game(box)
    box.press("OK")
    box.press("UP")  # opens the list
    assert isinstance(box.screen, screens.TableScreen)
    box.press("UP")  # the list wraps: UP from the top is its last item
    assert box.screen.items[box.screen.selected].label == "Order done"
    box.press("OK")
    assert isinstance(box.screen, screens.DicePickScreen)


# ----- ready screen, sensor, setup ---------------------------------------------------------

def test_action_on_the_round_ready_screen_says_ok_starts(box, monkeypatch):
    """ACTION before the round does not pass silently: it says which button starts."""
    start_game(box)
    box.press("ACTION")
    assert state(box).phase == "ready"
    assert box.beeps()[-1] == "error"
    drawn, _ = shown(box, monkeypatch)
    assert "OK starts the timer" in drawn


def _dice_choices(box) -> list[str]:
    run_steps(box, ("game:cafe",))
    seen = []
    for _ in range(4):
        run_steps(box, ("menu:Dice",))
        seen.append(box.screen.items[box.screen.selected].detail)
    return seen


def test_sensor_dice_offered_only_with_a_sensor(box):
    """Without a configured sensor the Dice choice cycles Box rolls / Table dice only."""
    assert not box.app.sensor.configured
    assert _dice_choices(box) == ["Table dice", "Box rolls", "Table dice", "Box rolls"]


def test_sensor_dice_offered_with_a_sensor(box):
    box.app.sensor.configured = True
    assert _dice_choices(box) == ["Sensor", "Table dice", "Box rolls", "Sensor"]


def test_timer_says_when_the_sensor_is_offline(box, monkeypatch):
    """Sensor dice with the sensor gone: the round screens say so in words, not just ⊘."""
    start_game(box, "Dice", sensor=True)
    drawn, _ = shown(box, monkeypatch)
    assert "Sensor offline" in drawn  # before the round: the setup roll cannot be read
    box.press("OK")
    drawn, cut = shown(box, monkeypatch)
    assert "Sensor offline" in drawn and cut == []
    box.app.sensor.online = True
    drawn, _ = shown(box, monkeypatch)
    assert "Sensor offline" not in drawn


def test_setup_cannot_be_undone(box, monkeypatch):
    """Hold BACK right after Start (table dice, so no roll lies on top): the setup stays, the
    box says why, and the round starts normally."""
    start_game(box, "Dice")
    assert state(box).setup.dice == "manual"
    box.press("BACK", long=True)
    assert state(box).phase == "ready" and len(box.app.session.actions) == 1
    drawn, _ = shown(box, monkeypatch)
    assert "Can't undo: setup" in drawn
    box.press("OK")
    assert state(box).phase == "running"


def test_a_saved_game_without_setup_resumes_at_the_setup(tmp_path):
    """A journal holding a Café game with no actions (its setup taken back by an older box)
    resumes at the setup screen, and Start sets up that same game."""
    first = SimBox(tmp_path / "s")
    game_id = first.app.journal.new_game("cafe")
    first.close()
    second = SimBox(tmp_path / "s")
    try:
        assert "setup" in second.screen.question
        second.press("OK")  # "Resume Crazy Café, setup?"
        assert isinstance(second.screen, screens.SetupScreen)
        run_steps(second, ("menu:Start",))
        assert second.app.session.game_id == game_id
        assert isinstance(second.screen, screens.CafeScreen) and state(second).phase == "ready"
    finally:
        second.close()


# ----- words for undo ------------------------------------------------------------------------

EVERY_KIND = [
    ({"type": "setup", "dice": "box"}, "setup"),
    ({"type": "roll", "kind": "setup", "faces": [], "source": "box"}, "box roll"),
    ({"type": "roll", "kind": "reroll", "faces": [], "source": "box"}, "box reroll"),
    ({"type": "roll", "kind": "freed", "faces": [], "source": "sensor"}, "sensor freed roll"),
    ({"type": "double"}, "the double"),
    ({"type": "place", "die": 2, "placed": True}, "die 3 placed"),
    ({"type": "place", "die": 0, "placed": False}, "die 1 freed"),
    ({"type": "round_start", "at": 1}, "round start"),
    ({"type": "pause", "at": 1}, "pause"),
    ({"type": "pause", "left": 80}, "power cut"),
    ({"type": "clock", "at": 1}, "clock reading"),
    ({"type": "resume", "at": 1}, "resume"),
    ({"type": "order_done", "side": "dark", "at": 1}, "dark order done"),
    ({"type": "add_order", "side": "light"}, "+1 light order"),
    ({"type": "remove_order", "side": "dark"}, "-1 dark order"),
    ({"type": "time_up", "at": 1}, "time up"),
]


def test_every_action_kind_has_short_words():
    """Each action of the vocabulary gets its own words, with no internal names."""
    kinds = {action["type"] for action, _ in EVERY_KIND}
    assert kinds == set(rules._HANDLERS)
    for action, words in EVERY_KIND:
        said = SPEC.describe_action(action)
        assert said == words
        assert len(_wrap(f"Can't undo: {said}")) <= 2 and SMALL.width(said) <= WIDTH - 10


@pytest.mark.parametrize("action, words", [(a, w) for a, w in EVERY_KIND
                                           if not SPEC.is_undoable(a)])
def test_what_stays_is_named_when_undo_is_refused(box, monkeypatch, action, words):
    """The setup, the rolls the table asked for, time up and the pause at power-up are final."""
    assert action["type"] in ("setup", "roll", "time_up", "pause")
    start_game(box)
    box.app.session.actions.append(action)  # the last action, as the journal would end
    box.press("BACK", long=True)
    drawn, _ = shown(box, monkeypatch)
    assert f"Can't undo: {words}" in " ".join(drawn)  # the toast may wrap it to two lines
