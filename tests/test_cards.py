"""Printed-card data from the phone: each game's declared card files as forms, checked by the
game's own loader (its message, for the value it is about) and doctor check, written atomically,
read by the box, doctor and About at once, and never reaching a game in progress."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from companion.contract.config import ConfigError, read_toml
from companion.doctor.checks import check_cards, check_games
from companion.games import box_config
from companion.games.catalog import GAMES
from companion.records import cards
from companion.screens.system import AboutScreen
from tests.test_box_told import told

DECLARED = {(spec.key, card.key): (spec, card) for spec, card in cards.declared(GAMES)}


def form_of(card, doc: dict) -> dict[str, str]:
    """What the page's form sends for ``doc`` untouched."""
    return {key: cards.shown(cards.get(doc, key), value.kind) for key, value in cards.fields(card, doc)}


def loader_says(card, doc: dict, tmp_path: Path) -> tuple[str, str]:
    """The game's loader on ``doc`` written as a file: the key and message it refuses it with."""
    path = tmp_path / "loader-check.toml"
    path.write_text(cards.toml_text(doc), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        card.load(path)
    return caught.value.key, f"{caught.value.problem}. Fix: {caught.value.fix}"


def test_the_box_declares_its_four_card_files_and_each_form_round_trips_the_stand_in(tmp_path):
    assert set(DECLARED) == {("makan", "trays"), ("makan", "drinks"), ("miams", "sheet"),
                             ("miams", "tile")}
    for spec, card in DECLARED.values():
        doc = read_toml(card.stand_in)
        again = cards.from_form(card, doc, form_of(card, doc))
        assert again == doc, card.key
        path = tmp_path / f"{spec.key}-{card.key}.toml"
        path.write_text(cards.toml_text(again, cards.header(spec, card, 0)), encoding="utf-8")
        assert card.load(path) == card.load(card.stand_in)


def test_the_stand_in_values_are_marked_as_such_until_the_file_says_they_are_checked():
    trays, tile = DECLARED["makan", "trays"][1], DECLARED["miams", "tile"][1]
    doc = read_toml(trays.stand_in)
    # "activates before black tray": black's ability is the rulebook's; the others are guesses.
    assert "tray[1].ability" not in set(trays.stand_ins(doc))
    assert {"tray[0].ability", "tray[2].ability"} <= set(trays.stand_ins(doc))
    doc["tray"][0]["printed"] = True
    assert "tray[0].ability" not in set(trays.stand_ins(doc))
    drinks = DECLARED["makan", "drinks"][1]
    assert "drink[0].copies" in set(drinks.stand_ins(read_toml(drinks.stand_in)))
    tile_doc = read_toml(tile.stand_in)
    assert "faces.fruit1" in set(tile.stand_ins(tile_doc))
    tile_doc["stand_in"] = False
    assert not list(tile.stand_ins(tile_doc))


def _changed(key: str, field: str, text: str) -> tuple[object, object, dict, dict]:
    spec, card = DECLARED[key]
    doc = read_toml(card.stand_in)
    form = form_of(card, doc)
    form[field] = text
    return spec, card, doc, form


@pytest.mark.parametrize(("key", "field", "text"), [
    (("makan", "trays"), "tray[2].ability", "jump_1"),            # twice: refused for the file
    (("makan", "trays"), "tray[0].name", "¤Red"),
    (("makan", "trays"), "tray[3].printed", "yes"),
    (("makan", "drinks"), "drink[0].coins", "lots"),
    (("makan", "drinks"), "drink[3].dice", "13"),
    (("makan", "drinks"), "drink[0].faces", "1, 7"),
    (("miams", "sheet"), "rows.pair.hearts", "1, 2, x"),
    (("miams", "sheet"), "rows.yums.bonus", "-, -, gold, -"),
    (("miams", "sheet"), "rows.four.end", "0"),
    (("miams", "tile"), "faces.fruit2", "pairs"),
    (("miams", "tile"), "names.fruit3", "A very long fruit"),
])
def test_a_wrong_value_is_refused_with_the_loaders_own_message_and_nothing_is_saved(
        tmp_path, key, field, text):
    spec, card, doc, form = _changed(key, field, text)
    wanted = cards.from_form(card, doc, form)
    said_key, said = loader_says(card, wanted, tmp_path)
    state = tmp_path / "state"
    refusal = cards.save(box_config.load(None), state, spec, card, wanted, "")
    assert refusal is not None and (refusal.key, refusal.message) == (said_key, said)
    at = cards.field_of(refusal.key, [k for k, _ in cards.fields(card, doc)])
    assert at == field or (at is None and said_key == "tray")   # next to the field it is about
    assert not list((state / "cards").iterdir())                # not even a temporary file


def test_a_refused_form_keeps_the_file_saved_before_byte_for_byte(tmp_path):
    spec, card, doc, form = _changed(("makan", "trays"), "tray[0].name", "Rouge")
    cfg = box_config.load(None)
    assert cards.save(cfg, tmp_path, spec, card, cards.from_form(card, doc, form), "") is None
    saved = cards.phone_copy(tmp_path, spec.key, card)
    before = saved.read_bytes()
    form["tray[0].ability"] = "fly"
    assert cards.save(cfg, tmp_path, spec, card, cards.from_form(card, doc, form), "") is not None
    assert saved.read_bytes() == before
    assert sorted(p.name for p in saved.parent.iterdir()) == [saved.name]


def test_a_deck_the_doctor_would_fail_is_refused_with_the_doctors_message(tmp_path):
    spec, card = DECLARED["makan", "drinks"]
    doc = read_toml(card.stand_in)
    form = form_of(card, doc)
    for key in form:
        if key.endswith(".copies"):
            form[key] = "1"
    refusal = cards.save(box_config.load(None), tmp_path, spec, card,
                         cards.from_form(card, doc, form), "")
    assert refusal is not None and refusal.key == ""
    assert "box deals\" would run out" in refusal.message and "copies:" in refusal.message
    assert not cards.phone_copy(tmp_path, spec.key, card).exists()


@pytest.mark.parametrize(("change", "problem"), [
    ({"drink[0].price": "1"}, "'drink[0].price' is not a field of this form; nothing saved"),
    ({"drink[0].name": None}, "missing from the form; reload the page"),
    ({"drink[0].name": "K" * 201}, "at most 200 characters"),
])
def test_a_crafted_form_is_refused_before_the_loader_sees_it(change, problem):
    _, card, doc, form = _changed(("makan", "drinks"), "drink[0].name", "Kopi O")
    for key, text in change.items():
        if text is None:
            del form[key]
        else:
            form[key] = text
    with pytest.raises(cards.CardError) as caught:
        cards.from_form(card, doc, form)
    assert caught.value.problem == problem


def test_texts_a_file_could_hold_are_written_so_that_they_read_back_the_same():
    doc = {"name": 'a "quoted" \\ name\x7f\x01', "list": ["", "x"], "n": [1, 2],
           "t": {"odd key": True}, "many": [{"a": 1}, {"a": 2}]}
    assert read_toml_text(cards.toml_text(doc, "two\nlines")) == doc


def read_toml_text(text: str) -> dict:
    import tomllib

    return tomllib.loads(text)


def _save(box, key: str, field: str, text: str) -> Path:
    spec, card, doc, form = _changed(key, field, text)
    assert cards.save(box_config.load(None), box.app.table.state_dir, spec, card,
                      cards.from_form(card, doc, form), cards.header(spec, card, 0)) is None
    return cards.phone_copy(box.app.table.state_dir, spec.key, card)


def test_the_box_reads_the_phones_copy_at_once_and_doctor_and_about_agree(box):
    saved = _save(box, ("makan", "trays"), "tray[0].name", "Rouge")
    told(box)
    assert box.app.table.config.games["makan"]["trays"] == str(saved)
    from companion.games.makan_mania.setup_screen import SetupScreen

    assert SetupScreen(box.app.table).tray_cards[0].name == "Rouge"      # the next setup reads it
    cfg = box_config.load(None)
    found = check_cards(cfg, box.app.table.state_dir)
    assert found.level == "ok" and f"makan trays ({saved})" in found.detail
    makan = [f for f in check_games(cfg) if f.check == "makan"]
    assert makan[0].level == "ok" and "6 trays" in makan[0].detail
    about = [line.strip() for line in AboutScreen(box.app.table).lines()]
    assert about[about.index("Cards from phone:") + 1] == "makan trays"
    # Put back: config.toml's file (here none: the stand-in) is read again.
    assert cards.reset(box.app.table.state_dir, "makan", DECLARED["makan", "trays"][1])
    told(box)
    assert box.app.table.config.games["makan"]["trays"] == ""
    assert SetupScreen(box.app.table).tray_cards[0].name == "Red"


def test_a_makan_game_in_progress_keeps_the_drinks_it_started_with(box):
    from companion.games.makan_mania.setup_screen import SetupScreen

    setup = SetupScreen(box.app.table).action()
    assert box.app.table.games.start("makan", setup)
    kopi = box.app.play.session.state.book.by_key["kopi_o"]
    assert kopi.coins == 1
    _save(box, ("makan", "drinks"), "drink[0].coins", "3")
    told(box)
    assert box.app.play.session.state.book.by_key["kopi_o"].coins == 1
    replayed = GAMES["makan"].rules.replay(box.app.play.session.actions)     # as a resume rebuilds it
    assert replayed.book.by_key["kopi_o"].coins == 1
    assert SetupScreen(box.app.table).action()["drink_table"][0]["coins"] == 3   # the next game's


def test_a_miams_game_in_progress_keeps_the_sheet_it_started_with(box):
    from companion.games.miams.setup_screen import SetupScreen

    screen = SetupScreen(box.app.table)
    box.app.table.push(screen)
    screen._start()
    first = copy.deepcopy(box.app.play.session.actions[0]["sheet"])
    assert first["rows"]["yums"]["end"] == 3
    _save(box, ("miams", "sheet"), "rows.yums.end", "9")
    told(box)
    assert box.app.play.session.actions[0]["sheet"] == first
    assert GAMES["miams"].rules.replay(box.app.play.session.actions).options.sheet.rows[-1].end == 3
    later = SetupScreen(box.app.table)
    later._start()
    assert box.app.play.session.actions[0]["sheet"]["rows"]["yums"]["end"] == 9


def test_a_sheet_saved_on_the_phone_is_called_a_stand_in_on_the_box_while_it_says_so(box):
    """The box's setup screen says "Stand-in values" for the sheet the phone saved, until the
    sheet is marked as copied from the printed one."""
    from companion.games.miams.setup_screen import SetupScreen

    _save(box, ("miams", "sheet"), "rows.yums.end", "9")           # still stand_in = true
    told(box)
    assert SetupScreen(box.app.table).stand_ins[0]
    _save(box, ("miams", "sheet"), "stand_in", "false")
    told(box)
    assert not SetupScreen(box.app.table).stand_ins[0]


def test_a_state_directory_the_doctor_cannot_read_is_a_warning_not_a_traceback(tmp_path, monkeypatch):
    def refused(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "is_file", refused)
    found = check_cards(box_config.load(None), tmp_path)
    assert found.level == "warn" and "Permission denied" in found.detail and "sudo" in found.fix
