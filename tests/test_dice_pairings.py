"""The pairings kept in the journal's settings (companion/records/dice.py): checked as a whole,
the config file's list the default, a row that fails its check never used."""

from __future__ import annotations

import pytest

from companion.records import dice as pairs

A, B = "pixels AA:00:00:00:00:01 yellow", "godice AA:00:00:00:00:02 blue"


@pytest.mark.parametrize(("value", "reason"), [
    ("pixels AA:00:00:00:00:01 yellow", "a list of 'MAKE ADDRESS KIND' lines"),
    ([A, 3], "a list of 'MAKE ADDRESS KIND' lines"),
    ([A, A.replace("yellow", "red")], "a die is paired twice"),
    ([f"pixels AA:00:00:00:00:{n:02} white" for n in range(9)], "at most 8 dice"),
    (["pixels AA:00:00:00:00:01 green"], "the kind is one of yellow, blue, white, red"),
    (["sonar AA:00:00:00:00:01 red"], "the make is one of pixels, godice"),
])
def test_a_wrong_list_is_refused_with_its_reason(value, reason):
    with pytest.raises(ValueError, match=reason):
        pairs.check(value)


def test_the_saved_list_overrides_the_configs_and_a_bad_row_leaves_the_config_in_force():
    assert pairs.in_force({}, [A]) == [A]
    assert pairs.in_force({pairs.KEY: []}, [A]) == []  # every die forgotten on the box
    assert pairs.in_force({pairs.KEY: [B]}, [A]) == [B]
    assert pairs.in_force({pairs.KEY: [B, B]}, [A]) == [A]


def test_pairing_again_changes_the_colour_in_place_and_forgetting_an_unpaired_die_is_refused():
    lines = pairs.paired([A, B], "pixels", "aa:00:00:00:00:01", "red")
    assert lines == ["pixels aa:00:00:00:00:01 red", B]
    assert pairs.forgotten(lines, "AA:00:00:00:00:01") == [B]
    with pytest.raises(ValueError, match="is not paired"):
        pairs.forgotten([B], "AA:00:00:00:00:01")
