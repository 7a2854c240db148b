"""The printed components load from TOML and a wrong file names the file, key and problem."""

from __future__ import annotations

import pytest

from companion.config import ConfigError
from companion.games.makan_mania.data import load_drinks, load_trays
from companion.walk import run_steps

DRINKS, TRAYS = load_drinks(), load_trays()


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
    with pytest.raises(ConfigError, match=r"trays\.toml: tray: each of the six abilities"):
        load_trays(path)


def _drinks_file(tmp_path, **fields: str):
    """A drinks file of one drink, each field a TOML value; ``fields`` change, add or (None) drop
    fields of a good drink."""
    drink = {"key": '"x"', "name": '"X"', "coins": "1", "effect": '"coins"', "amount": "1",
             "copies": "1", **fields}
    path = tmp_path / "drinks.toml"
    path.write_text("[[drink]]\n" + "".join(f"{k} = {v}\n" for k, v in drink.items() if v is not None),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("fields, problem", [
    ({"dice": '"two"'}, r"drinks.toml: drink\[0\].dice: expected int"),
    # a typo ("copys") is named, not silently ignored
    ({"copies": None, "copys": "1"}, r"drink\[0\]\.copys: unknown key"),
    # a deck cannot hold -1 cards of a drink, nor a drink cost -2 coins
    ({"copies": "-1"}, r"drink\[0\]\.copies: -\d+ is out of range"),
    ({"coins": "-2"}, r"drink\[0\]\.coins: -\d+ is out of range"),
])
def test_a_drink_with_a_bad_field_names_file_key_and_fix(tmp_path, fields, problem):
    """A wrong drinks file is refused naming the file, the key and the problem, with a fix."""
    with pytest.raises(ConfigError, match=problem) as caught:
        load_drinks(_drinks_file(tmp_path, **fields))
    assert caught.value.fix


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path):
    """A file saved in another encoding is reported, never a traceback."""
    path = tmp_path / "trays.toml"
    path.write_bytes(b'[[tray]]\ncolour = "r\xe9d"\n')
    with pytest.raises(ConfigError, match=r"trays\.toml"):
        load_trays(path)


def test_a_bad_configured_drinks_file_is_named_by_doctor_and_setup(tmp_path, capsys):
    """[games.makan] drinks = a broken file: doctor fails naming file and key, the CLI does not
    crash, and the setup screen says so and will not start."""
    from companion import box_config as config
    from companion.cli import main
    from companion.simbox import SimBox

    bad = _drinks_file(tmp_path, copies="99").rename(tmp_path / "mine.toml")
    conf = tmp_path / "companion.toml"
    conf.write_text(f'[games.makan]\ndrinks = "{bad}"\n', encoding="utf-8")
    main(["doctor", "--sim", "--config", str(conf), "--state-dir", str(tmp_path / "state")])
    line = next(x for x in capsys.readouterr().out.splitlines() if " makan " in x)
    assert "mine.toml: drink[0].copies: 99 is out of range" in line
    sim = SimBox(tmp_path / "box", cfg=config.load(conf))
    try:
        run_steps(sim, ("game:makan",))
        assert "bad data" in sim.app.stack[-1].title
        run_steps(sim, ("OK",))
        assert sim.app.session is None or not sim.app.session.actions
    finally:
        sim.close()


def test_the_setup_warns_of_stand_in_values_and_the_summary_lists_them(box):
    """Only black's ability is printed ("activates before black tray"); the other tray colours
    and the deck counts are stand-ins, shown as such on setup and in the replay summary."""
    from companion.games.makan_mania import rules

    run_steps(box, ("game:makan",))
    assert "stand-in" in box.app.stack[-1].title
    run_steps(box, ("OK",))
    summary = rules.summary(box.app.session.state)
    assert "deck copies" in summary["stand_in_values"] and "red tray" in summary["stand_in_values"]
    assert "black tray" not in summary["stand_in_values"]
