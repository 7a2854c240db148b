"""The card-data forms in a real browser (Chromium, as tests/test_web_browser.py drives it): a
wrong value is refused with the game's loader's message next to its field, and a saved form is
what the box's next setup, `companion doctor` and the page itself then read."""

from __future__ import annotations

import pytest

from companion.doctor.checks import check_cards, check_games
from companion.games import box_config
from companion.games.catalog import GAMES
from companion.records import cards, pairing

# The browser, and a simulated box with `companion web` on one state directory (this module's own).
from tests.test_web_browser import browser, css, shoot, table, wait_for  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


@pytest.fixture
def paired(browser, table):  # noqa: F811
    """The browser paired with this module's box: (the browser, the box, the page)."""
    box, web = table
    browser.delete_all_cookies()
    browser.get(f"{web.base}/pair?t={pairing.offer(web.state_dir).token}")
    assert css(browser, "#live"), "not paired"
    return browser, box, web


def field_error(driver, key: str) -> str:
    shown, _ = wait_for(lambda: css(driver, f"[id='{key}-error']"), 5)
    assert shown, f"{key}: no message but {[e.text for e in css(driver, '.error')]}"
    return shown[0].text


def loader_message(game: str, key: str, doc_change) -> str:
    """The game's loader's message for the stand-in file with ``doc_change`` made to it."""
    from companion.contract.config import ConfigError, read_toml

    card = next(card for spec, card in cards.declared(GAMES) if spec.key == game and card.key == key)
    doc = read_toml(card.stand_in)
    doc_change(doc)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "check.toml"
        path.write_text(cards.toml_text(doc), encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            card.load(path)
    return f"{caught.value.problem}. Fix: {caught.value.fix}"


def open_card_form(driver, web, title: str) -> None:
    driver.get(web.base + "/settings")
    links = [a for a in css(driver, "#card-files a") if a.text == title]
    assert links, [a.text for a in css(driver, "#card-files a")]
    links[0].click()
    assert wait_for(lambda: css(driver, "#card-form"), 5)[0]


def type_into(driver, key: str, text: str) -> None:
    field = css(driver, f"[id='{key}']")[0]
    driver.execute_script("arguments[0].value = ''", field)   # clear() misses a refused page's
    field.send_keys(text)


def press_save(driver) -> None:
    """Press the form's Save button (as a script: the emulated phone's native click misses a
    button some thousand pixels down a long form)."""
    driver.execute_script("arguments[0].click()", css(driver, "#card-form button")[0])


def test_a_tray_form_refuses_a_wrong_name_then_saves_and_the_box_and_doctor_agree(paired):
    driver, box, web = paired
    open_card_form(driver, web, "Makan Mania: Trays")
    assert "stand-in" in css(driver, "#card-stand-ins")[0].text   # the guesses said as such
    assert css(driver, "label[for='tray[0].ability'] .tag")[0].text == "stand-in"
    assert not css(driver, "label[for='tray[1].ability'] .tag")  # black's is the rulebook's
    type_into(driver, "tray[0].name", "Red ¤")
    press_save(driver)
    said = field_error(driver, "tray[0].name")
    assert said == loader_message("makan", "trays", lambda d: d["tray"][0].update(name="Red ¤"))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})",
                          css(driver, "[id='tray[0].name']")[0])
    shoot(driver, "cards-refused")
    assert not cards.from_phone(web.state_dir, GAMES)        # nothing saved
    type_into(driver, "tray[0].name", "Rouge")
    # Chosen as a tap on the list would (a click on the open list would only close it).
    driver.execute_script("arguments[0].value = 'true'", css(driver, "[id='tray[0].printed']")[0])
    press_save(driver)
    done, _ = wait_for(lambda: css(driver, "p.done"), 5)
    assert done and "Saved Trays" in done[0].text, [e.text for e in css(driver, ".error")]
    assert css(driver, "[id='tray[0].name']")[0].get_attribute("value") == "Rouge"
    assert not css(driver, "label[for='tray[0].ability'] .tag")  # checked now
    shoot(driver, "cards")
    box.advance(1.5)                                          # the box's look for changes
    from companion.games.makan_mania.setup_screen import SetupScreen

    assert SetupScreen(box.app.table).tray_cards[0].name == "Rouge"
    cfg = box_config.load(None)
    assert "makan trays" in check_cards(cfg, web.state_dir).detail
    doctor = next(f for f in check_games(cfg) if f.check == "makan")
    shown = css(driver, "#card-findings li")[0].text
    assert doctor.detail in shown and "red" not in doctor.detail.split(":")[-1]


def test_a_sheet_value_the_loader_refuses_is_shown_next_to_it_and_a_good_one_is_the_next_game(
        paired):
    driver, box, web = paired
    open_card_form(driver, web, "Miams solo: Sheet")
    type_into(driver, "rows.yums.end", "0")
    press_save(driver)
    said = field_error(driver, "rows.yums.end")
    assert said == loader_message("miams", "sheet", lambda d: d["rows"]["yums"].update(end=0))
    type_into(driver, "rows.yums.end", "5")
    press_save(driver)
    assert wait_for(lambda: css(driver, "p.done"), 5)[0]
    box.advance(1.5)
    from companion.games.miams.setup_screen import SetupScreen

    screen = SetupScreen(box.app.table)
    box.app.table.push(screen)
    screen._start()                          # the box's Start: the setup carries the sheet
    assert box.app.play.session.actions[0]["sheet"]["rows"]["yums"]["end"] == 5
