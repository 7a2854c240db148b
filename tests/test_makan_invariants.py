"""Random legal Makan Mania games keep the ledger: coins never negative, every drink card bought
at most once, and coins conserved between the pile, the Table 88 pot and the players ("Put all
the coins nearby in a single pile"; "Drink cards are limited and not replenished")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import RuleError
from companion.games.makan_mania import rules
from companion.games.makan_mania.data import load_drinks, load_trays

pytestmark = pytest.mark.slow

DRINKS, TRAYS = load_drinks(), load_trays()


def draw_action(data: st.DataObject, state: rules.State) -> dict:
    """One legal action for ``state``, chosen by hypothesis."""
    n = len(state.players)
    private = rules.holder(state, "private_drink") is not None
    if state.phase == "reveal":
        count = n + private
        if state.deal:
            cards = data.draw(st.permutations(rules.deck_cards(state)))[:count]
        else:
            cards = data.draw(st.lists(st.sampled_from([d.key for d in DRINKS]),
                                       min_size=count, max_size=count))
        return {"type": "deal" if state.deal else "reveal", "drinks": cards[:n],
                "private": cards[-1] if private else None}
    if state.phase == "rush":
        who = data.draw(st.sampled_from(rules.unseated(state)))
        table = data.draw(st.sampled_from(rules.free_tables(state)))
        dice = data.draw(st.integers(0, rules.max_dice(state, who)))
        return {"type": "seat", "player": who, "table": table, "dice": dice}
    if state.phase == "jumps":
        _, target, over = rules.pending_jump(state)
        go = data.draw(st.booleans())
        tch = data.draw(st.lists(st.sampled_from(over), unique=True)) if go and target == 1 else []
        return {"type": "jump", "to": target, "go": go, "tch": tch}
    if state.phase == "queue":
        who = rules.current(state)
        options = [(slot, pay) for slot in rules.visible_slots(state, who)
                   for pay in rules.pay_options(state, slot)]
        if options and data.draw(st.integers(0, 3)) > 0:
            slot, pay = data.draw(st.sampled_from(options))
            return {"type": "buy", "slot": slot, "pay": pay}
        return {"type": "end_turn"}
    # scoring
    who = data.draw(st.sampled_from([i for i, p in enumerate(state.players) if p.score is None]))
    snacks, meals, faces = rules.score_needs(state, who)
    count = st.integers(0, 12)
    action = {"type": "score", "player": who, "food": data.draw(st.integers(0, 80)),
              "faces": {str(f): data.draw(count) for f in faces}}
    if snacks:
        action["snacks"] = data.draw(count)
    if meals:
        action["meals"] = data.draw(count)
    return action


def check_ledger(state: rules.State, bought: set[tuple[int, int]]) -> None:
    players = state.players
    assert all(p.coins >= 0 and p.dice >= 0 for p in players)
    assert state.pot >= 0
    if state.options.coin_supply:
        assert state.supply >= 0
    assert state.supply + state.pot + sum(p.coins for p in players) == state.options.coin_supply
    assert sum(len(p.drinks) for p in players) == len(bought)
    seated = [p.table for p in players if p.table is not None]
    assert len(seated) == len(set(seated))
    if state.deal:
        assert all(left >= 0 for left in state.deck)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_random_legal_games_keep_the_ledger(data):
    """"Coins x30 ... Put all the coins nearby in a single pile": in random legal games coins
    are never negative, each revealed drink is bought at most once, and coins only move between
    the pile, Table 88 and the players."""
    count = data.draw(st.integers(2, 6), label="players")
    trays = data.draw(st.permutations([t.colour for t in TRAYS]), label="trays")[:count]
    options = {
        "push": data.draw(st.sampled_from(rules.Options.CHOICES["push"])),
        "discount": data.draw(st.sampled_from(rules.Options.CHOICES["discount"])),
        "new_drinks": data.draw(st.sampled_from(rules.Options.CHOICES["new_drinks"])),
        "double_88": data.draw(st.sampled_from(rules.Options.CHOICES["double_88"])),
        "coin_supply": data.draw(st.sampled_from([30, 0, 6])),
    }
    deal = data.draw(st.booleans(), label="deal")
    setup = {"type": "setup", "players": [{"name": f"P{i + 1}", "tray": t} for i, t in enumerate(trays)],
             "drinks": "deal" if deal else "enter", "options": options}
    state = rules.apply(rules.initial_state(), setup)
    bought: set[tuple[int, int]] = set()
    played = [setup]
    for _ in range(2000):
        if rules.is_finished(state):
            break
        action = draw_action(data, state)
        state = rules.apply(state, action)  # a legal action is never refused
        played.append(action)
        if action["type"] == "buy":
            key = (state.round, action["slot"])
            assert key not in bought
            bought.add(key)
            with pytest.raises(RuleError):
                rules.apply(state, action)  # the same card cannot be bought twice
        check_ledger(state, bought)
    assert rules.is_finished(state)
    assert rules.winners(state)
    assert rules.replay(played) == state  # undo and resume: the whole game on one draft
