"""Makan Mania rules, each test quoting the rulebook sentence it checks (rules/makan_mania.txt).

The helpers at the top reach a position through the public actions only.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from companion.games import RuleError
from companion.games.makan_mania import rules

NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay")
# Trays without a Queue-start or private ability, so a test sees only what it sets up.
PLAIN = ("yellow", "white", "green")


def setup(trays: tuple[str, ...], options: dict | None = None, deal: bool = False) -> rules.State:
    players = [{"name": NAMES[i], "tray": t} for i, t in enumerate(trays)]
    return rules.apply(rules.initial_state(), {"type": "setup", "players": players,
                                               "drinks": "deal" if deal else "enter",
                                               "options": options or {}})


def reveal(state: rules.State, drinks: list[str], private: str | None = None) -> rules.State:
    if private is None and rules.holder(state, "private_drink") is not None:
        private = "kopi_o"
    return rules.apply(state, {"type": "reveal", "drinks": drinks, "private": private})


def seat(state: rules.State, seats: list[tuple[int, int]]) -> rules.State:
    """Seat player i at seats[i] = (table, dice), in player order."""
    for i, (table, dice) in enumerate(seats):
        state = rules.apply(state, {"type": "seat", "player": i, "table": table, "dice": dice})
    return state


def no_jumps(state: rules.State) -> rules.State:
    while state.phase == "jumps":
        state = rules.apply(state, {"type": "jump", "go": False})
    return state


def end_turns(state: rules.State, count: int | None = None) -> rules.State:
    """End ``count`` turns (default: the rest of the Queue)."""
    start_round = state.round
    done = 0
    while state.phase == "queue" and (count is None or done < count) and state.round == start_round:
        state = rules.apply(state, {"type": "end_turn"})
        done += 1
    return state


def round_with(state: rules.State, seats: list[tuple[int, int]], drinks: list[str] | None = None
               ) -> rules.State:
    """A whole round: reveal, seat, no jumps, every turn ended without buying."""
    drinks = drinks or ["kopi_o"] * len(state.players)
    return end_turns(no_jumps(seat(reveal(state, drinks), seats)))


def queue(trays: tuple[str, ...], seats: list[tuple[int, int]], drinks: list[str] | None = None,
          options: dict | None = None) -> rules.State:
    """A fresh game at the first Queue turn of round 1."""
    state = setup(trays, options)
    return no_jumps(seat(reveal(state, drinks or ["kopi_o"] * len(trays)), seats))


def buy(state: rules.State, slot: int, pay: str) -> rules.State:
    return rules.apply(state, {"type": "buy", "slot": slot, "pay": pay})


def tables(state: rules.State) -> list[int | None]:
    return [p.table for p in state.players]


def coins(state: rules.State) -> list[int]:
    return [p.coins for p in state.players]


# ----- setup and the start of a round -------------------------------------------------------
@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_setup_uses_one_table_per_player_always_1_and_88(count):
    """"Use the same number of Table cards as there are players. Always use Tables 1 and 88.
    For example, for 4 players, use Tables 1, 2, 3 and 88.\""""
    trays = ("yellow", "white", "green", "blue", "red", "black")[:count]
    state = setup(trays)
    assert rules.tables_for(count) == (*range(1, count), 88)
    assert rules.free_tables(reveal(state, ["cola"] * count)) == rules.tables_for(count)
    assert (state.phase, state.round, coins(state), state.pot) == ("reveal", 1, [0] * count, 0)
    assert state.supply == 30


@pytest.mark.parametrize("count", [1, 7])
def test_setup_refuses_other_player_counts(count):
    """"Makan Mania (...; 2–6 players)" and "Use the same number of Table cards as there are
    players": six Table cards allow at most six."""
    players = [{"name": f"P{i}", "tray": "red"} for i in range(count)]
    with pytest.raises(RuleError):
        rules.apply(rules.initial_state(), {"type": "setup", "players": players})


def test_each_player_has_their_own_tray():
    """"Each player chooses a color and takes the tray card and all 3 dice of that color.\""""
    with pytest.raises(RuleError, match="own tray"):
        setup(("red", "red"))


def test_round_start_reveals_one_drink_per_player_plus_the_private_drink():
    """"reveal 1 Drink card per player" and the tray: "At the start of each round, reveal the top
    Drink card of the deck. Only you may buy it during your turn in the 'Queue'.\""""
    state = setup(("yellow", "blue", "white"))
    with pytest.raises(RuleError, match="Reveal 3"):
        rules.apply(state, {"type": "reveal", "drinks": ["cola"] * 2, "private": "cola"})
    with pytest.raises(RuleError, match="Private drink"):
        rules.apply(state, {"type": "reveal", "drinks": ["cola"] * 3})
    state = reveal(state, ["cola", "teh_o", "chendol"], private="bandung")
    assert [c.drink for c in state.row] == ["cola", "teh_o", "chendol", "bandung"]
    assert [c.owner for c in state.row] == [None, None, None, 1]


# ----- the end of the Rush ------------------------------------------------------------------
def test_seats_only_on_unoccupied_tables_in_play():
    """"you may choose to stop by placing your Tray Card and all unplaced dice you have on one
    of the unoccupied Table cards in play." A refused seat leaves the state as it was."""
    state = reveal(setup(("yellow", "white", "green")), ["cola"] * 3)
    state = rules.apply(state, {"type": "seat", "player": 0, "table": 2, "dice": 1})
    refusals = [({"player": 1, "table": 2, "dice": 0}, "Table 2 is not free"),
                ({"player": 1, "table": 4, "dice": 0}, "No Table 4"),
                ({"player": 1, "dice": 0}, "Pick a table"),
                ({"player": 0, "table": 1, "dice": 0}, "Ana already sat\nat Table 2"),
                ({"player": 1, "table": 1, "dice": 4}, "Dice left must be\n0..3")]
    for fields, message in refusals:
        before = state
        with pytest.raises(RuleError) as refused:
            rules.apply(state, {"type": "seat", **fields})
        assert str(refused.value) == message
        assert state == before and tables(state) == [2, None, None]
    assert rules.free_tables(state) == (1, 88)


def test_last_player_rolling_takes_the_last_free_table():
    """"Once there is only one Table left unoccupied (...) place their tray together with all
    their unplaced dice on the unoccupied Table." The state seated from is left as it was."""
    state = reveal(setup(("yellow", "white", "green")), ["cola"] * 3)
    state = rules.apply(state, {"type": "seat", "player": 2, "table": 1, "dice": 0})
    before = copy.deepcopy(state)
    seated = rules.apply(state, {"type": "seat", "player": 0, "table": 88, "dice": 2})
    assert state == before and tables(state) == [None, None, 1] and tables(seated) == [88, None, 1]
    state = rules.apply(seated, {"type": "seat", "player": 1, "dice": 3})
    assert tables(state) == [88, 2, 1] and state.phase == "queue"
    assert rules.current(state) == 2 and state.queue == (2, 1, 0)


# ----- the jumps at the start of the Queue --------------------------------------------------
FOUR = [(1, 2), (2, 1), (3, 0), (88, 3)]


def test_jump_to_88_from_table_1_pushes_forward_and_earns_4():
    """"At the start of the 'Queue', you may jump to Table 88, pushing players forward. If you
    jump from Table 1, earn 4 coins.\""""
    state = seat(reveal(setup(("red", "yellow", "white", "green")), ["cola"] * 4), FOUR)
    assert rules.pending_jump(state) == (0, 88, (1, 2, 3))
    state = rules.apply(state, {"type": "jump", "to": 88, "go": True})
    assert tables(state) == [88, 1, 2, 3]
    # Ana's 4 coins, then Ben (now on Table 1) starts the Queue with 1 coin.
    assert coins(state) == [4, 1, 0, 0] and state.supply == 25


def test_jump_to_88_from_another_table_earns_nothing():
    """"If you jump from Table 1, earn 4 coins." Only from Table 1."""
    seats = [(2, 0), (1, 0), (3, 0), (88, 0)]
    state = seat(reveal(setup(("red", "yellow", "white", "green")), ["cola"] * 4), seats)
    state = rules.apply(state, {"type": "jump", "to": 88, "go": True})
    assert tables(state) == [88, 1, 2, 3]
    assert coins(state)[0] == 0


def test_jump_push_swap_setting_trades_seats_only():
    """"you may jump to Table 88, pushing players forward" read as a swap ([games.makan] push)."""
    state = seat(reveal(setup(("red", "yellow", "white", "green"), {"push": "swap"}), ["cola"] * 4),
                 FOUR)
    state = rules.apply(state, {"type": "jump", "to": 88, "go": True})
    assert tables(state) == [88, 2, 3, 1]


def test_jump_to_1_pushes_back_and_tch_earns_a_coin():
    """"At the start of the 'Queue', you may jump to Table 1, pushing players back. Each player
    you jump over may make a 'tch' sound and earn 1 coin.\""""
    state = seat(reveal(setup(("yellow", "white", "black", "green")), ["cola"] * 4), FOUR)
    assert rules.pending_jump(state) == (2, 1, (0, 1))
    with pytest.raises(RuleError, match="tch"):
        rules.apply(state, {"type": "jump", "to": 1, "go": True, "tch": [3]})
    state = rules.apply(state, {"type": "jump", "to": 1, "go": True, "tch": [0]})
    assert tables(state) == [2, 3, 1, 88]
    # Ana said tch (1 coin); Cai now on Table 1 takes its coin as the Queue starts.
    assert coins(state) == [1, 0, 1, 0]


def test_jump_to_88_activates_before_black_tray():
    """"At the start of the 'Queue', you may jump to Table 88 ... Activates before black tray.\""""
    seats = [(2, 0), (3, 0), (1, 0), (88, 0)]
    state = seat(reveal(setup(("red", "black", "yellow", "white")), ["cola"] * 4), seats)
    with pytest.raises(RuleError, match="88"):
        rules.apply(state, {"type": "jump", "to": 1, "go": True})
    state = rules.apply(state, {"type": "jump", "to": 88, "go": True})
    assert tables(state) == [88, 2, 1, 3]
    assert rules.pending_jump(state) == (1, 1, (2,))
    state = rules.apply(state, {"type": "jump", "to": 1, "go": True, "tch": [2]})
    assert tables(state) == [88, 1, 2, 3] and state.phase == "queue"


def test_a_jumps_phase_without_a_jump_is_refused_not_crashed():
    # Not a rulebook case: a state no action sequence makes (the jumps phase with no jump left)
    # gets a refusal the box can show, never a TypeError.
    state = seat(reveal(setup(("red", "yellow", "white", "green")), ["cola"] * 4), FOUR)
    state = dataclasses.replace(state, jumps=())
    with pytest.raises(RuleError, match="No jump to decide"):
        rules.apply(state, {"type": "jump", "to": 88, "go": True})


def test_jumping_is_optional_and_skipped_when_already_there():
    """"you may jump to Table 1": a choice; a tray already on Table 1 has nowhere to jump."""
    state = seat(reveal(setup(("black", "yellow")), ["cola"] * 2), [(1, 0), (88, 0)])
    assert state.phase == "queue"
    state = seat(reveal(setup(("yellow", "black")), ["cola"] * 2), [(1, 0), (88, 0)])
    state = rules.apply(state, {"type": "jump", "to": 1, "go": False})
    assert tables(state) == [1, 88] and state.phase == "queue"


# ----- table benefits -----------------------------------------------------------------------
def test_tables_1_3_5_give_coins():
    """"Table 1 gains 1 coin, Table 3 gains 2 coins and Table 5 gains 3 coins.\""""
    seats = [(1, 0), (3, 0), (5, 0), (2, 0), (88, 0), (4, 0)]
    state = queue(("yellow", "white", "blue", "red", "black", "green"), seats, ["cola"] * 6)
    state = end_turns(state)
    assert coins(state) == [1, 2, 3, 0, 0, 0]


def test_tables_2_and_4_give_a_dice_discount():
    """"Table 2 gives a 1 dice discount and Table 4 gives a 2 dice discount.\""""
    seats = [(2, 0), (4, 0), (1, 0), (3, 0), (88, 0)]
    state = queue(("yellow", "white", "blue", "red", "black"), seats, ["cola"] * 5)
    state = end_turns(state, 1)
    assert (rules.current(state), state.discount) == (0, 1)
    state = end_turns(state, 2)
    assert (rules.current(state), state.discount) == (1, 2)


@pytest.mark.parametrize(("table", "gain", "discount"), [(1, 2, 0), (2, 0, 2), (3, 4, 0)])
def test_doubling_tray_doubles_table_benefits(table, gain, discount):
    """"Double the benefits you earn from your table.\""""
    others = [t for t in (1, 2, 3, 88) if t != table]
    seats = [(table, 0)] + [(t, 0) for t in others]
    state = queue(("green", "yellow", "white", "blue"), seats)
    state = end_turns(state, [1, 2, 3, 88].index(table))
    assert rules.current(state) == 0
    assert (state.players[0].coins, state.discount) == (gain, discount)


def test_table_88_feeds_the_pot_and_a_bonus_die_then_pays_out_in_round_5():
    """"Table 88: Put 1 coin from the supply here. Gain 1 bonus die for the next round only. On
    the 5th round, take all accumulated coins here instead.\""""
    state = setup(("yellow", "white"))
    state = round_with(state, [(88, 0), (1, 0)])
    assert state.pot == 1 and rules.max_dice(state, 0) == 4 and rules.max_dice(state, 1) == 3
    state = round_with(state, [(1, 4), (88, 0)])   # the bonus die may be brought
    assert rules.max_dice(state, 0) == 3 and rules.max_dice(state, 1) == 4
    with pytest.raises(RuleError, match="Dice left"):
        seat(reveal(state, ["cola"] * 2), [(1, 4)])
    state = round_with(state, [(1, 0), (88, 0)])
    state = round_with(state, [(1, 0), (88, 0)])
    assert (state.round, state.pot, coins(state)) == (5, 4, [1 + 4 + 1 + 1, 1])
    state = round_with(state, [(88, 0), (1, 0)])
    assert state.pot == 0 and coins(state) == [7 + 4, 2]
    assert state.phase == "scoring"


@pytest.mark.parametrize(("setting", "pot_1", "dice_2", "paid_5"),
                         [("all", 2, 5, 10), ("dice", 1, 5, 4), ("none", 1, 4, 4)])
def test_doubling_tray_at_table_88(setting, pot_1, dice_2, paid_5):
    """"Double the benefits you earn from your table." at Table 88 ("Put 1 coin from the supply
    here. Gain 1 bonus die ... take all accumulated coins"); [games.makan] double_88."""
    state = setup(("green", "yellow"), {"double_88": setting})
    state = round_with(state, [(88, 0), (1, 0)])
    assert state.pot == pot_1 and rules.max_dice(state, 0) == dice_2
    for _ in range(3):
        state = round_with(state, [(1, 0), (88, 0)])
    pot = state.pot
    before = state.players[0].coins
    state = round_with(state, [(88, 0), (1, 0)])
    assert state.players[0].coins - before == paid_5 and pot == pot_1 + 3


# ----- purchases ------------------------------------------------------------------------------
def test_a_two_option_cost_is_paid_with_dice_or_with_coins():
    """"Where a cost shows two options, the printed card lets you pay either one." Bandung:
    "Cost 1 die or 1 coin.\""""
    state = queue(("yellow", "white"), [(1, 1), (88, 0)], ["bandung", "bandung"])
    state = buy(state, 0, "dice")
    assert (state.players[0].dice, state.players[0].coins) == (0, 1)
    state = buy(state, 1, "coins")
    assert (state.players[0].dice, state.players[0].coins, state.supply) == (0, 0, 30)
    assert state.players[0].drinks == ("bandung", "bandung")


def test_single_option_costs_refuse_the_other_currency():
    """"Kopi O: Cost 1 coin." and "Cola: Cost 2 dice.\""""
    state = queue(("yellow", "white"), [(1, 3), (88, 0)], ["kopi_o", "cola"])
    with pytest.raises(RuleError, match="costs coins"):
        buy(state, 0, "dice")
    with pytest.raises(RuleError, match="costs dice"):
        buy(state, 1, "coins")


def test_not_enough_dice_or_coins_is_refused():
    """"You may purchase any number of Drinks during your turn if you can afford them.\""""
    state = queue(("yellow", "white"), [(88, 1), (1, 1)], ["cola", "chendol"])
    state = end_turns(state, 1)   # Ben on Table 1 goes first; now Ana on 88: 1 die, 0 coins
    with pytest.raises(RuleError, match="2 dice"):
        buy(state, 0, "dice")
    with pytest.raises(RuleError, match="2 coins"):
        buy(state, 1, "coins")


def test_discount_counts_only_against_dice():
    """"'Gain 2 dice discount' allows you to spend 2 less dice when purchasing a drink that
    costs 1 or more dice.\""""
    state = queue(("yellow", "white", "green"), [(2, 0), (1, 1), (88, 0)], ["bandung", "kopi_o", "cola"])
    state = end_turns(state, 1)   # Ben (Table 1) ends; Ana on Table 2: 1 die discount, 0 coins
    assert (rules.current(state), state.discount) == (0, 1)
    with pytest.raises(RuleError, match="Bandung\nneeds 1 coin,"):
        buy(state, 0, "coins")
    state = buy(state, 0, "dice")   # free with the discount
    assert state.players[0].dice == 0 and state.discount == 0


def test_discount_is_one_total_across_several_purchases():
    """"Gain 1 or 2 dice discount in total when buying drinks.\""""
    state = queue(("yellow", "white", "green", "blue", "red"), [(4, 1), (1, 0), (2, 0), (3, 0), (88, 0)],
                  ["grass_jelly", "cola", "kopi_o", "teh_o", "chendol"])
    state = end_turns(state, 3)
    assert (rules.current(state), state.discount) == (0, 2)
    state = buy(state, 0, "dice")    # Grass Jelly 1 die: free, 1 discount left
    assert (state.players[0].dice, state.discount) == (1, 1)
    state = buy(state, 1, "dice")    # Cola 2 dice: 1 die after the last discount
    assert (state.players[0].dice, state.discount) == (0, 0)


def test_discount_each_setting_applies_per_drink():
    """"Gain 1 or 2 dice discount in total" read per drink ([games.makan] discount = "each")."""
    state = queue(("yellow", "white", "green"), [(2, 1), (1, 0), (88, 0)],
                  ["grass_jelly", "sugarcane", "cola"], {"discount": "each"})
    state = end_turns(state, 1)
    state = buy(buy(state, 0, "dice"), 1, "dice")
    assert state.players[0].dice == 1
    state = buy(state, 2, "dice")
    assert state.players[0].dice == 0 and state.players[0].drinks == ("grass_jelly", "sugarcane", "cola")


def test_a_bought_drink_is_gone_for_later_players():
    """"Drink cards are limited and not replenished between player turns, it is possible for
    players who are later in turn order to be left with nothing to purchase.\""""
    state = queue(("yellow", "white"), [(1, 3), (88, 3)], ["milo_dino", "cola"])
    state = buy(buy(state, 0, "dice"), 1, "dice")
    state = end_turns(state, 1)
    assert rules.current(state) == 1 and rules.visible_slots(state, 1) == ()
    with pytest.raises(RuleError, match="bought"):
        buy(state, 1, "dice")


def test_private_drink_only_for_its_owner():
    """"At the start of each round, reveal the top Drink card of the deck. Only you may buy it
    during your turn in the 'Queue'.\""""
    state = setup(("yellow", "blue"))
    state = no_jumps(seat(reveal(state, ["cola", "cola"], private="sugarcane"), [(1, 3), (88, 3)]))
    assert rules.visible_slots(state, 0) == (0, 1)
    with pytest.raises(RuleError, match="for Ben only"):
        buy(state, 2, "dice")
    state = end_turns(state, 1)
    state = buy(state, 2, "dice")
    assert state.players[1].drinks == ("sugarcane",)


def test_leftover_dice_become_coins():
    """"For each leftover die unspent during your turn, earn 1 coin. Then retrieve all dice of
    your color.\""""
    state = queue(("yellow", "white"), [(88, 3), (1, 2)], ["grass_jelly", "cola"])
    state = buy(state, 0, "dice")    # Ben: 2 dice - 1 = 1 left, +1 coin from Table 1
    state = end_turns(state, 1)
    assert (state.players[1].coins, state.players[1].dice) == (2, 0)
    state = end_turns(state, 1)
    assert state.players[0].coins == 3


def test_owned_drinks_act_in_the_next_queue():
    """Milo Dino: "During the 'Queue', if you are not on table 1, earn the amount of coins shown:
    1 coin." Bandung: "gain the shown amount of dice discounts off your total when buying
    drinks: 1 dice discount.\""""
    state = queue(("yellow", "white", "green"), [(1, 2), (2, 0), (88, 0)],
                  ["milo_dino", "bandung", "kopi_o"])
    state = end_turns(buy(buy(state, 0, "dice"), 1, "dice"))   # Ana: nothing extra this Queue
    assert coins(state)[0] == 1
    state = round_with(state, [(2, 0), (1, 0), (88, 0)])       # not on Table 1: Milo Dino pays
    assert coins(state)[0] == 1 + 1
    state = no_jumps(seat(reveal(state, ["cola"] * 3), [(1, 0), (2, 0), (88, 0)]))
    assert (rules.current(state), state.gained.coins, state.discount) == (0, 1, 1)


def test_at_once_setting_lets_a_new_drink_act_in_the_same_queue():
    """"During the 'Queue', gain the shown amount of dice discounts" read as applying from the
    moment of purchase ([games.makan] new_drinks = "at_once")."""
    state = queue(("yellow", "white", "green"), [(2, 3), (1, 0), (88, 0)],
                  ["ice_kachang", "chendol", "cola"], {"new_drinks": "at_once"})
    state = end_turns(state, 1)
    state = buy(state, 0, "dice")      # Ice Kachang: 2 dice less Table 2's 1, then 2 discount
    assert (state.players[0].dice, state.discount) == (2, 2)
    state = buy(state, 1, "dice")      # Chendol free; earns 2 coins at once (not on Table 1)
    assert (state.players[0].dice, state.players[0].coins) == (2, 2)


# ----- the coin ledger ----------------------------------------------------------------------
def test_limited_pile_pays_what_it_has():
    """"Coins x30" and "Put all the coins nearby in a single pile": [games.makan] coin_supply."""
    state = queue(("yellow", "white"), [(1, 3), (88, 0)], options={"coin_supply": 2})
    state = end_turns(state, 1)
    assert (coins(state)[0], state.supply) == (2, 0)
    state = end_turns(state)
    # Table 88's coin cannot come from an empty pile; the bonus die still does.
    assert (state.pot, state.supply, state.players[1].bonus) == (0, 0, 1)


def test_unlimited_pile_setting():
    """"Tables 1, 3 and 5: Gain the amount of coins shown" and "Table 88: Put 1 coin from the
    supply here", with coin_supply = 0 (a pile that never runs out): Table 1 pays 1 coin, the
    3 leftover dice 3 more, Table 88 still gets its coin, and the pile goes below zero."""
    state = queue(("yellow", "white"), [(1, 3), (88, 0)], options={"coin_supply": 0})
    state = end_turns(state)
    assert coins(state) == [4, 0] and state.pot == 1 and state.supply == -5
    assert rules.summary(state)["supply"] is None


# ----- scoring ------------------------------------------------------------------------------
def scored_game() -> rules.State:
    """Three players; Ana (face tray) buys Cola, Grass Jelly, Kopi O; Ben (drink tray) Teh O,
    Sugarcane Juice, Iced Lemon Tea; Cai (doubling tray) nothing."""
    state = setup(("yellow", "white", "green"))
    state = no_jumps(seat(reveal(state, ["cola", "grass_jelly", "kopi_o"]), [(1, 3), (2, 3), (88, 0)]))
    state = end_turns(buy(buy(buy(state, 0, "dice"), 1, "dice"), 2, "coins"))
    state = no_jumps(seat(reveal(state, ["teh_o", "sugarcane", "iced_lemon_tea"]),
                          [(2, 3), (1, 3), (88, 5)]))
    state = end_turns(buy(buy(buy(state, 0, "coins"), 1, "dice"), 2, "dice"))
    for _ in range(3):
        state = round_with(state, [(1, 0), (2, 0), (88, 0)])
    return state


def test_scoring_asks_only_what_each_player_needs():
    """Kopi O "score 1 point for each copy of the shown dice faces"; pairing drinks "pair this
    with an unpaired Snack/Meal"; tray "score 1 point per dice face you have the most of".
    Without such a drink or tray nothing but food points is needed."""
    state = scored_game()
    assert rules.score_needs(state, 0) == (True, False, (1, 2, 3, 4, 5, 6))
    assert rules.score_needs(state, 1) == (False, True, (4, 5, 6))
    assert rules.score_needs(state, 2) == (False, False, ())
    with pytest.raises(RuleError, match="snacks"):
        rules.apply(state, {"type": "score", "player": 0, "food": 20})


def test_full_scoring_with_pairing_and_both_tray_end_abilities():
    """"players add up the point values on the Food cards they managed to obtain, any points from
    Drinks, and any coins they may have left." Cola "pair this with an unpaired Snack ... 6
    points"; "score 1 point per dice face you have the most of"; "score 1 point per Drink you
    bought\""""
    state = scored_game()
    assert coins(state) == [1 + 1 + 1 + 1 - 1 + 3, 3 + 1 - 1, 5 + 2 * 8]
    state = rules.apply(state, {"type": "score", "player": 0, "food": 20, "snacks": 1,
                                "faces": {"1": 2, "2": 1, "3": 0, "4": 4, "5": 1, "6": 0}})
    # One snack: the Cola (6) pairs, the Grass Jelly (3) does not; Kopi O: 2+1+0; four 4s.
    assert dict(state.players[0].score) == {"Food": 20, "Faces": 3, "Pairs": 6, "Tray": 4, "Coins": 6}
    state = rules.apply(state, {"type": "score", "player": 1, "food": 21, "meals": 3,
                                "faces": {"4": 1, "5": 2, "6": 0}})
    assert dict(state.players[1].score) == {"Food": 21, "Faces": 3, "Pairs": 12, "Tray": 3, "Coins": 3}
    with pytest.raises(RuleError, match="scored"):
        rules.apply(state, {"type": "score", "player": 1, "food": 1, "meals": 0,
                            "faces": {"4": 0, "5": 0, "6": 0}})
    state = rules.apply(state, {"type": "score", "player": 2, "food": 4})
    assert [p.total for p in state.players] == [39, 42, 25]
    assert state.phase == "over" and rules.winners(state) == (1,)
    assert rules.is_finished(state)


def test_pairing_uses_the_best_drinks_first():
    """"pair this with an unpaired Meal during scoring": each Meal pairs once, best drink first."""
    state = scored_game()
    state = rules.apply(state, {"type": "score", "player": 1, "food": 0, "meals": 1,
                                "faces": {"4": 0, "5": 0, "6": 0}})
    assert dict(state.players[1].score)["Pairs"] == 8


def test_players_tied_for_first_share_the_victory():
    """"Players tied for first share the victory.\""""
    state = setup(("white", "green"))
    for _ in range(5):
        state = round_with(state, [(1, 0), (88, 0)])
    a, b = coins(state)
    state = rules.apply(state, {"type": "score", "player": 0, "food": 30 - a})
    state = rules.apply(state, {"type": "score", "player": 1, "food": 30 - b})
    assert rules.winners(state) == (0, 1)
    assert rules.summary(state)["winners"] == ["Ana", "Ben"]


# ----- refusals -------------------------------------------------------------------------------
def test_refusals_are_short_and_change_nothing():
    """"place your Tray Card ... on one of the unoccupied Table cards": a table taken twice, too
    many dice, and out-of-phase actions are refused with two short lines at most."""
    from companion.frame.canvas import WIDTH
    from companion.frame.font import SMALL

    state = seat(reveal(setup(("yellow", "white", "green")), ["cola"] * 3), [(1, 0)])
    attempts = [
        {"type": "seat", "player": 1, "table": 1, "dice": 0},
        {"type": "seat", "player": 0, "table": 2, "dice": 0},
        {"type": "seat", "player": 1, "table": 7, "dice": 0},
        {"type": "seat", "player": 1, "table": 2, "dice": 4},
        {"type": "buy", "slot": 0, "pay": "dice"},
        {"type": "score", "player": 0, "food": 3},
        {"type": "fly"},
    ]
    for action in attempts:
        with pytest.raises(RuleError) as refused:
            rules.apply(state, action)
        lines = [line for part in str(refused.value).split("\n") for line in SMALL.wrap(part, WIDTH - 10)]
        assert len(lines) <= 2, str(refused.value)
    assert tables(state) == [1, None, None]
