"""Miams sheet and tile files: the shipped stand-ins load, and mistakes name file and key."""

from __future__ import annotations

import copy

import pytest

from companion.contract.config import ConfigError
from companion.contract.rules import RuleError
from companion.games.miams import rules
from companion.games.miams.sheet import (
    DEFAULT_SHEET,
    DEFAULT_TILE,
    SKEWERS,
    Bonus,
    load_sheet,
    load_tile,
    parse_bonus,
    sheet_files,
    tile_from_data,
)

GOOD_SHEET = DEFAULT_SHEET.read_text(encoding="utf-8")


def test_stand_ins_load_and_say_they_are_stand_ins():
    """The printed values "are not in the rulebook text", so the shipped files are marked
    stand-ins, in the data and in the file's first line."""
    sheet, tile = load_sheet(), load_tile()
    assert sheet.stand_in and tile.stand_in
    assert [row.skewer for row in sheet.rows] == list(SKEWERS)
    assert "STAND-IN" in GOOD_SHEET.splitlines()[0]
    assert "STAND-IN" in DEFAULT_TILE.read_text(encoding="utf-8").splitlines()[0]


def test_sheet_round_trips_through_the_setup_action():
    """The setup action carries the sheet as data, so a replay never reads a file."""
    sheet = load_sheet()
    state = rules.apply(rules.initial_state(), {"type": "setup", "sheet": sheet.to_data(),
                                                "tile": load_tile().to_data()})
    assert state.options.sheet == sheet


@pytest.mark.parametrize("bonus, expected", [
    ("", Bonus()), ("red", Bonus(red=1)), ("reroll", Bonus(reroll=1)),
    ("stars:3", Bonus(stars=3)), ("red+stars:1", Bonus(red=1, stars=1)),
])
def test_bonus_spellings(bonus, expected):
    """"Bonus tokens — the token icons printed below certain spaces": red die, reroll, stars."""
    assert parse_bonus(bonus) == expected


@pytest.mark.parametrize("edit, key, problem", [
    (lambda t: t.replace('[rows.yums]', '[rows.yum]'), "rows.yum", "unknown key"),
    (lambda t: t.replace('bonus  = ["", "", "stars:2", ""]', 'bonus  = ["", "", "star", ""]'),
     "rows.yums.bonus[2]", "'star'"),
    (lambda t: t.replace('bonus  = ["", "", "stars:2", ""]', 'bonus  = ["", ""]'),
     "rows.yums.bonus", "one per space"),
    (lambda t: t.replace('hearts = [3, 4, 6, 7]', 'hearts = [3, "4", 6, 7]'),
     "rows.yums.hearts[1]", "whole number"),
    (lambda t: t.rstrip().removesuffix("end = 3") + "end = 0\n", "rows.yums.end",
     "0 is not a whole number from 1 to 50"),
    # "²".isdigit() is true but int("²") fails: it escaped the loader as a ValueError
    (lambda t: t.replace('"stars:2", ""]', '"stars:²", ""]'), "rows.yums.bonus[2]",
     "'²' is not a whole number from 1 to 20"),
    (lambda t: t.replace('"stars:2", ""]', '"stars:٣", ""]'), "rows.yums.bonus[2]",
     "'٣' is not a whole number"),
    (lambda t: t.replace('"stars:2", ""]', '"stars:' + "9" * 5000 + '", ""]'), "rows.yums.bonus[2]",
     "… is not a whole number from 1 to 20"),
    # a long value is quoted by its first words, never echoed whole
    (lambda t: t.replace('name = "Stand-in sheet"', 'name = "' + "S" * 5000 + '"'), "name",
     "'SSSSSSSSSSSSSSSSSSS… is longer than 20 characters"),
    (lambda t: t.replace("hearts = [3, 4, 6, 7]", "hearts = [3, " + "4" * 5000 + ", 6, 7]"), "(syntax)",
     "a number too long"),
    (lambda t: t.replace("hearts = [3, 4, 6, 7]", "hearts = " + "[" * 3000 + "]" * 3000), "(syntax)",
     "nested too deep"),
    (lambda t: t.replace('stand_in = true', 'stand_in = "yes"'), "stand_in", "true or false"),
    (lambda t: t.replace('name = "Stand-in sheet"', 'colour = "red"'), "colour", "unknown key"),
    (lambda t: t.replace('hearts = [3, 4, 6, 7]', 'hearts = [3, 4, 6, 7'), "(syntax)", ""),
])
def test_sheet_errors_name_the_file_and_key(tmp_path, edit, key, problem):
    """A mistake in a copied sheet names the file, the key and the problem."""
    path = tmp_path / "my_sheet.toml"
    path.write_text(edit(GOOD_SHEET), encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_sheet(path)
    assert error.value.path == str(path)
    assert error.value.key == key
    assert problem in error.value.problem
    assert str(error.value).startswith(f"{path}: {key}: ")


def test_missing_row_is_named(tmp_path):
    """Every sheet has the six skewers: "Pair, Three of a kind, Full house, Four of a kind,
    Straight, Yums"."""
    path = tmp_path / "short.toml"
    text = GOOD_SHEET[: GOOD_SHEET.index("[rows.yums]")]
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"rows\.yums: missing"):
        load_sheet(path)


def test_unreadable_file_is_named_with_a_fix(tmp_path):
    """A sheet file is a box data file: its error is the shared ConfigError with a fix."""
    with pytest.raises(ConfigError, match=r"nope\.toml: \(file\): no such file") as error:
        load_sheet(tmp_path / "nope.toml")
    assert error.value.fix
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD_SHEET.replace("end = ", "end = 'x' #", 1), encoding="utf-8")
    with pytest.raises(ConfigError) as error:
        load_sheet(bad)
    assert error.value.key.endswith(".end") and "docs/miams.md" in error.value.fix


def test_tile_must_map_every_red_face_to_a_skewer():
    """"The solo mini-board indicates which skewer is scored" for each red-die face."""
    data = load_tile().to_data()
    missing = copy.deepcopy(data)
    del missing["faces"]["marshmallow"]
    with pytest.raises(ConfigError, match=r"faces\.marshmallow: missing"):
        tile_from_data(missing, "tile.toml")
    wrong = copy.deepcopy(data)
    wrong["faces"]["fruit2"] = "triple"
    with pytest.raises(ConfigError, match=r"faces\.fruit2: 'triple' is not one of"):
        tile_from_data(wrong, "tile.toml")
    named = copy.deepcopy(data)
    named["names"]["fruit1"] = "A very long fruit name"
    with pytest.raises(ConfigError, match=r"names\.fruit1: .* longer than 12"):
        tile_from_data(named, "tile.toml")


def test_bad_sheet_in_a_setup_action_is_refused_shortly():
    """A replayed file with bad sheet data is refused with a two-line reason naming the key."""
    data = load_sheet().to_data()
    data["rows"]["pair"]["end"] = -1
    with pytest.raises(RuleError, match=r"Bad sheet data:\nrows\.pair\.end"):
        rules.apply(rules.initial_state(), {"type": "setup", "sheet": data})


def test_sheets_folder_lists_toml_files(tmp_path):
    """The setup screen lists the *.toml files of the sheets folder; a missing folder lists none."""
    (tmp_path / "b.toml").write_text(GOOD_SHEET, encoding="utf-8")
    (tmp_path / "a.toml").write_text(GOOD_SHEET, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert [p.name for p in sheet_files(tmp_path)] == ["a.toml", "b.toml"]
    assert sheet_files(tmp_path / "absent") == []
    assert sheet_files("") == []


def test_config_settings_are_checked():
    """[games.miams] settings for the rulings are validated like every config key."""
    from companion.games import box_config as config

    cfg = config.parse({"games": {"miams": {"tie": "bottom", "setup_column": "ignored"}}})
    assert cfg.games["miams"]["tie"] == "bottom"
    with pytest.raises(config.ConfigError, match=r"games\.miams\.tie: 'middle' must be one of top"):
        config.parse({"games": {"miams": {"tie": "middle"}}})


def test_a_bad_sheet_in_the_folder_is_left_off_and_miams_still_opens(tmp_path):
    """docs/miams.md: a file that does not load is left off the list. A "stars:²" sheet made
    opening Miams fail every time."""
    from companion.games import box_config as config
    from companion.simulator.simbox import SimBox
    from companion.simulator.walk import run_steps

    folder = tmp_path / "sheets"
    folder.mkdir()
    folder.joinpath("good.toml").write_text(GOOD_SHEET.replace("Stand-in sheet", "Good"), encoding="utf-8")
    folder.joinpath("bad.toml").write_text(GOOD_SHEET.replace('"stars:2"', '"stars:²"'), encoding="utf-8")
    conf = tmp_path / "companion.toml"
    conf.write_text(f'[games.miams]\nsheets_dir = "{folder}"\n', encoding="utf-8")
    sim = SimBox(tmp_path / "box", cfg=config.load(conf))
    try:
        run_steps(sim, ("game:miams",))
        assert [p.name for p in sim.app.stack.screens[-1].sheets] == ["default.toml", "good.toml"]
    finally:
        sim.close()


def test_any_error_of_a_bad_file_is_the_files_error(tmp_path, monkeypatch):
    """Whatever check a sheet slips past, the loader says which file failed: never a crash."""
    from companion.games.miams import sheet as sheet_module

    def broken(data, path):
        raise KeyError("hearts")

    monkeypatch.setattr(sheet_module, "sheet_from_data", broken)
    with pytest.raises(ConfigError) as error:
        load_sheet(DEFAULT_SHEET)
    assert error.value.key == "(file)" and "not a valid sheet ('hearts')" in error.value.problem
