"""Miams coach: exact odds of every skewer for every keep (companion/games/miams/odds.py).

The rulebook's skewers: "Pair: 2 identical fruits", "Three of a kind: 3 identical fruits",
"Full house: 3 identical fruits and 2 other identical fruits", "Four of a kind: 4 identical
fruits", "Straight: 5 different fruits", "Yums: 5 identical fruits". "Crosses on the dice do not
contribute towards fruit skewers, but can be rerolled, like any other die face." The red die:
"On the red die, the Cross face is replaced with a Marshmallow face" and "the Marshmallow is a
wild that can replace any fruit"; with it six dice are rolled and any five make the skewer
(docs/rulings.md).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.games.miams import odds
from companion.games.miams.odds import Keep, Weights, keep_marks, percent, skewers_of, table
from companion.games.miams.sheet import SKEWER_NAMES, SKEWERS
from firmware_bridge.faces import FRUITS, RED, WHITE

pytestmark = pytest.mark.slow

F1, F2, F3, F4, F5 = FRUITS
PAIR, THREE, FULL, FOUR, STRAIGHT, YUMS = range(6)
NOTHING = Keep(())


def fresh(red: str | None = None, rerolls: int = 1) -> odds.Line:
    """The line that rerolls every die: the odds of a fresh roll."""
    return table([F1, F2, F3, F4, "cross"], red, rerolls).line(NOTHING)


# ----- known values, derived by hand --------------------------------------------------------------

def test_yums_from_five_fresh_white_dice_is_5_in_6_to_the_5():
    """Five white dice all showing one fruit: 5 fruits of the 6**5 ordered rolls; a cross makes
    nothing, so five crosses are no Yums."""
    assert fresh().available[YUMS] == Fraction(5, 6 ** 5)


def test_yums_from_a_fresh_roll_with_the_red_die():
    """Six dice, the marshmallow wild. Split on the red die (1/6 each face):

    - marshmallow: Yums when some fruit shows on 4 or 5 white dice. All five the same fruit:
      5 rolls; exactly four of fruit f and one other face (4 fruits or a cross): 5 fruits x 5
      places x 5 faces = 125. So 130 / 6**5.
    - fruit g (5 faces): Yums needs five g among the six (4 or 5 white g: 1 + 5 x 5 = 26 rolls)
      or five white dice of one other fruit (4 rolls). So 30 / 6**5.

    Together (130 + 5 x 30) / 6**6 = 280 / 46656 = 35 / 5832.
    """
    assert fresh("fruit3").available[YUMS] == Fraction(35, 5832)
    assert fresh("marshmallow").available[YUMS] == Fraction(35, 5832)


def test_keeping_four_identical_fruits_yums_is_one_in_six():
    """Four fruit1 kept, the fifth die rerolled once: Yums only if it shows fruit1."""
    position = table([F1, F1, F1, F1, "cross"], None, 1)
    assert position.line(Keep((F1,) * 4)).available[YUMS] == Fraction(1, 6)
    assert position.best["yums"].keep == Keep((F1,) * 4)


def test_four_identical_fruits_and_the_red_die_rerolled_yums_is_two_in_six():
    """Five white dice kept (four fruit1), only the red die rerolled: fruit1 or the marshmallow
    (wild) make five fruit1, 2 faces of 6. Rerolling the fifth white die as well is better:
    no Yums only when the white die misses fruit1 (5/6) and the red die shows neither fruit1
    nor the marshmallow (4/6), so 1 - 20/36 = 4/9."""
    position = table([F1, F1, F1, F1, F2], "fruit3", 1)
    assert position.line(Keep((F1, F1, F1, F1, F2))).available[YUMS] == Fraction(2, 6)
    assert position.best["yums"].keep == Keep((F1,) * 4)
    assert position.best["yums"].chance == Fraction(4, 9)


def test_a_pair_from_a_fresh_roll():
    """No pair when no fruit shows twice: k crosses (C(5, k) places) and 5 - k different fruits
    in order (5!/k!): 120 + 600 + 600 + 200 + 25 + 1 = 1546 of 7776 rolls. A pair: 6230 / 7776."""
    assert fresh().available[PAIR] == Fraction(3115, 3888)


def test_a_straight_from_a_fresh_roll_and_with_one_die_to_go():
    """Five different fruits: the 5! orders of the five fruits, 120 / 7776. Four different kept,
    the fifth rerolled: only the missing fruit, 1/6."""
    assert fresh().available[STRAIGHT] == Fraction(120, 6 ** 5)
    position = table([F1, F2, F3, F4, F4], None, 1)
    assert position.line(Keep((F1, F2, F3, F4))).available[STRAIGHT] == Fraction(1, 6)


def test_the_marshmallow_fills_a_straight():
    """fruit1-3 and the marshmallow kept, two white dice rerolled: a fourth fruit (fruit4 or
    fruit5) on either die makes five different with the wild, 1 - (4/6)**2 = 5/9."""
    position = table([F1, F2, F3, "cross", "cross"], "marshmallow", 1)
    assert position.line(Keep((F1, F2, F3), red=True)).available[STRAIGHT] == Fraction(5, 9)


def test_full_house_exactly_and_at_least():
    """Three fruit1 and a fruit2 kept, one die rerolled: fruit2 makes a Full house (1/6);
    fruit1 makes Four of a kind, a higher row, so "Full house or better" is 2/6."""
    line = table([F1, F1, F1, F2, "cross"], None, 1).line(Keep((F1, F1, F1, F2)))
    assert line.available[FULL] == Fraction(1, 6)
    assert line.at_least[FULL] == Fraction(2, 6)
    assert line.available[FOUR] == line.at_least[FOUR] == Fraction(1, 6)


def test_a_straight_is_no_pair_but_is_at_least_a_pair():
    """With no reroll left the dice showing are final: five different fruits allow a Straight
    and no Pair, yet the best skewer they allow is above Pair."""
    position = table([F1, F2, F3, F4, F5], None, 0)
    assert position.now == ("straight",)
    (line,) = position.lines
    assert line.available[PAIR] == 0 and line.at_least[PAIR] == 1
    assert line.at_least[YUMS] == 0 and line.crosses == 0


def test_crosses_count_as_nothing_and_are_rerolled():
    """A cross is no fruit: fruit1 + four crosses is no pair. The best keep for a Pair keeps every
    fruit and rerolls the crosses; each rerolled white die shows a cross 1 time in 6."""
    assert skewers_of([F1, "cross", "cross", "cross", "cross"]) == ()
    position = table([F1, F1, F3, "cross", F5], None, 1)
    pick = position.best["pair"]
    assert pick.keep == Keep((F1, F1, F3, F5)) and pick.chance == 1
    assert pick.crosses == Fraction(1, 6)
    assert position.line(Keep((F1, F1, F3, F5, "cross"))).crosses == 1


def test_yums_is_no_full_house_and_six_dice_allow_more():
    """"3 identical fruits and 2 other identical fruits": five fruit1 are no Full house. With the
    red die six dice show; any five make the skewer: four fruit1 and two fruit2 allow a Full house
    as well as Four of a kind."""
    assert skewers_of([F1] * 5) == ("pair", "three", "four", "yums")
    assert skewers_of([F1, F1, F1, F1, F2], "fruit2") == ("pair", "three", "full_house", "four")
    assert skewers_of([F1, F1, F2, F2, "cross"], "marshmallow") == ("pair", "three", "full_house")


def test_hearts_and_cross_cost_choose_the_overall_keep():
    """Pair worth 2 hearts, Three of a kind 4, the other rows 0. fruit1 fruit1 and three other
    fruits: rerolling those three gives a Three of a kind when any shows fruit1 (216 - 5**3 = 91
    rolls) or all three show one other fruit (4), so 2 + 2 x 95/216 = 311/108 hearts, and 3/6
    crosses on average. Free crosses: reroll them. At 3 hearts a cross, 311/108 - 3/2 < 2: keep
    everything."""
    dice = [F1, F1, F2, F3, F4]
    free = table(dice, None, 1, Weights((2, 4, 0, 0, 0, 0)))
    assert free.overall.keep == Keep((F1, F1))
    assert free.overall.value == Fraction(311, 108) and free.overall.crosses == Fraction(1, 2)
    costly = table(dice, None, 1, Weights((2, 4, 0, 0, 0, 0), Fraction(3)))
    assert costly.overall.keep == Keep(tuple(dice))
    assert costly.overall.value == 2 and costly.overall.crosses == 0
    assert costly.line(Keep((F1, F1))).value == Fraction(311, 108) - Fraction(3, 2)


def test_every_distinct_keep_once_most_dice_first():
    """Keeping two identical fruits is one choice, however many dice show it: fruit1 x3 and two
    crosses have 4 x 3 keeps of white dice, each with the red die kept or rerolled."""
    position = table([F1, F1, F1, "cross", "cross"], "fruit2", 1)
    keeps = [line.keep for line in position.lines]
    assert len(keeps) == len(set(keeps)) == 4 * 3 * 2
    assert keeps[0] == Keep((F1, F1, F1, "cross", "cross"), red=True)
    assert keeps[-1] == NOTHING
    sizes = [len(k.white) + k.red for k in keeps]
    assert sizes == sorted(sizes, reverse=True)


def test_keep_marks_name_the_dice_to_keep():
    """The screen marks the dice showing: the first of equal faces."""
    assert keep_marks([F1, "cross", F1, F1, F5], Keep((F1, F1, F5))) == (True, False, True, False, True)


@pytest.mark.parametrize(("white", "red", "rerolls", "message"), [
    ([F1] * 4, None, 1, "5 white dice, not 4"),
    ([F1] * 4 + ["marshmallow"], None, 1, "white die 'marshmallow'"),
    ([F1] * 5, "cross", 1, "red die 'cross'"),
    ([F1] * 5, None, 9, "rerolls left: 0 to 4"),
])
def test_bad_positions_are_refused_with_a_message(white, red, rerolls, message):
    with pytest.raises(ValueError, match=message):
        table(white, red, rerolls)


def test_percent_shows_one_decimal_and_a_sliver():
    assert percent(Fraction(1, 6)) == "16.7%"
    assert percent(Fraction(5, 6 ** 5)) == "0.1%"
    assert percent(Fraction(1, 6 ** 6)) == "<0.1%"
    assert percent(Fraction(0)) == "0.0%"


# ----- brute force: every ordered outcome of every reroll, the best keep by plain recursion -------

@cache
def oracle_skewers(dice: tuple[str, ...]) -> frozenset[int]:
    """By the definitions, on every five of the dice with the marshmallow as each fruit."""
    found = set()
    for five in itertools.combinations(dice, 5):
        for faces in itertools.product(*[FRUITS if d == "marshmallow" else (d,) for d in five]):
            fruits = [f for f in faces if f != "cross"]
            groups = [*sorted(Counter(fruits).values(), reverse=True), 0, 0]
            for skewer, holds in ((PAIR, groups[0] >= 2), (THREE, groups[0] >= 3),
                                  (FULL, groups[0] == 3 and groups[1] == 2), (FOUR, groups[0] >= 4),
                                  (STRAIGHT, len(set(fruits)) == 5), (YUMS, groups[0] == 5)):
                if holds:
                    found.add(skewer)
    return frozenset(found)


def oracle_leaf(dice: tuple[str, ...], weights: Weights | None) -> tuple[tuple[Fraction, ...], ...]:
    """Per target (each skewer allowed, each "or better", the overall hearts): (goal, chance,
    white dice not a cross) of final dice; the best play maximises these in order. Whole values
    stay ints, which add much faster than fractions."""
    made = oracle_skewers(tuple(sorted(dice)))
    fewer = 5 - dice.count("cross")
    cost = weights.cross_cost if weights else 0
    cost = int(cost) if cost.denominator == 1 else cost
    hearts = weights.hearts if weights else (1, 2, 3, 4, 5, 6)
    best = max(made, default=-1)
    out = []
    for s in range(6):
        worth = weights.hearts[s] if weights else 1
        out.append((worth * (s in made) + cost * fewer, int(s in made), fewer))
    out += [(int(best >= s), int(best >= s), fewer) for s in range(6)]
    out.append((max((hearts[s] for s in made), default=0) + cost * fewer, int(bool(made)), fewer))
    return tuple(out)


Value = tuple[tuple[Fraction | int, ...], ...]
# Each distinct value once, numbered, so outcomes are grouped by a small int rather than by
# hashing fractions again and again.
NUMBERS: dict[Value, int] = {}
VALUES: list[Value] = []


def oracle_keep(dice: tuple[str, ...], keep: tuple[int, ...], rerolls: int,
                weights: Weights | None) -> Value:
    """Per target, the mean over every ordered outcome of the rerolled dice (positions not in
    ``keep``; position 5 is the red die) of the best play afterwards."""
    rolled = [i for i in range(len(dice)) if i not in keep]
    kept_white = tuple(dice[i] for i in keep if i < 5)
    kept_red = tuple(dice[i] for i in keep if i == 5)
    sides = [RED if i == 5 else WHITE for i in rolled]
    whites_rolled = len(rolled) - (5 in rolled)
    totals: Counter[tuple[str, ...]] = Counter()
    for faces in itertools.product(*sides):
        # the white dice in any order are alike: sorted, then the red die
        totals[(*sorted(kept_white + faces[:whites_rolled]), *kept_red, *faces[whites_rolled:])] += 1
    ways_of: Counter[int] = Counter()
    for now, ways in totals.items():
        ways_of[oracle_best(now, rerolls - 1, weights)] += ways
    outcomes = 6 ** len(rolled)
    return tuple(tuple(Fraction(sum(ways * VALUES[at][t][k] for at, ways in ways_of.items()), outcomes)
                       for k in range(3)) for t in range(13))


@cache
def oracle_best(dice: tuple[str, ...], rerolls: int, weights: Weights | None) -> int:
    """Per target, the best of every subset of positions kept, or the final dice; its number in
    VALUES."""
    if rerolls == 0:
        value = oracle_leaf(dice, weights)
    else:
        every = [oracle_keep(dice, keep, rerolls, weights) for n in range(len(dice) + 1)
                 for keep in itertools.combinations(range(len(dice)), n)]
        value = tuple(max(option[t] for option in every) for t in range(13))
    if value not in NUMBERS:
        NUMBERS[value] = len(VALUES)
        VALUES.append(value)
    return NUMBERS[value]


def positions(keep: Keep, dice: tuple[str, ...]) -> tuple[int, ...]:
    marks = keep_marks(dice[:5], keep)
    return tuple(i for i in range(5) if marks[i]) + ((5,) if keep.red else ())


def assert_agrees(white: list[str], red: str | None, rerolls: int, weights: Weights | None,
                  most_rerolled: int = 6) -> None:
    dice = (*white, *([red] if red else []))
    position = table(white, red, rerolls, weights)
    cost = weights.cross_cost if weights else 0
    checked = 0
    for line in position.lines:
        at = positions(line.keep, dice)
        if len(dice) - len(at) > most_rerolled:
            continue
        brute = oracle_keep(dice, at, rerolls, weights)
        assert line.available == tuple(brute[s][1] for s in range(6)), line.keep
        assert line.at_least == tuple(brute[6 + s][1] for s in range(6)), line.keep
        assert line.crosses == 5 - brute[12][2] and line.value == brute[12][0] - 5 * cost
        checked += 1
    assert checked
    if most_rerolled < len(dice):
        return
    # the picks are the best keeps: their values are the best, by the brute force too
    best = VALUES[oracle_best(dice, rerolls, weights)]
    for t, pick in [*enumerate(position.best.values()), (12, position.overall)]:
        goal, chance, fewer = best[t]
        assert (pick.chance, pick.crosses) == (chance, 5 - fewer), SKEWERS[t] if t < 6 else "overall"
        if t == 12 or weights:
            assert pick.value == goal - 5 * cost
        assert oracle_keep(dice, positions(pick.keep, dice), rerolls, weights)[t] == best[t]


whites = st.lists(st.sampled_from(WHITE), min_size=5, max_size=5)


def sheets(costs: list[Fraction]) -> st.SearchStrategy[Weights | None]:
    return st.none() | st.builds(Weights, st.tuples(*[st.integers(0, 9)] * 6), st.sampled_from(costs))


@settings(max_examples=12, deadline=None)
@given(whites, st.none() | st.sampled_from(RED),
       sheets([Fraction(0), Fraction(1, 2), Fraction(1), Fraction(5, 2)]))
def test_brute_force_agrees_with_one_reroll(white, red, weights):
    """Every keep, every target, exactly, with or without the red die and a sheet."""
    assert_agrees(white, red, 1, weights)


@settings(max_examples=3, deadline=None)
@given(whites, sheets([Fraction(0), Fraction(1), Fraction(3)]))
def test_brute_force_agrees_with_two_rerolls(white, weights):
    """Two rerolls (one reroll token spent), the keeps that reroll up to two dice: the second
    reroll keeps best for each target, as the brute force's recursion does."""
    assert_agrees(white, None, 2, weights, most_rerolled=2)


@pytest.mark.parametrize("weights", [None, Weights((2, 3, 0, 5, 8, 6), Fraction(1, 2))])
def test_brute_force_agrees_with_two_rerolls_and_the_red_die(weights):
    """One fixed position: six dice, the keeps that reroll one die; with no sheet (the shipped
    values) and with one (the search).
    Rulebook: "During your Rolling phase, you may discard this token to get an additional
    reroll." and "Before your Rolling phase, you may return this token to the supply to add the
    red die to your roll."
    """
    assert_agrees([F1, F1, F3, "cross", F5], "marshmallow", 2, weights, most_rerolled=1)


# ----- the command line ---------------------------------------------------------------------------

def test_cli_json_prints_the_module_numbers(capsys):
    args = ["odds", "miams", "--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--red", "marshmallow",
            "--rerolls", "1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    position = table([F1, F1, F3, "cross", F5], "marshmallow", 1)
    for skewer, pick in position.best.items():
        printed = out["skewers"][skewer]
        assert Fraction(printed["chance"]) == pick.chance
        assert printed["keep"] == {"white": list(pick.keep.white), "red": pick.keep.red}
        assert Fraction(printed["at_least"]) == position.line(pick.keep).at_least[SKEWERS.index(skewer)]
    assert Fraction(out["best"]["value"]) == position.overall.value
    assert len(out["keeps"]) == len(position.lines)
    for printed, line in zip(out["keeps"], position.lines, strict=True):
        assert [Fraction(x) for x in printed["available"].values()] == list(line.available)
        assert Fraction(printed["crosses"]) == line.crosses


def test_cli_text_table(capsys):
    """Per skewer its chance with its best keep; then the overall best keep."""
    assert main(["odds", "miams", "--dice", "fruit1,fruit1,fruit3,cross,fruit5"]) == 0
    out = capsys.readouterr().out
    position = table([F1, F1, F3, "cross", F5])
    for skewer, pick in position.best.items():
        row = next(line for line in out.splitlines() if line.startswith(SKEWER_NAMES[skewer]))
        assert percent(pick.chance) in row and pick.keep.label() in row
    assert f"Best keep: {position.overall.keep.label()}" in out


def test_docs_worked_example_is_what_the_cli_prints(capsys):
    """docs/miams.md, Coach: the example table is the command's output."""
    doc = (Path(__file__).parent.parent / "docs" / "miams.md").read_text(encoding="utf-8")
    command = "companion odds miams --dice fruit1,fruit1,fruit3,cross,fruit5 --red marshmallow --rerolls 1"
    assert command in doc
    assert main(command.split()[1:]) == 0
    printed = capsys.readouterr().out
    assert f"```\n{printed}```" in doc


def test_cli_weights(capsys):
    args = ["odds", "miams", "--dice", "fruit1,fruit1,fruit2,fruit3,fruit4", "--hearts", "2,4,0,0,0,0",
            "--cross-cost", "3", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"]["keep"]["white"] == [F1, F1, F2, F3, F4] and out["best"]["value"] == "2"


@pytest.mark.parametrize(("args", "message"), [
    (["--dice", "f1,f1,f3,cross,f5"], "white die 'f1': use fruit1"),
    (["--dice", "fruit1,fruit1"], "5 white dice, not 2"),
    ([], "give the five white dice"),
    (["--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--red", "cross"], "red die 'cross'"),
    (["--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--rerolls", "two"], "--rerolls 'two': rerolls left"),
    (["--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--hearts", "1,2"], "--hearts: six"),
    (["--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--cross-cost", "1"], "--cross-cost needs --hearts"),
    (["--dice", "fruit1,fruit1,fruit3,cross,fruit5", "--hearts", "1,2,3,4,5,6", "--cross-cost", "x"],
     "--cross-cost: 'x'"),
])
def test_cli_bad_input_one_line_exit_2(capsys, args, message):
    assert main(["odds", "miams", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


@pytest.mark.parametrize(("hearts", "cost", "message"), [
    ((1, 2), 0, "hearts: one whole number 0-50 per row"),
    ((1, 2, 3, 4, 5, 99), 0, "hearts"),
    ((1, 2, 3, 4, 5, 6), -1, "cross cost"),
    ((1, 2, 3, 4, 5, 6), "lots", "cross cost"),
])
def test_bad_sheet_weights_are_refused(hearts, cost, message):
    with pytest.raises(ValueError, match=message):
        Weights(hearts, cost)
