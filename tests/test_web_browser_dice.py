"""Pairing a smart die on the phone page in a real browser (Chromium, as tests/test_web_browser.py
drives it): the page asks the box to search, lists the virtual dice it found, pairs one to a
colour, and the box reads that die at once; a forged colour is refused with its reason."""

from __future__ import annotations

import pytest

from companion.records import pairing
from firmware_bridge.faces import BLUE
from firmware_bridge.virtual_dice import IN_REACH
from tests.test_box_told import told
from tests.test_sensor_app import pump_until

# The browser, and a simulated box with `companion web` on one state directory (this module's own).
from tests.test_web_browser import browser, css, shoot, table, wait_for  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

SAFFRON = IN_REACH[1][1]


def found_die(driver, address: str):
    rows = css(driver, f"#found-dice li[data-address='{address}']")
    return rows[0] if rows else None


def test_a_die_paired_on_the_page_is_read_by_the_box(browser, table):  # noqa: F811
    box, web = table
    browser.delete_all_cookies()
    browser.get(f"{web.base}/pair?t={pairing.offer(web.state_dir).token}")
    assert css(browser, "#live"), "not paired"
    browser.get(web.base + "/dice")
    assert "No die is paired." in css(browser, "#paired-dice")[0].text
    css(browser, "#search-dice button")[0].click()
    assert "searching" in wait_for(lambda: css(browser, "p.done"), 5)[0][0].text
    told(box, lambda: len(box.app.dice.found) == len(IN_REACH))  # the box took the page's ask
    browser.get(web.base + "/dice")
    row = found_die(browser, SAFFRON)
    assert row is not None and "Pixel Saffron" in row.text
    # A colour no die has, as a crafted request would send it: refused, nothing paired.
    browser.execute_script("const s = arguments[0]; s.add(new Option('purple', 'purple'));"
                           " s.value = 'purple';", row.find_element("css selector", "select"))
    row.find_element("css selector", "button").click()
    shown = wait_for(lambda: css(browser, "#dice-error"), 5)[0]
    assert shown[0].text == "the colour is one of yellow, blue, white, red"
    assert box.app.dice.lines == []
    row = found_die(browser, SAFFRON)
    browser.execute_script("arguments[0].value = 'blue'", row.find_element("css selector", "select"))
    row.find_element("css selector", "button").click()
    assert "Paired: blue Pixels 00:02" in wait_for(lambda: css(browser, "p.done"), 5)[0][0].text
    told(box, lambda: box.app.dice.lines == [f"pixels {SAFFRON} blue"])  # followed at once
    pump_until(box, lambda: box.app.sensor.online and box.app.sensor.kinds == ("blue",))
    box.app.hardware.extras["dice"].throw([6])
    pump_until(box, lambda: box.app.sensor.faces != ())
    assert box.app.sensor.faces == (BLUE[5],)
    # the page shows the die as the box says it: connected, with its charge
    browser.get(web.base + "/dice")
    assert css(browser, "#paired-dice")[0].text.splitlines()[0] == "blue Pixels 00:02 connected 90%"
    shoot(browser, "dice")
