"""Crazy Café screens on a simulated box: titles, hints, words and text that fits the OLED."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from companion.box.stack import _wrap
from companion.commands.screenshot import render
from companion.contract.config import ConfigError
from companion.frame.canvas import WIDTH
from companion.frame.font import SMALL
from companion.games.crazy_cafe import SPEC, rules, screens, view
from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens, run_steps
from firmware_bridge.events import DiceSettled
from tests.test_screens import shown

CAFE_SCREENS = {name: steps for name, steps in named_screens().items() if name.startswith("cafe-")}
DT_MANUAL = ("Double", "Dice")  # Table dice come right after Box rolls without a sensor


def start_game(box, *choices: str, sensor: bool = False) -> None:
    box.app.sensor.configured = sensor
    run_steps(box, ("game:cafe", *[f"menu:{c}" for c in choices], "menu:Start"))


def state(box):
    return box.app.play.session.state


# ----- text fits ---------------------------------------------------------------------------

def test_dice_to_roll_after_an_order_fit_the_width(box, monkeypatch):
    """After an order that held all four sensor dice the timer says which to roll, uncut."""
    start_game(box, "Dice", sensor=True)
    box.press("OK")  # round 1 starts
    box.app.events.put(DiceSettled(("cake", "pizza", "water", "bill"), ()))
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
    """The title bar says where we are, with the short name of the title the home menu shows
    (short enough beside every status icon, issue 24)."""
    box = render(name, CAFE_SCREENS[name])
    try:
        assert box.screen.title.startswith("Café · ")
        assert SPEC.title == "Crazy Café" and SPEC.title.endswith("Café")
    finally:
        box.close()


def test_round_titles_name_the_round(box):
    """Round screens and TIME'S UP say which round."""
    start_game(box)
    assert box.screen.title == "Café · Round 1"
    box.press("OK")
    box.advance(181)
    assert isinstance(box.screen, screens.TimesUpScreen)
    assert box.screen.title == "Café · Round 1"
    box.press("OK")
    assert box.screen.title == "Café · Round 2"


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


# ----- dice as words, notices that wait, what confirms -------------------------------------------

def test_dice_are_words_that_fit(monkeypatch, box):
    """The 7-px pictures could not tell a burger from a donut: the dice strip names each face
    in words, and four of the longest still fit one line (shortened with a full stop then)."""
    words = {*view.FACE_LABELS.values(), *view.DIE_SHORT.values()}
    assert len(set(view.FACE_LABELS.values())) == len(view.FACE_LABELS)  # no two faces read alike
    longest = max(SMALL.width(view.DIE_SHORT.get(f, view.FACE_LABELS[f])) for f in rules.FACE_NAMES)
    assert 4 * longest + 2 + 3 * view.DIE_GAP_MIN <= WIDTH  # four words, the narrowest gaps
    start_game(box)
    drawn, cut = shown(box, monkeypatch)
    assert view.die_words(state(box)) == [t for t in drawn if t in words]
    assert cut == []


@pytest.mark.parametrize(("faces", "line"), [
    # issue 39: "Salad Salad  Coff Bill", "Salad Burg  Juice Bill" looked cut off
    (("salad", "salad", "coffee", "bill"), ["Salad", "Salad", "Coffee", "Bill"]),
    (("salad", "burger", "juice", "bill"), ["Salad", "Burger", "Juice", "Bill"]),
    # the widest roll of all: shortened, and each short form says so with its full stop
    (("burger", "burger", "coffee", "coffee"), ["Burg.", "Burg.", "Coff.", "Coffee"]),
    (("burger", "donut", "coffee", "water"), ["Burg.", "Donut", "Coffee", "Water"]),
])
def test_the_dice_line_spells_a_face_in_full_when_it_fits(box, monkeypatch, faces, line):
    """The dice strip reads as the "Which dice?" list spells the faces ("Coffee"), and a word
    shortened to fit ends in a full stop, so no word looks cut off."""
    start_game(box)
    box.press("OK")  # round 1 runs: the strip is on the timer
    monkeypatch.setattr(box.app.play.session, "state", dataclasses.replace(state(box), faces=faces))
    drawn, cut = shown(box, monkeypatch)
    assert [t for t in drawn if t in (*view.FACE_LABELS.values(), *view.DIE_SHORT.values())] == line
    assert cut == []


def test_double_trouble_notice_needs_its_own_ok(box):
    """◆ on the Double Trouble notice rerolled at once and flashed the notice past: now it
    only gives a soft beep; OK closes the notice."""
    start_game(box, "Double")
    box.press("OK")
    box.advance(3)
    box.press("ACTION")  # this seed's reroll shows a double (see the walk's double-trouble)
    assert isinstance(box.screen, screens.DoubleTroubleScreen)
    def table_actions():
        return [a for a in box.app.play.session.actions if a["type"] != "clock"]

    actions = table_actions()
    for long in (False, True):
        box.press("ACTION", long=long)
        assert isinstance(box.screen, screens.DoubleTroubleScreen)
        assert box.beeps()[-1] == "tick" and table_actions() == actions
    box.press("OK")
    assert box.screen is box.app.stack.game_root


def test_which_dice_confirmed_with_none_ticked_stays_with_the_reason(box, monkeypatch):
    """"Which dice on it?" confirmed with nothing ticked dropped back to the timer while the
    clock ran; it stays, and says why ("... and at least one dice!")."""
    start_game(box)
    box.press("OK")
    box.press("ACTION", long=True)
    assert isinstance(box.screen, screens.DicePickScreen) and not box.screen.picked
    box.press("ACTION")
    assert isinstance(box.screen, screens.DicePickScreen)
    assert state(box).rounds[0].fulfilled == 0 and box.beeps()[-1] == "error"
    drawn, _ = shown(box, monkeypatch)
    assert "Tick the dice on it:" in drawn
    box.press("OK")  # tick die 1
    box.press("ACTION")
    assert state(box).rounds[0].fulfilled == 1


def test_round_length_steps_by_thirty_seconds_from_one_to_ten_minutes(box):
    """The setup's Round row offered 2:00-5:00 only; now 1:00 to 10:00 in 30 s steps."""
    run_steps(box, ("game:cafe", "menu:Round"))
    seen = set()
    for button in ["DOWN"] * 6 + ["UP"] * 20:
        box.press(button)
        seen.add(box.screen.value)
    assert seen == set(range(60, 601, 30))
    box.press("DOWN")
    box.press("OK")  # 9:30
    assert box.screen.items[box.screen.selected].detail == "9:30"
    run_steps(box, ("menu:Start",))
    assert box.app.play.session.actions[0]["round_seconds"] == 570


@pytest.mark.parametrize("seconds, ok", [(59, False), (60, True), (600, True), (601, False)])
def test_config_round_length_range_is_the_box_range(seconds, ok):
    """[games.cafe] round_seconds keeps the range a setup action must keep (60..600)."""
    from companion.games import box_config

    if ok:
        assert box_config.parse({"games": {"cafe": {"round_seconds": seconds}}}).games["cafe"][
            "round_seconds"] == seconds
    else:
        with pytest.raises(ConfigError, match="between 60 and 600"):
            box_config.parse({"games": {"cafe": {"round_seconds": seconds}}})


def test_standing_double_setting_reaches_the_setup_action(tmp_path):
    from companion.games import box_config

    box = SimBox(tmp_path / "s", cfg=box_config.parse(
        {"games": {"cafe": {"standing_double": "every"}}}))
    try:
        start_game(box)
        assert state(box).setup.standing_double == "every"
    finally:
        box.close()


@pytest.mark.parametrize("left, words", [(1, "1 order left"), (12, "12 orders left")])
def test_orders_left_in_words(box, monkeypatch, left, words):
    """"12 order(s) left": the plural helper says it."""
    start_game(box)
    box.app.table.push(screens.TimesUpScreen(box.app.table, rules.RoundLog(3, laid_out=15, left=left)))
    drawn, _ = shown(box, monkeypatch)
    assert words in drawn


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
    assert state(box).phase == "ready" and len(box.app.play.session.actions) == 1
    drawn, _ = shown(box, monkeypatch)
    assert "Can't undo: setup" in drawn
    box.press("OK")
    assert state(box).phase == "running"


def test_a_saved_game_without_setup_resumes_at_the_setup(tmp_path):
    """A journal holding a Café game with no actions (its setup taken back by an older box)
    resumes at the setup screen, and Start sets up that same game."""
    first = SimBox(tmp_path / "s")
    game_id = first.app.play.journal.new_game("cafe")
    first.close()
    second = SimBox(tmp_path / "s")
    try:
        assert "setup" in second.screen.question
        second.press("OK")  # "Resume Crazy Café, setup?"
        assert isinstance(second.screen, screens.SetupScreen)
        run_steps(second, ("menu:Start",))
        assert second.app.play.session.game_id == game_id
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
        said = SPEC.rules.describe_action(action)
        assert said == words
        assert len(_wrap(f"Can't undo: {said}")) <= 2 and SMALL.width(said) <= WIDTH - 10


@pytest.mark.parametrize("action, words", [(a, w) for a, w in EVERY_KIND
                                           if not SPEC.rules.is_undoable(a)])
def test_what_stays_is_named_when_undo_is_refused(box, monkeypatch, action, words):
    """The setup, the rolls the table asked for, time up and the pause at power-up are final."""
    assert action["type"] in ("setup", "roll", "time_up", "pause")
    start_game(box)
    box.app.play.session.actions.append(action)  # the last action, as the journal would end
    box.press("BACK", long=True)
    drawn, _ = shown(box, monkeypatch)
    assert f"Can't undo: {words}" in " ".join(drawn)  # the toast may wrap it to two lines


def test_what_one_undo_takes_back():
    """An action and the steps the box adds after it are one step; a freed roll read after
    another action of the table is a step of its own."""
    done = {"type": "order_done", "side": "light", "dice": [0], "at": 5}
    freed = {"type": "roll", "kind": "freed", "faces": ["cake", None, None, None],
             "source": "sensor"}
    clock = {"type": "clock", "at": 9}
    place = {"type": "place", "die": 1, "placed": True}
    setup = {"type": "setup", "dice": "sensor"}
    assert SPEC.rules.last_step([setup, done, clock, freed, clock]) == (4, " and its reroll")
    assert SPEC.rules.last_step([setup, done, place, clock, freed]) == (1, "")
    assert SPEC.rules.is_undoable(freed)
    assert SPEC.rules.last_step([setup, place, clock, clock]) == (3, "")
    assert SPEC.rules.last_step([setup]) == (1, "")


# ----- issue 24: the ready screen keeps every line -------------------------------------------

@pytest.mark.parametrize(("choices", "sensor", "rounds_over", "expected"), [
    (("Special",), False, 0, ["Draw a round 1 menu", "The box rolled:"]),
    (("Special",), False, 1, ["Round 1: 5 set aside", "Draw a round 2 menu", "New dice at the start"]),
    (("Special",), False, 2, ["4 new + 11 set aside", "Draw a round 3 menu", "New dice at the start"]),
    (("Special", "Dice"), True, 0, ["Draw a round 1 menu", "Sensor offline"]),
])
def test_a_special_menu_hides_no_line_of_the_ready_screen(box, monkeypatch, choices, sensor,
                                                         rounds_over, expected):
    """Issue 24, item 3: "Before the start of each round, you draw a special menu": that line
    joins the setup roll, "New dice at the start" and "Sensor offline"; it replaces none."""
    start_game(box, *choices, sensor=sensor)
    for _ in range(rounds_over):
        box.press("OK")
        box.advance(181)
        box.press("OK")  # TIME'S UP closed
    drawn, cut = shown(box, monkeypatch)
    assert cut == []
    assert [line for line in drawn if line in expected] == expected


# ----- issue 24, item 12: the clock stays in sight, a reflexive OK does not pause ---------------

@pytest.mark.parametrize("name", ["cafe-table", "cafe-dice-pick", "cafe-double-trouble",
                                  "cafe-double-trouble-manual"])
def test_screens_over_a_running_round_show_the_time_left(name):
    """UX: "A running clock is never out of sight: every screen of a timed round shows the
    time left": the lists and notices over the timer carry it in their title, and it ticks."""
    box = render(name, CAFE_SCREENS[name])
    try:
        left = rules.time_left(state(box), box.clock.now())
        assert box.screen.title.startswith(view.mmss(left) + " ")
        box.advance(1.0)
        assert box.screen.title.startswith(view.mmss(left - 1) + " ")
    finally:
        box.close()


def test_the_ok_that_closes_double_trouble_does_not_pause_the_round(box):
    """A notice that asks the table to do something waits for OK; a second, reflexive OK a
    moment later must not stop the clock (the notice's OK and the timer's OK are apart)."""
    run_steps(box, CAFE_SCREENS["cafe-double-trouble"])
    assert isinstance(box.screen, screens.DoubleTroubleScreen)
    box.press("OK")
    box.press("OK")
    assert state(box).phase == "running" and box.screen is box.app.stack.game_root
    box.advance(1.0)
    box.press("OK")
    assert state(box).phase == "paused"


def test_paused_is_large(box, monkeypatch):
    """"PAUSED" is drawn in the large font, inverted, where the dice were."""
    from companion.frame.font import MEDIUM

    run_steps(box, CAFE_SCREENS["cafe-paused"])
    fonts: list = []
    draw = type(MEDIUM).draw

    def spy(self, image, xy, text, fill=255):
        if text == "PAUSED":
            fonts.append((self, fill))
        return draw(self, image, xy, text, fill)

    monkeypatch.setattr(type(MEDIUM), "draw", spy)
    box.app.panel.render()
    assert fonts == [(MEDIUM, 0)]


def test_a_round_that_ends_early_has_its_moment(box, monkeypatch):
    """Issue 24, item 15: "The round is over when ... all orders are fulfilled before the three
    minutes have expired": the last order done fills the screen with ALL DONE! and the time
    to spare until OK, as TIME'S UP does."""
    run_steps(box, CAFE_SCREENS["cafe-round-1-all-done"])
    assert isinstance(box.screen, screens.TimesUpScreen)
    drawn, cut = shown(box, monkeypatch)
    assert {"ALL DONE!", "with 2:52 to spare", "5 of 5 fulfilled"} <= set(drawn) and cut == []
    box.press("OK")
    assert box.screen is box.app.stack.game_root and state(box).round == 2


@pytest.mark.parametrize("rounds_over", [1, 2])
def test_the_ready_screen_says_once_what_its_ok_does(box, monkeypatch, rounds_over):
    """Issue 39: rounds 2 and 3 said "OK rolls all 4 dice" in the body and "OK start the
    timer" in the hint, though one OK does both: the hint alone names OK, with both, and the
    press does both."""
    start_game(box)
    for _ in range(rounds_over):
        box.press("OK")
        box.advance(181)
        box.press("OK")  # TIME'S UP closed
    drawn, cut = shown(box, monkeypatch)
    assert cut == []
    assert [line for line in drawn if line.startswith("OK")] == ["OK roll + start timer"]
    assert "New dice at the start" in drawn
    rolled = len([a for a in box.app.play.session.actions if a.get("kind") == "setup"])
    box.press("OK")
    assert state(box).phase == "running"
    assert len([a for a in box.app.play.session.actions if a.get("kind") == "setup"]) == rolled + 1
