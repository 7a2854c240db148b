"""What the box knew at the table is in ``companion replay``'s output: Makan Mania's bonus dice
(who holds them each round and their use) and each Café reroll as Double Trouble judged it.
Each check quotes the rulebook sentence it holds the output to."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

from companion.games.catalog import GAMES

ROOT = Path(__file__).resolve().parent.parent


def example(name: str) -> list[dict]:
    text = (ROOT / "docs" / "examples" / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def test_makans_bonus_die_is_the_table_88_players_for_the_next_round_only():
    """"Table 88: Put 1 coin from the supply here. Gain 1 bonus die for the next round only."
    (rules/makan_mania.txt): each round from the second names the player who sat at Table 88
    the round before, the dice they rolled with it, and the unplaced dice they brought."""
    spec, actions = GAMES["makan"], example("makan_4p.jsonl")
    state = spec.rules.initial_state()
    at_88: dict[int, str] = {}       # round -> who sat at Table 88
    brought: dict[tuple[int, str], int] = {}
    for action in actions:
        state = spec.rules.apply(state, action)
        if action["type"] == "seat":
            who = state.players[action["player"]]
            brought[(state.round, who.name)] = action["dice"]
        if state.phase == "queue":  # everyone sat and jumped: Table 88's player this round
            at_88[state.round] = next(p.name for p in state.players if p.table == 88)
    said = spec.rules.summary(state)["bonus_dice"]
    assert [b["round"] for b in said] == [2, 3, 4, 5]  # none in the first round
    for b in said:
        assert b["holder"] == at_88[b["round"] - 1]
        assert (b["dice"], b["dice_rolled"]) == (1, 4)  # "1 bonus die", with the 3 of each player
        assert b["unplaced_to_queue"] == brought[(b["round"], b["holder"])]


def test_a_makan_holder_still_rolling_is_named_before_they_sit():
    spec, actions = GAMES["makan"], example("makan_4p.jsonl")
    second_rush = [i for i, a in enumerate(actions) if a["type"] == "seat"][4]  # round 2's first
    state = spec.rules.replay(actions[:second_rush])
    assert state.round == 2 and state.phase == "rush"
    holder = spec.rules.summary(state)["bonus_dice"]
    assert [(b["round"], b["unplaced_to_queue"]) for b in holder] == [(2, None)]


def test_each_cafe_reroll_says_what_double_trouble_read_and_did():
    """"If, as an action, you re-roll all dice that were not used and two dice then show the
    same drink, dish or bill, you must immediately turn one order over to show the dark side."
    and "To determine whether there are doubles, you must consider all dice (both those just
    rolled and those currently placed on an order)." (rules/crazy_cafe.txt)."""
    spec, actions = GAMES["cafe"], example("cafe_game.jsonl")
    state = spec.rules.initial_state()
    seen = []
    for action in actions:
        before, state = state, spec.rules.apply(state, action)
        if action.get("kind") == "reroll":
            seen.append((before.light, before.dark, state))
    rerolls = [r for log in spec.rules.summary(state)["rounds"] for r in log["rerolls"]]
    assert len(rerolls) == len(seen) >= 3
    for said, (light, dark, after) in zip(rerolls, seen, strict=True):
        faces = said["faces"]
        pairs = [[a + 1, b + 1] for a, b in combinations(range(4), 2) if faces[a] == faces[b]]
        assert said["doubles"] == pairs  # every die, the ones on orders too
        assert set(map(tuple, said["new_doubles"])) <= set(map(tuple, pairs))
        flipped = bool(said["new_doubles"]) and light > 0
        assert said["double_trouble"] == ("flip" if flipped else "none")
        assert (said["light"], said["dark"]) == (after.light, after.dark)
        assert (said["light"], said["dark"]) == ((light - 1, dark + 1) if flipped else (light, dark))
    assert any(r["double_trouble"] == "flip" for r in rerolls)


def test_the_rerolls_after_an_order_and_the_setup_roll_are_no_double_trouble_rerolls():
    """"Exception! Double Trouble does not apply: When rolling the dice for the first time during
    game setup and when re-rolling the dice used after an order has been fulfilled."
    (rules/crazy_cafe.txt): those rolls are not in the list; without Double Trouble every
    reroll says "off" and no order turns."""
    spec, actions = GAMES["cafe"], example("cafe_game.jsonl")
    rerolls = sum(a.get("kind") == "reroll" for a in actions)
    assert rerolls < sum(a["type"] == "roll" for a in actions)
    # The same game without Double Trouble: every order it fulfils is a light one.
    plain = [{**actions[0], "double_trouble": False},
             *({**a, "side": "light"} if "side" in a else a for a in actions[1:])]
    state = spec.rules.replay(plain)
    said = [r for log in spec.rules.summary(state)["rounds"] for r in log["rerolls"]]
    assert len(said) == rerolls
    assert {r["double_trouble"] for r in said} == {"off"} and {r["dark"] for r in said} == {0}
