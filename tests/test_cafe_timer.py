"""Crazy Café on a simulated box with the virtual clock: whole rounds in milliseconds."""

from __future__ import annotations

import itertools
import shutil

import pytest

from companion.games.crazy_cafe import screens
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps
from firmware_bridge.events import DiceSettled

STEP = 0.05  # SimBox.advance moves the clock in steps of this size


def start_game(box, *choices: str, sensor: bool = False) -> None:
    """Open the setup, make ``choices`` (menu labels), start the game and the round.

    Dice cycles Box rolls, Sensor (only with a configured sensor), Table dice.
    """
    box.app.sensor.configured = sensor
    run_steps(box, ("game:cafe", *[f"menu:{c}" for c in choices], "menu:Start", "OK"))


def state(box):
    return box.app.play.session.state


def played(box, pattern=None, since=0.0):
    return [(t, p) for t, p in box.app.hardware.buzzer.played
            if (pattern is None or p == pattern) and t >= since]


def toast(box) -> str:
    """The toast on screen now, its lines joined."""
    return " ".join(box.app.stack.toast_lines) if box.app.stack.toast_lines else ""


def assert_at(times, expected):
    """Each cue fired at its instant, or within one loop step after it (never before)."""
    assert len(times) == len(expected), (times, expected)
    for got, want in zip(times, expected, strict=True):
        assert want - 1e-9 <= got <= want + STEP + 1e-9, (got, want)


def test_warnings_ticks_and_alarm_at_the_right_instants(box):
    """Warnings at 1:00 and 0:30, a tick each second from 0:10, the alarm at 0:00."""
    start_game(box)
    deadline = state(box).deadline
    since = box.clock.now()
    assert deadline == pytest.approx(since + 180, abs=0.2)
    box.advance(181)
    assert_at([t for t, _ in played(box, "warn", since)], [deadline - 60, deadline - 30])
    assert_at([t for t, _ in played(box, "tick", since)], [deadline - s for s in range(10, 0, -1)])
    assert_at([t for t, _ in played(box, "alarm", since)], [deadline])
    assert isinstance(box.screen, screens.TimesUpScreen)
    assert state(box).round == 2 and state(box).carried == 5


def test_round_length_from_config(tmp_path):
    """[games.cafe] round_seconds sets the default length offered at setup."""
    from companion.games import box_config as config

    box = SimBox(tmp_path / "s", cfg=config.parse({"games": {"cafe": {"round_seconds": 120}}}))
    try:
        start_game(box)
        assert state(box).deadline - box.clock.now() == pytest.approx(120, abs=0.2)
    finally:
        box.close()


def test_pause_shifts_every_cue(box):
    """OK pauses and resumes; the deadline moves by the length of the pause."""
    start_game(box)
    first_deadline = state(box).deadline
    box.advance(100)
    box.press("OK")
    assert state(box).phase == "paused"
    shown = box.app.panel.last_frame.copy()
    box.advance(20)
    assert box.app.panel.last_frame.tobytes() == shown.tobytes()  # a paused clock stands still
    box.press("OK")
    deadline = state(box).deadline
    paused_at, resumed_at = (a["at"] for a in box.app.play.session.actions[-2:])
    assert deadline - first_deadline == pytest.approx(resumed_at - paused_at)
    assert resumed_at - paused_at >= 20
    since = box.clock.now()
    box.advance(deadline - since + 1)
    assert_at([t for t, _ in played(box, "warn", since)], [deadline - 60, deadline - 30])
    assert_at([t for t, _ in played(box, "alarm", since)], [deadline])


def test_stall_does_not_shift_the_end_and_ticks_do_not_pile_up(box):
    """A 2-second stall of the loop: the screen shows the true time, one tick (not three)
    plays, and the alarm still sounds at the deadline."""
    start_game(box)
    deadline = state(box).deadline
    box.advance(deadline - box.clock.now() - 6.5)  # 0:06.5 left
    ticks_before = len(played(box, "tick"))
    box.jump(2)  # the loop was stuck through the 0:06 and 0:05 ticks
    assert len(played(box, "tick")) == ticks_before + 1
    assert isinstance(box.screen, screens.CafeScreen)
    left = deadline - box.clock.now()
    assert screens.mmss(left) == "0:05"
    assert box.app.panel.last_frame.tobytes() == _frame_showing(box, "0:05")
    since = box.clock.now()
    box.advance(6)
    assert_at([t for t, _ in played(box, "alarm", since)], [deadline])


def _frame_showing(box, text):
    """The current frame's bytes, after checking the big timer shows ``text``."""
    from PIL import Image

    from companion.frame.font import LARGE

    expected = Image.new("1", (LARGE.width(text), LARGE.height))
    LARGE.draw(expected, (0, 0), text)
    frame = box.app.panel.last_frame
    crop = frame.crop((1, 11, 1 + expected.width, 11 + expected.height))
    assert crop.tobytes() == expected.tobytes(), f"timer does not show {text}"
    return frame.tobytes()


def test_long_stall_over_the_deadline_sounds_only_the_alarm(box):
    """Missed cues never add up: after a stall across the end only the alarm sounds."""
    start_game(box)
    deadline = state(box).deadline
    box.advance(deadline - box.clock.now() - 12)
    count = len(played(box))
    box.jump(15)
    assert [p for _, p in played(box)[count:]] == ["alarm"]
    assert state(box).rounds[0].ended == "time up"


def test_times_up_screen_stays_until_ok_and_timer_keeps_screen_awake(tmp_path):
    """"TIME'S UP" fills the screen until OK; a running timer never dims."""
    from companion.games import box_config as config

    cfg = config.parse({"display": {"dim_after_min": 1, "blank_after_min": 2}})
    box = SimBox(tmp_path / "s", cfg=cfg)
    try:
        start_game(box)
        box.advance(170)
        assert box.app.panel.idle_state == "awake"
        box.advance(11)
        box.advance(30)
        assert isinstance(box.screen, screens.TimesUpScreen)
        box.press("OK")
        assert isinstance(box.screen, screens.CafeScreen) and state(box).phase == "ready"
    finally:
        box.close()


def test_box_dice_reroll_place_and_order_done(box):
    """Box dice: ACTION rolls the free dice, placed dice stay, an order frees and rerolls its
    die with no Double Trouble check."""
    start_game(box, "Double")
    box.press("DOWN")
    assert isinstance(box.screen, screens.TableScreen)
    box.press("OK")  # die 1 goes on an order
    assert state(box).placed == (True, False, False, False)
    box.press("BACK")
    face_1 = state(box).faces[0]
    for _ in range(5):
        box.press("ACTION")
        if isinstance(box.screen, screens.DoubleTroubleScreen):
            box.press("OK")
        assert state(box).faces[0] == face_1
    actions = box.app.play.session.actions
    assert [a["kind"] for a in actions if a["type"] == "roll"] == ["reroll"] * 5
    flips = sum(1 for a in actions if a["type"] == "roll" and len(set(a["faces"])) < 4)
    assert state(box).dark == flips
    box.press("ACTION", long=True)
    if isinstance(box.screen, screens.ChoiceScreen):
        box.press("OK")
    assert isinstance(box.screen, screens.DicePickScreen)
    box.press("ACTION")  # die 1, the only placed die, is ticked already
    assert state(box).rounds[0].fulfilled == 1
    assert box.app.play.session.actions[-1]["kind"] == "freed"
    assert state(box).placed == (False,) * 4 and state(box).to_roll == ()


def test_manual_double_and_undo(box):
    """Table dice with Double Trouble: ACTION reports a double and the box says what to do;
    hold BACK takes it back."""
    start_game(box, "Double", "Dice")
    assert state(box).setup.dice == "manual"
    box.press("ACTION")
    assert isinstance(box.screen, screens.DoubleTroubleScreen)
    assert (state(box).light, state(box).dark) == (4, 1)
    box.press("OK")
    box.press("BACK", long=True)
    assert (state(box).light, state(box).dark) == (5, 0)
    box.press("ACTION", long=True)  # order done, light side (the only side open)
    assert state(box).light == 4 and state(box).rounds[0].fulfilled == 1


def test_sensor_reading_enters_as_a_roll(box):
    """A DiceSettled reading is the same roll action a box roll is, with the same checks."""
    start_game(box, "Double", "Dice", sensor=True)
    assert state(box).setup.dice == "sensor"
    box.app.events.put(DiceSettled(("cake", "cake", "water", "bill"),
                             ("yellow", "yellow", "blue", "blue")))
    box.app.pump()
    last = box.app.play.session.actions[-1]
    assert last == {"type": "roll", "kind": "reroll", "faces": ["cake", "cake", "water", "bill"],
                    "source": "sensor", "at": box.clock.now()}
    assert state(box).dark == 1 and isinstance(box.screen, screens.DoubleTroubleScreen)
    box.app.events.put(DiceSettled(("cake", None, "water", "bill"), ()))
    box.app.pump()
    assert box.app.play.session.actions[-1] is last  # an unreadable die is refused, nothing changes


def test_leaving_a_running_round_pauses_it(box):
    """Issue 24, item 1: "Leave the game? It stays saved." pauses a running round, so it
    never runs out unseen behind the menu; Resume brings it back paused, OK goes on."""
    start_game(box)
    box.advance(20)
    box.press("OK", long=True)
    box.press("OK")  # "Leave the game?" yes
    assert box.app.stack.game_root not in box.app.stack.screens
    assert state(box).phase == "paused" and state(box).remaining == pytest.approx(159, abs=1)
    assert toast(box) == "Round 1 paused Resume goes on"
    since = box.clock.now()
    box.advance(300)
    assert played(box, since=since) == []  # no warning, no alarm behind the menu
    assert state(box).round == 1 and state(box).rounds[0].ended == ""
    box.press("BACK")  # the menu has dimmed (a paused round lets it): this press wakes it
    run_steps(box, ("menu:Resume", "OK"))  # the saved games' list, the Café game first
    assert box.screen is box.app.stack.game_root and state(box).phase == "paused"
    box.press("OK")
    assert state(box).phase == "running"
    box.advance(161)
    assert isinstance(box.screen, screens.TimesUpScreen)


def test_a_press_after_the_deadline_is_refused_and_ends_the_round(box):
    """Issue 24, item 2: an "order done" pressed after the deadline, before the clock's own
    wake, does not count: "Too late", and TIME'S UP comes at once (the last open order can
    no longer win a lost round)."""
    start_game(box, "Dice")  # Table dice: a short ◆ is "order done"
    for _ in range(4):
        box.press("ACTION")
    assert state(box).open_orders == 1
    clock = screens.clock_for(box.app.table)
    clock._timer.cancel()  # the loop has not woken for the deadline yet
    box.clock.advance(181)
    screens.start_order_done(box.app.table)
    assert toast(box) == "Too late: time was already up"
    assert state(box).rounds[0].ended == "time up" and state(box).rounds[0].fulfilled == 4
    assert isinstance(box.screen, screens.TimesUpScreen)


def cut_and_restart(first: SimBox, state_dir) -> SimBox:
    """The power goes (nothing more is recorded) and the box starts again on the same state:
    its clock starts afresh, so readings of the boot before mean nothing."""
    first.close()
    return SimBox(state_dir)


@pytest.mark.parametrize("cut_after", [150.0, 152.3, 153.95])
@pytest.mark.slow
def test_power_cut_resumes_paused_within_five_seconds(tmp_path, cut_after):
    """"Each round lasts three minutes": after 150 s of rerolls and a power cut the round came
    back with 3:00 (rerolls carry no clock reading). The running clock is journaled every few
    seconds, so the round comes back paused with its time left within 5 s of the truth."""
    first = SimBox(tmp_path / "s")
    start_game(first)
    started = first.clock.now()
    while first.clock.now() - started < cut_after - 10:
        first.advance(9.5)
        first.press("ACTION")  # reroll
    first.advance(cut_after - (first.clock.now() - started))
    true_left = state(first).deadline - first.clock.now()
    assert true_left == pytest.approx(180 - cut_after, abs=0.2)
    second = cut_and_restart(first, tmp_path / "s")
    try:
        second.press("OK")  # "Resume Crazy Café, round 1?"
        assert state(second).phase == "paused"
        assert 0 <= state(second).remaining - true_left <= 5
        left = state(second).remaining
        second.press("OK")
        assert state(second).deadline == pytest.approx(second.clock.now() + left, abs=0.2)
    finally:
        second.close()


def test_the_running_clock_is_journaled_at_least_every_five_seconds(box):
    """While a round runs a reading reaches the journal at least every 5 s; none while paused."""
    start_game(box)
    box.advance(60)
    box.press("OK")  # pause
    box.advance(30)
    box.press("OK")  # go on
    box.advance(30)
    saved = box.app.play.journal.load(box.app.play.session.game_id).actions
    readings = [(a["type"], a["at"]) for a in saved if "at" in a]
    running = [(kind, later - at) for (_, at), (kind, later) in itertools.pairwise(readings)
               if kind != "resume"]
    assert len(running) > 20 and max(gap for _, gap in running) <= 5.0
    assert box.app.play.session.actions == saved


@pytest.mark.slow
def test_undo_after_a_power_cut_keeps_the_round_paused(tmp_path):
    """Undoing the pause the box adds at power-up brought back a deadline on the clock of the
    boot before (5,180 s left in one run). It is refused with its reason; the round stays
    paused with the same time left, and what came after it undoes as usual."""
    first = SimBox(tmp_path / "s")
    start_game(first)
    first.advance(100)
    first.close()
    second = SimBox(tmp_path / "s")
    try:
        second.press("OK")  # "Resume Crazy Café, round 1?"
        left = state(second).remaining
        assert state(second).phase == "paused" and 80 <= left <= 80 + 4  # 80 s were left
        second.press("BACK", long=True)
        assert toast(second) == "Can't undo: power cut"
        assert state(second).phase == "paused" and state(second).remaining == left
        second.advance(4000)  # this boot's clock runs on: the round stays as it was
        second.press("BACK")  # wakes the dimmed screen
        second.press("OK")  # go on
        second.advance(10)
        second.press("BACK", long=True)  # "Undone: resume"
        assert state(second).phase == "paused" and state(second).remaining == left
        second.press("OK")
        assert state(second).deadline == pytest.approx(second.clock.now() + left, abs=0.2)
    finally:
        second.close()


def test_a_pause_from_the_boot_before_is_not_undone_onto_this_boots_clock(tmp_path):
    """A round paused before the power went: undoing that pause after the restart would bring
    back a deadline on the old clock. At power-up the box marks the epoch's end, which stays."""
    first = SimBox(tmp_path / "s")
    start_game(first)
    first.advance(50)
    first.press("OK")  # pause
    left = state(first).remaining
    second = cut_and_restart(first, tmp_path / "s")
    try:
        second.press("OK")  # resume the game
        second.press("BACK", long=True)
        assert toast(second) == "Can't undo: power cut"
        assert state(second).phase == "paused" and state(second).remaining == left
        second.press("OK")  # go on
        assert state(second).deadline == pytest.approx(second.clock.now() + left, abs=0.2)
    finally:
        second.close()


def test_undone_pause_after_the_deadline_ends_the_round_at_once(box):
    """Undoing a pause restores the old deadline; if it has passed, time is up now."""
    start_game(box)
    box.press("OK")  # pause
    box.advance(200)
    box.press("BACK")  # the paused screen has dimmed: this press only wakes it
    box.press("BACK", long=True)  # "Undone: pause"
    box.advance(0.1)
    assert state(box).round == 2 and state(box).rounds[0].ended == "time up"
    assert played(box)[-1][1] == "alarm"


def test_times_up_closes_an_open_menu(box):
    """"TIME'S UP" fills the screen even when the dice menu was open; OK leads to round 2."""
    start_game(box)
    box.press("DOWN")
    assert isinstance(box.screen, screens.TableScreen)
    box.advance(181)
    assert isinstance(box.screen, screens.TimesUpScreen)
    box.press("OK")
    assert box.screen is box.app.stack.game_root


def test_last_order_of_a_round_can_be_undone_with_box_dice(box):
    """The box rolls round 2's dice when round 2 starts, so a mistaken last "order done" of
    round 1 is still undoable; then OK rolls "all 4 dice once" (no Double Trouble)."""
    start_game(box, "Double")
    for _ in range(5):
        box.press("ACTION", long=True)
        box.press("OK")  # tick die 1
        box.press("ACTION")  # order done
    assert state(box).round == 2 and state(box).phase == "ready"
    assert isinstance(box.screen, screens.TimesUpScreen)
    box.press("BACK", long=True)
    assert state(box).round == 1 and state(box).light == 1 and state(box).phase == "running"
    box.press("ACTION", long=True)
    box.press("OK")
    box.press("ACTION")
    assert isinstance(box.screen, screens.TimesUpScreen)  # "ALL DONE!" until OK
    box.press("OK")
    box.press("OK")  # start round 2
    setup_roll, start = box.app.play.session.actions[-2:]
    assert setup_roll["kind"] == "setup" and start["type"] == "round_start"
    assert state(box).faces == tuple(setup_roll["faces"])
    assert (state(box).light, state(box).dark) == (6, 0)


def test_sensor_reading_after_an_order_is_the_freed_roll(box):
    """"Double Trouble does not apply ... when re-rolling the dice used after an order has been
    fulfilled": with the sensor, the reading after "order done" is that reroll."""
    start_game(box, "Double", "Dice", sensor=True)
    box.app.events.put(DiceSettled(("cake", "pizza", "water", "bill"), ()))
    box.app.pump()
    box.press("ACTION")  # order done (sensor dice): which dice were on it?
    assert isinstance(box.screen, screens.DicePickScreen)
    box.press("OK")  # die 1
    box.press("ACTION")
    assert state(box).to_roll == (0,)
    box.app.events.put(DiceSettled(("pizza", "pizza", "water", "bill"), ()))
    box.app.pump()
    assert box.app.play.session.actions[-1]["kind"] == "freed"
    assert state(box).faces[0] == "pizza" and state(box).dark == 0


# ----- undo as the table means it ----------------------------------------------------------------

def journaled(box):
    return box.app.play.journal.load(box.app.play.session.game_id).actions


def test_order_done_and_its_reroll_undo_together(box):
    """Box dice: "order done" is followed at once by the box's reroll of the freed dice; a
    mistaken "order done" could never be taken back ("Can't undo: box freed roll"). Hold BACK
    takes back both, and says so."""
    start_game(box)
    box.press("DOWN")
    box.press("OK")  # die 1 goes on an order
    box.press("BACK")
    before = state(box)
    box.press("ACTION", long=True)
    box.press("ACTION")  # which dice: die 1 (ticked), confirm
    assert box.app.play.session.actions[-1]["kind"] == "freed" and state(box).light == 4
    box.press("BACK", long=True)
    assert toast(box) == "Undone: light order done and its reroll"
    after = state(box)
    assert (after.light, after.faces, after.placed, after.to_roll) == (
        5, before.faces, (True, False, False, False), ())
    assert journaled(box) == box.app.play.session.actions


def test_clock_readings_undo_silently_with_the_action_before_them(box):
    """The clock readings the box journals are no step of the table's: undo takes them with
    the action before them, and the next reading follows within the usual few seconds."""
    start_game(box)
    box.press("DOWN")
    box.press("OK")  # die 1 placed
    box.press("BACK")
    box.advance(10)
    assert [a["type"] for a in box.app.play.session.actions[-2:]] == ["clock", "clock"]
    box.press("BACK", long=True)
    assert toast(box) == "Undone: die 1 placed"
    assert state(box).placed == (False,) * 4
    undone_at = box.clock.now()
    box.advance(5)
    last = box.app.play.session.actions[-1]
    assert last["type"] == "clock" and last["at"] - undone_at <= 4.0 + 0.1
    assert journaled(box) == box.app.play.session.actions


def cut_right_after_undo(box: SimBox, where) -> dict:
    """Make the next undo end in a power cut the moment it is journaled (before the loop runs
    again): the journal files are copied to ``where`` as the cut leaves them."""
    seen: dict = {}
    real = box.app.table.undo

    def undo_then_cut() -> bool:
        done = real()
        seen["left"] = state(box).deadline - box.clock.now()
        where.mkdir()
        for name in ("journal.db", "journal.db-wal"):
            shutil.copy(box.app.table.state_dir / name, where / name)
        return done

    box.app.table.undo = undo_then_cut
    return seen


@pytest.mark.parametrize("undone", ["die placed", "pause"])
def test_a_power_cut_right_after_an_undo_gives_back_no_time(tmp_path, undone):
    """Undo takes back the clock readings after the action with it; the clock as it reads at
    the undo is journaled in the same change, so a power cut before the next reading resumes
    the round from the undo's moment, not from the undone action's (21 s given back before)."""
    first = SimBox(tmp_path / "s")
    start_game(first)
    first.advance(5)
    if undone == "pause":
        first.press("OK")  # pause; undoing it restores the deadline, so the time ran on
    else:
        first.press("DOWN")
        first.press("OK")  # die 1 placed
        first.press("BACK")
    first.advance(21)
    seen = cut_right_after_undo(first, tmp_path / "cut")
    first.press("BACK", long=True)
    first.close()
    second = SimBox(tmp_path / "cut")
    try:
        second.press("OK")  # "Resume Crazy Café, round 1?"
        assert state(second).phase == "paused"
        assert state(second).remaining == pytest.approx(seen["left"], abs=1e-6)
    finally:
        second.close()


def test_an_undone_pause_past_the_deadline_is_journaled_with_its_time_up(box):
    """The round ran out during the pause: the undo's change ends it, so no cut can bring
    back the minutes of the pause."""
    start_game(box)
    box.press("OK")  # pause
    box.advance(200)
    box.press("BACK")  # wakes the dimmed screen
    box.press("BACK", long=True)
    assert [a["type"] for a in journaled(box)[-1:]] == ["time_up"]
    assert state(box).rounds[0].ended == "time up"
    box.advance(0.1)
    assert isinstance(box.screen, screens.TimesUpScreen)


def test_a_reroll_the_table_asked_for_stays(box):
    """"Reroll all unused dice once" is the table's turn and its faces are what it plays on
    now: it is not taken back, whatever clock readings came after it."""
    start_game(box)
    box.press("ACTION")  # reroll
    rerolled = len(box.app.play.session.actions)
    box.advance(10)
    box.press("BACK", long=True)
    assert toast(box) == "Can't undo: box reroll"
    assert len(box.app.play.session.actions) == rerolled + 3  # the readings stay too


def test_sensor_freed_roll_undoes_with_its_order_done(box):
    """With the sensor the freed dice's reading comes when the table rolls them, clock
    readings between: it still goes with its "order done"."""
    start_game(box, "Dice", sensor=True)
    box.app.events.put(DiceSettled(("cake", "pizza", "water", "bill"), ()))
    box.app.pump()
    box.press("ACTION")  # order done: which dice were on it?
    box.press("OK")  # die 1
    box.press("ACTION")
    box.advance(5)  # a clock reading while the table rolls die 1
    box.app.events.put(DiceSettled(("donut", "pizza", "water", "bill"), ()))
    box.app.pump()
    assert [a.get("kind", a["type"]) for a in box.app.play.session.actions[-3:]] == [
        "order_done", "clock", "freed"]
    box.press("BACK", long=True)
    assert toast(box) == "Undone: light order done and its reroll"
    assert state(box).faces[0] == "cake" and state(box).light == 5 and state(box).to_roll == ()
