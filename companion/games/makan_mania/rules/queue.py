"""Makan Mania's Queue: the jumps of the jump trays once everyone sits, then each player's
turn in table order with its table benefit and drink effects, purchases, and the end of a turn
and of a round."""

from __future__ import annotations

from companion.contract.rules import Action, flag, whole, whole_value
from companion.ui.words import plural

from .state import (
    _TABLES,
    JUMP_88_FROM_1_COINS,
    JUMP_TARGETS,
    NO_GAIN,
    ROUNDS,
    TABLE_BENEFITS,
    Card,
    Gained,
    State,
    _available,
    _err,
    _name,
    _new,
    _str,
    discounted_dice,
    jump_of,
)


def _next_jump(state: State) -> None:
    """Skip the jumps that cannot move anyone (already on the target table); after the last
    jump, the Queue."""
    jumps, players, abilities = state.jumps, state.players, state.abilities
    while jumps and players[abilities.index(jumps[0])].table == JUMP_TARGETS[jumps[0]]:
        jumps = jumps[1:]
    state.jumps = jumps
    if not jumps:
        _begin_turn(state, 0)


def _jump(state: State, action: Action) -> None:
    jumper, target, over = jump_of(state)
    to = whole(action, "to", 1, 88, "Jump target", target)
    go = flag(action, "go", False, "Go")
    tch = action.get("tch", [])
    if not isinstance(tch, list):
        raise _err("Tch must be a list", "of players")
    last = len(state.players) - 1
    for who in tch:
        whole_value(who, 0, last, "Tch player")
    if to != target:
        raise _err(f"First: jump to {target}?")
    if tch and (any(i not in over for i in tch) or len(set(tch)) < len(tch)):
        raise _err("Only players jumped", "over may say tch")
    if tch and target == 88:
        raise _err("No tch for a jump", "to Table 88")
    if go:
        _move(state, jumper, target, tch)
    elif tch:
        raise _err("No jump, no tch")
    state.jumps = state.jumps[1:]
    _next_jump(state)


def _move(state: State, jumper: int, target: int, tch: list[int]) -> None:
    """The jumper takes Table ``target`` and the players it passes move (``options.push``);
    players who said "tch", and a jumper from Table 1 to 88, earn their coins."""
    from_table = state.players[jumper].table
    seq = list(state.queue)
    k = seq.index(jumper)
    end = len(seq) - 1 if target == 88 else 0
    if state.options.push == "swap":
        seq[k], seq[end] = seq[end], seq[k]
    else:  # everyone between moves one table towards the jumper's old place
        seq.pop(k)
        seq.insert(end, jumper)
    earned = dict.fromkeys(tch, 1)
    if target == 88 and from_table == 1:
        earned[jumper] = JUMP_88_FROM_1_COINS
    seat_of = dict(zip(seq, _TABLES[len(seq)], strict=True))
    for index, p in enumerate(state.players):
        p.table = seat_of[index]
        if index in earned:
            got = _available(state, earned[index], state.supply)
            state.supply -= got
            p.coins += got
    state.queue = tuple(seq)


def _begin_turn(state: State, turn: int) -> None:
    """Queue turn ``turn`` starts: the table benefit (doubled by the doubling tray), then owned
    drinks."""
    who = state.queue[turn]
    p = state.players[who]
    supply = state.supply
    table = p.table
    factor = 2 if p.ability == "double" else 1
    coins = discount = pot_in = pot_out = bonus = pot_short = 0
    if table in TABLE_BENEFITS:
        kind, amount = TABLE_BENEFITS[table]
        if kind == "coins":
            coins += amount * factor
        else:
            discount += amount * factor
    else:  # Table 88
        coin_factor = factor if state.options.double_88 == "all" else 1
        dice_factor = factor if state.options.double_88 in ("all", "dice") else 1
        if state.round < ROUNDS:
            pot_in = _available(state, coin_factor, supply)
            pot_short = coin_factor - pot_in
            supply -= pot_in
            bonus = dice_factor
        else:
            pot_out = state.pot
            coins += state.pot * (coin_factor - 1)  # the doubled half comes from the pile
    effects = state.book.effects
    for key in p.drinks:
        drink_discount, drink_coins = effects[key]
        discount += drink_discount
        if table != 1:
            coins += drink_coins
    got = _available(state, coins, supply)
    p.coins += got + pot_out
    p.next_bonus = bonus
    state.phase, state.turn, state.supply, state.discount = "queue", turn, supply - got, discount
    state.pot += pot_in - pot_out
    state.gained = _new(Gained, (got, coins - got, pot_in, pot_out, bonus, discount, pot_short))


def _buy(state: State, action: Action) -> None:
    who = state.queue[state.turn]
    row = state.row
    slot = whole(action, "slot", 0, len(row) - 1, "Slot")
    key, owner, buyer = row[slot]
    drink = state.book.by_key[key]
    if _str(action, "drink", key) != key:
        raise _err(f"Slot {slot} holds", drink.name)
    if buyer is not None:
        raise _err(drink.name, f"bought by {_name(state, buyer)}")
    if owner is not None and owner != who:
        raise _err(drink.name, f"for {_name(state, owner)} only")
    p = state.players[who]
    dice, coins, supply, discount = p.dice, p.coins, state.supply, state.discount
    pay = _str(action, "pay")
    if pay == "dice":
        if drink.dice is None:
            raise _err(drink.name, "costs coins, not dice")
        price = discounted_dice(state, drink.dice)
        if dice < price:
            raise _err(drink.name, f"needs {plural(price, 'die')}, has {dice}")
        dice -= price
        if state.options.discount == "pool":
            discount -= drink.dice - price
    elif pay == "coins":
        if drink.coins is None:
            raise _err(drink.name, "costs dice, not coins")
        if coins < drink.coins:
            raise _err(drink.name, f"needs {plural(drink.coins, 'coin')}, has {coins}")
        coins -= drink.coins
        supply += drink.coins
    else:
        raise _err("Pay with dice or coins")
    if state.options.new_drinks == "at_once":
        drink_discount, drink_coins = state.book.effects[key]
        discount += drink_discount
        if drink_coins and p.table != 1:
            got = _available(state, drink_coins, supply)
            coins, supply = coins + got, supply - got
    p.dice, p.coins, p.drinks = dice, coins, (*p.drinks, key)
    state.supply, state.discount = supply, discount
    row[slot] = _new(Card, (key, owner, who))


def _end_turn(state: State, action: Action) -> None:
    who = state.queue[state.turn]
    player = whole(action, "player", 0, len(state.players) - 1, "Player", who)
    if player != who:
        raise _err(f"It is {_name(state, who)}'s turn")
    p = state.players[who]
    got = _available(state, p.dice, state.supply)  # "For each leftover die unspent ... earn 1 coin"
    p.coins += got
    p.dice = 0
    state.supply -= got
    if state.turn + 1 < len(state.players):
        _begin_turn(state, state.turn + 1)
        return
    for p in state.players:  # Table 88's bonus dice are for the next round only
        p.bonus, p.next_bonus = p.next_bonus, 0
    state.row, state.queue, state.discount, state.gained = [], (), 0, NO_GAIN
    if state.round >= ROUNDS:
        state.phase = "scoring"
    else:
        state.phase, state.round = "reveal", state.round + 1

