"""The printed components load from TOML and a wrong file names the file, key and problem."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from companion.contract.config import ConfigError
from companion.games.makan_mania.data import DRINKS_FILE, deck_problem, load_drinks, load_trays
from companion.games.makan_mania.rules import ROUNDS
from companion.simulator.walk import run_steps

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
    # tomllib reads any length of digits: the limit is named, never a 30-digit echo
    ({"copies": "9" * 30}, r"drink\[0\]\.copies: 9{20}… is not a whole number from 0 to 36"),
    # a typo ("copys") is named, not silently ignored
    ({"copies": None, "copys": "1"}, r"drink\[0\]\.copys: unknown key"),
    # a deck cannot hold -1 cards of a drink, nor a drink cost -2 coins
    ({"copies": "-1"}, r"drink\[0\]\.copies: -1 is not a whole number from 0 to 36"),
    ({"coins": "-2"}, r"drink\[0\]\.coins: -2 is not a whole number from 0 to 30"),
    # a name is shown on one screen line: a longer one is refused with the limit (it froze the
    # text fitting at 5,000 characters while doctor passed the file)
    ({"name": '"' + "Teh Tarik " * 500 + '"'}, r"drink\[0\]\.name: 'Teh Tarik Teh Tarik… is wider "
     r"than a screen line \(118 px\)"),
    ({"name": '"Sugarcane Juice with Lime, Large"'}, r"is wider than a screen line"),
    ({"name": '"Kopi\\u0007"'}, r"drink\[0\]\.name: 'Kopi\\x07' has '\\x07', which the screen cannot show"),
    ({"name": '"茶"'}, r"has '茶', which the screen cannot show"),
    ({"name": '"  "'}, r"drink\[0\]\.name: is empty"),
    ({"key": '"Kopi O"'}, r"drink\[0\]\.key: 'Kopi O' is not a key"),
])
def test_a_drink_with_a_bad_field_names_file_key_and_fix(tmp_path, fields, problem):
    """A wrong drinks file is refused naming the file, the key and the problem, with a fix."""
    with pytest.raises(ConfigError, match=problem) as caught:
        load_drinks(_drinks_file(tmp_path, **fields))
    assert caught.value.fix


@pytest.mark.parametrize("name", ["Teh Tarik, less sweet", "Kopi ♥", "#" * 19])
def test_a_name_the_screen_can_show_is_kept(tmp_path, name):
    """A name longer than LINE_LETTERS or with one of the box's icons is measured with the font,
    and kept when it fits; up to LINE_LETTERS letters (the widest: the coin) it always fits."""
    assert load_drinks(_drinks_file(tmp_path, name=json.dumps(name)))[0].name == name


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path):
    """A file saved in another encoding is reported, never a traceback."""
    path = tmp_path / "trays.toml"
    path.write_bytes(b'[[tray]]\ncolour = "r\xe9d"\n')
    with pytest.raises(ConfigError, match=r"trays\.toml"):
        load_trays(path)


def test_a_bad_configured_drinks_file_is_named_by_doctor_and_setup(tmp_path, capsys):
    """[games.makan] drinks = a broken file: doctor fails naming file and key, the CLI does not
    crash, and the setup screen says so and will not start."""
    from companion.cli import main
    from companion.games import box_config as config
    from companion.simulator.simbox import SimBox

    bad = _drinks_file(tmp_path, copies="99").rename(tmp_path / "mine.toml")
    conf = tmp_path / "companion.toml"
    conf.write_text(f'[games.makan]\ndrinks = "{bad}"\n', encoding="utf-8")
    main(["doctor", "--sim", "--config", str(conf), "--state-dir", str(tmp_path / "state")])
    line = next(x for x in capsys.readouterr().out.splitlines() if " makan " in x)
    assert "mine.toml: drink[0].copies: 99 is not a whole number from 0 to 36" in line
    sim = SimBox(tmp_path / "box", cfg=config.load(conf))
    try:
        run_steps(sim, ("game:makan",))
        assert "bad data" in sim.app.stack.screens[-1].title
        run_steps(sim, ("OK",))
        assert sim.app.play.session is None or not sim.app.play.session.actions
    finally:
        sim.close()


def test_the_setup_warns_of_stand_in_values_and_the_summary_lists_them(box):
    """Only black's ability is printed ("activates before black tray"); the other tray colours
    and the deck counts are stand-ins, shown as such on setup and in the replay summary."""
    from companion.games.makan_mania import rules

    run_steps(box, ("game:makan",))
    assert "stand-in" in box.app.stack.screens[-1].title
    run_steps(box, ("OK",))
    summary = rules.summary(box.app.play.session.state)
    assert "deck copies" in summary["stand_in_values"] and "red tray" in summary["stand_in_values"]
    assert "black tray" not in summary["stand_in_values"]


def test_the_documented_setup_example_uses_the_shipped_drinks():
    """"Cola: Cost 2 dice. During Scoring, pair this with an unpaired Snack ... 6 points": the
    inline example in docs/makan_mania.md shows each drink as drinks.toml has it."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "makan_mania.md").read_text()
    setup = next(json.loads(line) for line in doc.splitlines()
                 if line.startswith('{"type": "setup"') and "drink_table" in line)
    shipped = {d.key: d.as_dict() for d in DRINKS}
    assert setup["drink_table"] and all(entry == shipped[entry["key"]]
                                        for entry in setup["drink_table"])


def test_the_limit_is_what_the_small_font_fits_in_a_screen_line():
    """Any LINE_LETTERS letters fit 118 px (a line of a refusal box), even of the widest glyph;
    one more of it does not."""
    from companion.frame.font import SMALL
    from companion.games.makan_mania.data import COIN, LINE_LETTERS

    widest = max((chr(code) for code in range(32, 256) if chr(code).isprintable() and chr(code) != COIN),
              key=SMALL.width)
    assert SMALL.width(widest * LINE_LETTERS) <= 118 < SMALL.width(widest * (LINE_LETTERS + 1))
    assert all(SMALL.width(d.name) <= 118 for d in DRINKS)


def _deck(copies: int):
    return tuple(replace(d, copies=copies) for d in DRINKS)


def test_the_deck_must_last_every_round_of_a_dealt_game():
    """"At the start of each round ... reveal 1 Drink card per player", "Be the player with the
    most points at the end of the 5 rounds", and the private-drink tray: "At the start of each
    round, reveal the top Drink card of the deck". A deck of one copy of each of the ten drinks
    crashed the round 3 reveal of a 4-player dealt game; no copies at all, round 1."""
    assert deck_problem(_deck(1), 4, False, ROUNDS) == "Deck has 10 drinks,\n20 needed (5 rounds)"
    assert deck_problem(_deck(1), 2, False, ROUNDS) == ""          # 2 a round for 5 rounds
    assert deck_problem(_deck(1), 2, True, ROUNDS) == "Deck has 10 drinks,\n15 needed (5 rounds)"
    assert deck_problem(_deck(0), 2, False, ROUNDS).startswith("Deck has 0 drinks")
    assert deck_problem(DRINKS, 6, True, ROUNDS) == ""             # the shipped 36 cards: 35 at most
    assert all(len(line) <= 21 for line in deck_problem(_deck(3), 6, True, ROUNDS).split("\n"))


def test_doctor_fails_a_deck_too_small_for_the_largest_dealt_game(tmp_path):
    """The deck of ten single copies was "ok makan 6 trays and 10 drinks valid"."""
    from companion.contract.facts import FAIL
    from companion.games import box_config as config
    from companion.games.makan_mania.doctor import check as check_makan_data

    path = tmp_path / "drinks.toml"
    path.write_text(re.sub(r"copies = \d+", "copies = 1", DRINKS_FILE.read_text(encoding="utf-8")),
                    encoding="utf-8")
    cfg = config.parse({"games": {"makan": {"drinks": str(path)}}})
    finding = check_makan_data(cfg)
    assert finding.level == FAIL
    assert finding.detail.startswith(f"{path}: copies: Deck has 10 drinks, 35 needed")
    assert "box deals" in finding.detail and "36" in finding.fix


def test_a_name_with_the_coin_sign_is_refused(tmp_path):
    """The screens write prices with the coin sign; in a drink's name it would read as one."""
    with pytest.raises(ConfigError, match="coin sign"):
        load_drinks(_drinks_file(tmp_path, name=json.dumps("Kopi ¤2")))
