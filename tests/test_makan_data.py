"""The printed components load from TOML and a wrong file names the file, key and problem."""

from __future__ import annotations

import pytest

from companion.games.makan_mania.data import DRINKS, TRAYS, DataError, load_drinks, load_trays


def test_the_shipped_files_hold_the_rulebook_components():
    """"Tray Cards x6", "Drink Cards x36" over the ten drinks of the Drinks List, and the
    jump-to-88 tray "Activates before black tray" (so black is the jump-to-1 tray)."""
    assert len(TRAYS) == 6 and sum(d.copies for d in DRINKS) == 36 and len(DRINKS) == 10
    black = next(t for t in TRAYS if t.colour == "black")
    assert black.ability == "jump_1" and black.printed
    assert all(not t.printed for t in TRAYS if t is not black)
    costs = {d.name: (d.dice, d.coins) for d in DRINKS}
    assert costs["Kopi O"] == (None, 1) and costs["Bandung"] == (1, 1) and costs["Cola"] == (2, None)


def test_a_tray_file_missing_an_ability_is_refused(tmp_path):
    path = tmp_path / "trays.toml"
    path.write_text('[[tray]]\ncolour = "red"\nname = "Red"\nability = "jump_88"\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"trays\.toml: tray: each of the six abilities"):
        load_trays(path)


def test_a_drink_with_a_bad_field_names_file_and_key(tmp_path):
    path = tmp_path / "drinks.toml"
    path.write_text('[[drink]]\nkey = "x"\nname = "X"\ndice = "two"\neffect = "coins"\n'
                    'amount = 1\ncopies = 1\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"drinks.toml: drink\[0\].dice: expected int"):
        load_drinks(path)
