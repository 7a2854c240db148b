"""3 Minute Crazy Café rules engine: each test quotes the rulebook sentence it checks."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.contract.rules import RuleError
from companion.games.crazy_cafe import rules
from companion.games.crazy_cafe.rules import apply, has_double, initial_state

T0 = 100.0


def game(*actions, **setup):
    """A state after a setup action (``setup`` overrides) and ``actions``."""
    first = {"type": "setup", "round_seconds": 180, "dice": "manual", **setup}
    state = apply(initial_state(), first)
    for action in actions:
        state = apply(state, action)
    return state


def start(at=T0):
    return {"type": "round_start", "at": at}


def done(side="light", at=T0 + 10, dice=None):
    action = {"type": "order_done", "side": side, "at": at}
    if dice is not None:
        action["dice"] = dice
    return action


def time_up(at):
    return {"type": "time_up", "at": at}


def roll(kind, faces):
    return {"type": "roll", "kind": kind, "faces": list(faces), "source": "box"}


SETUP_FACES = ["burger", "pizza", "cola", "bill"]


def box_game(*actions, double_trouble=True, **setup):
    return game(*actions, dice="box", double_trouble=double_trouble, faces=SETUP_FACES, **setup)


# ----- rounds ------------------------------------------------------------------------------

def test_round_sizes_five_six_then_four():
    """"Round 1: Five orders - Round 2: Six orders - Round 3: Four orders, and also any
    orders not fulfilled from round 1 and round 2" (here none are left over)."""
    state = game(start())
    assert (state.round, state.light, state.dark) == (1, 5, 0)
    for _ in range(5):
        state = apply(state, done())
    state = apply(state, start(T0 + 200))
    assert (state.round, state.light) == (2, 6)
    for _ in range(6):
        state = apply(state, done(at=T0 + 250))
    state = apply(state, start(T0 + 400))
    assert (state.round, state.light) == (3, 4)


def test_unfulfilled_orders_carry_to_round_three():
    """"Or the three minutes have expired. You put unfulfilled orders aside in a separate pile
    for the third final round" and round 3 is "Four orders, and also any orders not fulfilled
    from round 1 and round 2"."""
    state = game(start(), done(), done(), time_up(T0 + 180))
    assert state.round == 2 and state.carried == 3
    assert state.rounds[0].carried == 3 and state.rounds[0].ended == "time up"
    state = apply(state, start(T0 + 300))
    state = apply(state, done(at=T0 + 310))
    state = apply(state, time_up(T0 + 480))
    assert state.carried == 3 + 5
    state = apply(state, start(T0 + 600))
    assert state.light == 4 + 8 and state.rounds[-1].laid_out == 12


def test_round_ends_early_when_every_order_is_fulfilled():
    """"The round is over when - Either all orders are fulfilled before the three minutes
    have expired." The time left is kept."""
    state = game(start())
    for i in range(5):
        state = apply(state, done(at=T0 + 20 + i))
    assert state.phase == "ready" and state.round == 2
    assert state.rounds[0].ended == "all done"
    assert state.rounds[0].time_left == pytest.approx(180 - 24)


def test_time_up_refused_before_the_deadline():
    """"Each round lasts three minutes": time is not up one second early."""
    state = game(start())
    with pytest.raises(RuleError, match="not up"):
        apply(state, time_up(T0 + 179))
    assert apply(state, time_up(T0 + 180)).round == 2


def test_round_length_is_the_setup_value():
    """"Each round lasts three minutes" by default; a house rule may set another length."""
    state = game(start(), round_seconds=120)
    assert state.deadline == T0 + 120
    assert game(start()).deadline == T0 + 180


def test_pause_moves_the_deadline():
    """"Each round lasts three minutes": a pause does not eat into those three minutes."""
    state = game(start(), {"type": "pause", "at": T0 + 50})
    assert state.phase == "paused" and state.remaining == pytest.approx(130)
    with pytest.raises(RuleError, match="Paused"):
        apply(state, done())
    state = apply(state, {"type": "resume", "at": T0 + 500})
    assert state.deadline == pytest.approx(T0 + 630)


def test_win_when_all_orders_fulfilled_by_the_end_of_round_three():
    """"You win together if you have fulfilled all orders at the end of round 3.\""""
    state = game(start(), *[done()] * 5, start(T0 + 200), *[done(at=T0 + 210)] * 6,
                 start(T0 + 400))
    for _ in range(4):
        state = apply(state, done(at=T0 + 420))
    assert state.phase == "finished" and state.result == "won"
    assert rules.summary(state)["orders_left"] == 0
    with pytest.raises(RuleError, match="over"):
        apply(state, start(T0 + 900))


def test_lose_with_orders_left_at_the_end_of_round_three():
    """"You lose together if at the end of round 3 there is at least one order left that has
    not been fulfilled." The box says how many."""
    state = game(start(), time_up(T0 + 180), start(T0 + 200), time_up(T0 + 380),
                 start(T0 + 400))
    assert state.light == 4 + 5 + 6
    for _ in range(14):
        state = apply(state, done(at=T0 + 410))
    state = apply(state, time_up(T0 + 580))
    assert state.result == "lost" and state.rounds[-1].left == 1
    summary = rules.summary(state)
    assert summary["result"] == "lost" and summary["orders_left"] == 1


def test_corrections_add_and_remove_orders():
    """"At the start of each round you place the following number of orders": if the table
    laid out one more or one fewer, the count can be corrected."""
    state = game(start(), {"type": "add_order", "side": "light"},
                 {"type": "remove_order", "side": "light"}, {"type": "remove_order"})
    assert state.light == 4 and state.rounds[0].corrections == 3
    with pytest.raises(RuleError, match="No dark order"):
        apply(state, {"type": "remove_order", "side": "dark"})


# ----- Double Trouble ----------------------------------------------------------------------

def test_double_among_just_rolled_dice_flips_an_order():
    """"If, as an action, you re-roll all dice that were not used and two dice then show the
    same drink, dish or bill, you must immediately turn one order over to show the dark
    side.\""""
    state = box_game(start())
    state = apply(state, roll("reroll", ["fries", "fries", "water", "bill"]))
    assert state.trouble == "flip" and (state.light, state.dark) == (4, 1)
    assert state.rounds[0].dark_flips == 1


def test_two_doubles_in_one_reroll_flip_one_order():
    """"... two dice then show the same drink, dish or bill, you must immediately turn one
    order over": both pairs alike in one reroll still turn one order (docs/rulings.md)."""
    state = box_game(start())
    state = apply(state, roll("reroll", ["fries", "fries", "bill", "bill"]))
    assert state.trouble == "flip" and (state.light, state.dark) == (4, 1)


def test_double_with_a_placed_die_counts():
    """"To determine whether there are doubles, you must consider all dice (both those just
    rolled and those currently placed on an order).\""""
    state = box_game(start(), {"type": "place", "die": 2, "placed": True})
    # Die 3 (blue, placed) shows cola; the reroll brings cola up on die 4.
    state = apply(state, roll("reroll", ["salad", "cake", "water", "cola"]))
    assert state.faces == ("salad", "cake", "cola", "cola")
    assert state.trouble == "flip" and state.dark == 1


def test_no_double_no_flip():
    """"...and two dice then show the same drink, dish or bill": four different faces mean no
    Double Trouble."""
    state = box_game(start())
    state = apply(state, roll("reroll", ["salad", "cake", "water", "cola"]))
    assert state.trouble == "" and (state.light, state.dark) == (5, 0)


def test_only_same_coloured_dice_can_match():
    """"Yellow die = dishes ... Blue die = drinks ... and bill": the two colours share no face,
    so only yellow-yellow or blue-blue can make a double."""
    assert has_double(("pizza", "pizza", "cola", "bill"))
    assert has_double(("pizza", "cake", "bill", "bill"))
    assert not has_double(("pizza", "cake", "cola", "bill"))
    with pytest.raises(RuleError, match="no 'cola'"):
        apply(box_game(start()), roll("reroll", ["cola", "cake", "water", "bill"]))


def test_no_double_trouble_on_the_setup_roll():
    """"Exception! Double Trouble does not apply: When rolling the dice for the first time
    during game setup\""""
    state = game(dice="box", double_trouble=True, faces=["cake", "cake", "bill", "bill"])
    assert state.trouble == ""
    state = apply(state, start())
    assert (state.light, state.dark) == (5, 0)


def test_no_double_trouble_on_the_reroll_of_freed_dice():
    """"Exception! Double Trouble does not apply: ... when re-rolling the dice used after an
    order has been fulfilled.\""""
    state = box_game(start(), {"type": "place", "die": 0, "placed": True})
    state = apply(state, done(dice=[0]))
    assert state.to_roll == (0,) and state.placed == (False,) * 4
    # Die 1 comes up pizza like die 2: a double, but from freed dice.
    state = apply(state, roll("freed", ["pizza", None, None, None]))
    assert state.faces == ("pizza", "pizza", "cola", "bill")
    assert state.trouble == "" and (state.light, state.dark) == (4, 0)


def placed_pair_game(standing_double):
    """Both blue dice on orders showing cola: a double formed by a reroll, then left standing."""
    state = box_game(start(), {"type": "place", "die": 2, "placed": True},
                     standing_double=standing_double)
    state = apply(state, roll("reroll", ["salad", "cake", "water", "cola"]))  # cola on die 3 too
    assert state.trouble == "flip" and state.dark == 1
    return apply(state, {"type": "place", "die": 3, "placed": True})


def test_a_standing_double_flips_once_by_default():
    """"If, as an action, you re-roll all dice that were not used and two dice then show the
    same drink, dish or bill, you must immediately turn one order over": the double of two
    placed dice flipped an order when it came up; later rerolls leave it be (one flip per new
    double, docs/rulings.md). A replay got 3 flips from one double."""
    state = placed_pair_game("once")
    for faces in (["fries", "pizza", None, None], ["donut", "burger", None, None]):
        state = apply(state, roll("reroll", faces))
        assert state.trouble == "" and state.dark == 1
    # A new double of the other pair still flips.
    state = apply(state, roll("reroll", ["cake", "cake", None, None]))
    assert state.trouble == "flip" and state.dark == 2


def test_a_standing_double_flips_on_every_reroll_when_chosen():
    """standing_double = "every": "two dice then show the same ... (both those just rolled and
    those currently placed on an order)" holds after each reroll while the pair stands."""
    state = placed_pair_game("every")
    for dark, faces in ((2, ["fries", "pizza", None, None]), (3, ["donut", "burger", None, None])):
        state = apply(state, roll("reroll", faces))
        assert state.trouble == "flip" and state.dark == dark


def test_a_double_made_by_freed_dice_counts_once_at_the_next_reroll():
    """"Double Trouble does not apply ... when re-rolling the dice used after an order has been
    fulfilled": the freed roll flips nothing; the double it left is new to the next reroll,
    which flips one order, and then it stands."""
    state = box_game(start(), {"type": "place", "die": 0, "placed": True},
                     {"type": "place", "die": 1, "placed": True})
    state = apply(state, done(dice=[0]))
    state = apply(state, roll("freed", ["pizza", None, None, None]))  # pizza like die 2
    assert state.trouble == "" and state.dark == 0
    state = apply(state, {"type": "place", "die": 0, "placed": True})
    state = apply(state, roll("reroll", [None, None, "water", "bill"]))
    assert state.trouble == "flip" and state.dark == 1
    state = apply(state, roll("reroll", [None, None, "juice", "cola"]))
    assert state.trouble == "" and state.dark == 1


def test_standing_double_setting_is_checked():
    with pytest.raises(RuleError, match="once or every"):
        game(standing_double="twice")


def test_all_orders_dark_draws_a_new_light_order():
    """"If all orders are already on the dark side, you have to pull a new order from the
    stack and place it showing the light front side.\""""
    state = game(start(), double_trouble=True)
    for _ in range(5):
        state = apply(state, {"type": "double"})
    assert (state.light, state.dark) == (0, 5)
    state = apply(state, {"type": "double"})
    assert state.trouble == "draw" and (state.light, state.dark) == (1, 5)
    assert state.rounds[0].extra_drawn == 1 and state.rounds[0].dark_flips == 5


def test_double_trouble_only_in_the_next_level():
    """"The next level ... you can make your game more difficult with the following additional
    rules: Double Trouble": without it a double changes nothing."""
    state = box_game(start(), double_trouble=False)
    state = apply(state, roll("reroll", ["fries", "fries", "water", "bill"]))
    assert state.dark == 0
    with pytest.raises(RuleError, match="off"):
        apply(state, {"type": "double"})


def test_reroll_only_rerolls_unused_dice():
    """"Reroll all unused dice once": dice placed on an order keep their face."""
    state = box_game(start(), {"type": "place", "die": 0, "placed": True})
    state = apply(state, roll("reroll", ["donut", "cake", "water", "coffee"]))
    assert state.faces == ("burger", "cake", "water", "coffee")


def test_order_needs_at_least_one_die():
    """"An order is fulfilled once all dishes and drinks pictured and the bill are covered
    with café cards and at least one dice!\""""
    state = box_game(start())
    with pytest.raises(RuleError, match="At least one"):
        apply(state, done(dice=[]))


def test_dark_order_keeps_its_count_when_fulfilled():
    """"If there are already café cards or dice on the order to be turned over, they will
    remain there after the order has been turned over": a flipped order is still open and
    is fulfilled as a dark order."""
    state = game(start(), {"type": "double"}, double_trouble=True)
    state = apply(state, done(side="dark"))
    assert (state.light, state.dark) == (4, 0) and state.rounds[0].fulfilled == 1


def test_refused_action_changes_nothing():
    """"Café cards and dice used are blocked!": an illegal action is refused whole."""
    state = box_game(start())
    with pytest.raises(RuleError):
        apply(state, roll("reroll", ["fries", None, "water", "bill"]))
    assert state.faces == tuple(SETUP_FACES) and state.phase == "running"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["done", "double", "add", "up"]), max_size=60))
def test_orders_are_never_negative_and_accounted(moves):
    """"All orders must be filled by the end of the third round": every order laid out or
    drawn is fulfilled, still open, or carried — none is lost."""
    state = game(start(), double_trouble=True)
    at = T0
    for move in moves:
        action = {"done": done(side="light" if state.light else "dark", at=at),
                  "double": {"type": "double"}, "add": {"type": "add_order"},
                  "up": time_up(state.deadline or at)}[move]
        if state.phase == "ready":
            at += 200
            action = start(at)
        if state.phase == "finished":
            break
        state = apply(state, action)
        assert state.light >= 0 and state.dark >= 0
        started_3 = any(r.number == 3 for r in state.rounds)
        carried_in = state.carried if started_3 else 0
        pending = 0 if started_3 else state.carried
        supplied = sum(r.laid_out + r.extra_drawn + r.corrections for r in state.rounds)
        gone = sum(r.fulfilled + r.left for r in state.rounds)
        assert supplied - carried_in == gone + state.open_orders + pending


def test_no_double_trouble_on_round_preparation_roll():
    """"You prepare the subsequent round 2 and the following round 3 as described in the game
    setup section" and "Double Trouble does not apply: When rolling the dice for the first
    time during game setup": the preparation roll of round 2 makes no Double Trouble."""
    state = box_game(start(), time_up(T0 + 180))
    state = apply(state, roll("setup", ["donut", "donut", "bill", "bill"]))
    assert state.trouble == "" and state.faces == ("donut", "donut", "bill", "bill")
    state = apply(state, start(T0 + 300))
    assert (state.light, state.dark) == (6, 0)
    with pytest.raises(RuleError, match="before the round"):
        apply(state, roll("setup", SETUP_FACES))


# ----- the round clock ------------------------------------------------------------------------

def test_a_reading_before_the_start_is_refused():
    """"Each round lasts three minutes": a pause stamped before the round's start made a
    10,180 s round."""
    state = game(start(at=10000.0))
    with pytest.raises(RuleError, match="Clock reads earlier"):
        apply(state, {"type": "pause", "at": 0.0})
    assert state.deadline == 10180.0


@pytest.mark.parametrize("late", [
    {"type": "clock", "at": T0 + 19},
    {"type": "pause", "at": T0 + 19},
    {"type": "order_done", "side": "light", "at": T0 + 19},
])
def test_a_reading_before_the_last_accepted_one_is_refused(late):
    """Readings within a round only go forward; an earlier one is a damaged record."""
    state = game(start(), {"type": "clock", "at": T0 + 20})
    assert state.last_at == T0 + 20
    with pytest.raises(RuleError, match="Clock reads earlier"):
        apply(state, late)
    assert apply(state, {**late, "at": T0 + 20}).last_at == T0 + 20


def test_time_up_before_the_last_reading_is_refused():
    state = game(start(), {"type": "clock", "at": T0 + 179})
    with pytest.raises(RuleError):
        apply(state, time_up(T0 + 178))
    assert apply(state, time_up(T0 + 180)).rounds[0].ended == "time up"


def test_a_resume_begins_a_clock_epoch():
    """After a restart the clock reads anything: a resume (or a round start) may read earlier
    than the boot before, and later readings are held to it."""
    state = game(start(at=5000.0), {"type": "clock", "at": 5100.0}, {"type": "pause", "left": 80})
    assert state.phase == "paused" and state.remaining == 80 and state.last_at is None
    state = apply(state, {"type": "resume", "at": 10.0})
    assert state.deadline == 90.0 and state.last_at == 10.0
    with pytest.raises(RuleError, match="Clock reads earlier"):
        apply(state, {"type": "clock", "at": 9.0})


def test_a_pause_at_power_up_never_adds_time():
    """The pause at power-up keeps at most the time left at the last reading."""
    state = game(start(), {"type": "clock", "at": T0 + 100})
    assert apply(state, {"type": "pause", "left": 80}).remaining == 80
    with pytest.raises(RuleError, match="More time left"):
        apply(state, {"type": "pause", "left": 81})
    for bad in ({"left": 0}, {"left": "80"}, {"left": 50, "at": T0 + 101}):
        with pytest.raises(RuleError, match="'left'"):
            apply(state, {"type": "pause", **bad})
    paused = apply(state, {"type": "pause", "at": T0 + 110})  # 70 s left
    again = apply(paused, {"type": "pause", "left": 70})  # found paused at power-up
    assert again.remaining == 70 and again.last_at is None
    with pytest.raises(RuleError, match="More time left"):
        apply(paused, {"type": "pause", "left": 71})


def test_clock_readings_only_while_the_round_runs():
    state = game(start(), {"type": "pause", "at": T0 + 5})
    with pytest.raises(RuleError, match="Paused"):
        apply(state, {"type": "clock", "at": T0 + 6})
    with pytest.raises(RuleError, match="Time is already up"):
        apply(game(start()), {"type": "clock", "at": T0 + 180})


@pytest.mark.parametrize("seconds", [59, 601, 10, 1800])
def test_round_length_outside_the_box_range_is_refused(seconds):
    """House lengths are 1:00 to 10:00, as on the setup screen and in the config."""
    with pytest.raises(RuleError, match="between 60 and 600"):
        game(round_seconds=seconds)
    assert game(round_seconds=60).remaining == 60 and game(round_seconds=600).remaining == 600


# ----- issue 24: the deadline holds for every timed action ---------------------------------

@pytest.mark.parametrize("late", [0.0, 0.5, 30.0])
def test_an_order_reported_after_the_deadline_does_not_count(late):
    """"The round is over when ... the three minutes have expired. You put unfulfilled orders
    aside": an order_done read at or after the deadline is refused, even as the last open
    order (it would have ended the round "all done" and won a lost game)."""
    state = game(start(), *[done() for _ in range(4)])
    assert state.open_orders == 1
    with pytest.raises(RuleError, match="Time is already up"):
        apply(state, done(at=T0 + 180 + late))
    state = apply(state, time_up(T0 + 180))
    assert state.rounds[-1].ended == "time up" and state.rounds[-1].carried == 1


@pytest.mark.parametrize("action", [
    roll("reroll", ["cake", "cake", "cola", "bill"]),
    {"type": "place", "die": 0, "placed": True},
    {"type": "double"},
    {"type": "add_order", "side": "light"},
])
def test_every_timed_action_after_the_deadline_is_refused(action):
    """"Or the three minutes have expired": a reroll, a die placed, a double or a correction
    read after the deadline changes nothing; only the time up itself is taken."""
    state = box_game(start())
    with pytest.raises(RuleError, match="Time is already up"):
        apply(state, {**action, "at": T0 + 181})
    assert apply(state, {**action, "at": T0 + 179}) is not None


def test_doubles_seen_in_a_round_are_forgotten_at_the_next_round_start():
    """"You prepare the subsequent round 2 and the following round 3 as described in the game
    setup section": a new round begins afresh, so a double counted in round 1 flips again in
    round 2 even when the journal holds no preparation roll."""
    state = box_game(start(), roll("reroll", ["cake", "cake", "water", "bill"]))
    assert state.trouble == "flip" and state.counted == ((0, 1),)
    state = apply(state, time_up(T0 + 180))
    state = apply(state, start(T0 + 300))  # no setup roll: the dice still show cake, cake
    assert state.counted == ()
    state = apply(state, {"type": "place", "die": 0, "placed": True})
    state = apply(state, {"type": "place", "die": 1, "placed": True})
    state = apply(state, roll("reroll", [None, None, "cola", "bill"]))
    assert state.trouble == "flip" and state.dark == 1


@pytest.mark.parametrize("action", [time_up(T0 + 200), done(), {"type": "pause", "at": T0 + 5},
                                    {"type": "add_order", "side": "light"}])
def test_a_running_state_without_its_round_is_refused_not_crashed(action):
    # Not a rulebook case: a state no action sequence makes (a running round without its
    # deadline or its log) gets a refusal the box can show, never a TypeError.
    broken = replace(game(start()), deadline=None, rounds=())
    with pytest.raises(RuleError, match="No round running"):
        apply(broken, action)
