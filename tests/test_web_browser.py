"""The phone page in a real browser: headless Chromium from the distribution, driven by Selenium
with the system chromedriver (nothing is downloaded), against `companion web` in its own
process and a simulated box writing the same journal.

Without Chromium these tests skip on a workstation and fail in CI (``CI=true``): a browser test
that did not run is not a passed one. ``UPDATE_SCREENS=1`` also saves each page at phone size
as docs/screens/phone-*.png (the README shows them).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import time
from urllib.parse import unquote

import pytest

from companion.cli import main
from companion.games.catalog import GAMES
from companion.games.crazy_cafe.state import time_left
from companion.records.export import ADD_PLAY_URL, CSV_FIELDS
from companion.simulator.simbox import SimBox
from tests.test_history import EXAMPLES, ROOT, example
from tests.web_process import WebProcess

pytestmark = pytest.mark.slow

# The tests follow one table through pairing, a game and the roster, in this order (the suite
# runs with `--dist loadfile`, so a module's tests share one worker).
SCREENS = ROOT / "docs" / "screens"
PHONE = {"width": 360, "height": 740, "pixelRatio": 1.0}
# How long a test waits for an action of the box to reach the Live page. The page's delay
# itself (about 0.1 s, aim 0.3 s) is a figure of bench/bench_web.py, not of a test: on a shared
# machine a browser, a web process and a box in one test can stall for a second under load.
LIVE_S = 5.0


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every browser test."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        chromium = None
    if not chromium or not driver_path:
        message = "Chromium and chromedriver are needed (apt-get install chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-extensions"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A simulated box and `companion web` on one state directory."""
    state = tmp_path_factory.mktemp("table")
    box = SimBox(state)
    web = WebProcess(state)
    yield box, web
    web.close()
    box.close()


def shoot(driver, name: str, dark: bool = False) -> None:
    if os.environ.get("UPDATE_SCREENS") != "1":
        return
    scheme = "dark" if dark else "light"
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": scheme}]})
    SCREENS.mkdir(exist_ok=True)
    driver.save_screenshot(str(SCREENS / f"phone-{name}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def wait_for(check, timeout: float = LIVE_S, step: float = 0.02):
    """Poll ``check()`` until it is truthy; returns it and the seconds it took."""
    begun = time.monotonic()
    while True:
        value = check()
        if value or time.monotonic() - begun > timeout:
            return value, time.monotonic() - begun
        time.sleep(step)


def css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def live_actions(driver) -> int | None:
    found = css(driver, "[data-actions]")
    try:
        return int(found[0].get_attribute("data-actions")) if found else None
    except Exception:   # the part was replaced while it was read
        return None


def go_home(box: SimBox) -> None:
    """Back to the home menu, as a long OK does (a running game stays saved)."""
    box.app.table.go_home()
    box.app.pump()
    assert box.screen.name() == "HomeScreen"


def start_game(browser, table, key: str):
    """The Live page open, and a new game of ``key`` set up on the box with its example's
    setup action; returns the box, the game and the example's actions."""
    box, web = table
    go_home(box)
    browser.get(web.base + "/")
    spec, actions = GAMES[key], example(key)
    assert box.app.table.games.start(spec.key, actions[0])
    return box, spec, actions


def open_phone_screen(box: SimBox):
    go_home(box)
    labels = [item.label for item in box.screen.items]
    for _ in range(labels.index("Phone")):
        box.press("DOWN")
    box.press("OK")
    box.press("OK")                     # Pair a phone
    assert box.screen.name() == "PairScreen"
    return box.screen


def test_without_a_session_the_page_asks_to_pair(browser, table):
    _, web = table
    browser.delete_all_cookies()
    for path in ("/", "/history", "/roster"):
        browser.get(web.base + path)
        assert css(browser, "form.pin input[name=pin]"), path
        assert "Pair this phone" in browser.page_source
    shoot(browser, "pair")


def test_pairing_with_the_pin_then_with_the_qr_token(browser, table):
    box, web = table
    screen = open_phone_screen(box)
    browser.delete_all_cookies()
    browser.get(web.base + "/")
    field = css(browser, "input[name=pin]")[0]
    field.send_keys(screen.offer.pin)
    field.submit()
    assert wait_for(lambda: css(browser, "#live"), 5)[0], "the PIN did not pair"
    browser.delete_all_cookies()
    box.press("OK")                     # a new code: a second phone scans it
    browser.get(f"{web.base}/pair?t={screen.offer.token}")
    assert css(browser, "#live") and "Live" in browser.title
    box.press("BACK")


def test_a_makan_game_on_the_box_shows_each_action_live(browser, table):
    box, spec, actions = start_game(browser, table, "makan")
    slowest = 0.0
    for count, action in enumerate(actions[1:], 2):
        assert box.app.table.dispatch(action), action
        box.app.pump()
        seen, took = wait_for(lambda count=count: live_actions(browser) == count)
        assert seen, f"action {count} ({action['type']}) not on the page within {LIVE_S} s"
        slowest = max(slowest, took)
        if count == 30:
            shoot(browser, "live-makan")
    final = spec.rules.summary(box.app.play.session.state)
    rows = {el.get_attribute("data-player"): el.text for el in css(browser, "tr[data-player]")}
    for player in final["players"]:
        assert str(player["score"]["total"]) in rows[player["name"]]
    print(f"slowest action to reach the page: {slowest * 1000:.0f} ms")


def test_the_cafe_countdown_matches_the_box(browser, table):
    box, _, actions = start_game(browser, table, "cafe")
    troubles = 0
    for action in actions[1:]:
        if action.get("at", 0) > 1130:          # stay inside round 1, before the box's time up
            break
        if "at" in action:
            box.advance(action["at"] - box.clock.now(), step=1.0)
        assert box.app.table.dispatch(action), action
        box.app.pump()
        state = box.app.play.session.state
        if state.trouble:
            notice, _ = wait_for(lambda: css(browser, "#trouble"))
            assert notice and "Double Trouble" in notice[0].text
            troubles += 1
    assert troubles, "the example's round 1 has a Double Trouble"
    count = len(box.app.play.session.actions)
    assert wait_for(lambda: live_actions(browser) == count)[0]
    shoot(browser, "live-cafe")
    box_left = time_left(box.app.play.session.state, box.clock.now())
    shown = css(browser, "#clock")[0].text
    minutes, seconds = shown.split(":")
    assert abs(int(minutes) * 60 + int(seconds) - box_left) <= 1.0, (shown, box_left)
    assert css(browser, "#light")[0].text.endswith(str(box.app.play.session.state.light))


def test_arthurs_sheet_shows_every_circled_space(browser, table):
    box, _, actions = start_game(browser, table, "miams")
    for action in actions[1:]:
        assert box.app.table.dispatch(action), action
    box.app.pump()
    count = len(box.app.play.session.actions)
    assert wait_for(lambda: live_actions(browser) == count)[0]
    marks = box.app.play.session.state.arthur.rows
    # Read in one script, so that no update swaps the part between two reads. Each mark is a
    # glyph in the cell's own text (readable without colour, without hovering), not a class only.
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#sheet tr')].map(r => [...r.querySelectorAll('td')]"
        ".map(c => { const t = c.innerText; return t.includes('◯') ? 'o' : t.includes('╳') ? 'x'"
        " : ''; }).join(''))")
    assert shown == list(marks)
    assert sum(m.count("o") for m in marks) == len(css(browser, "#sheet td.circled")) > 0
    page = browser.find_element("css selector", "#live").text
    tile = box.app.play.session.state.options.tile
    assert not any(face in page for face in tile.skewer_of), "a face id on the page"
    outcome = css(browser, "#outcome")[0].text
    assert re.fullmatch(r"(You win: you \d+, Arthur \d+|Arthur wins: Arthur \d+, you \d+)\.",
                        outcome), outcome
    shoot(browser, "live-miams")
    shoot(browser, "live-miams-dark", dark=True)


def screen_size(driver, width: int, height: int) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def shoot_sizes(driver, name: str) -> None:
    """The table view at a phone's and a tablet's size, light and dark."""
    for width, height in ((390, 844), (1280, 800)):
        screen_size(driver, width, height)
        time.sleep(0.2)
        shoot(driver, f"{name}-{width}")
        shoot(driver, f"{name}-{width}-dark", dark=True)
    screen_size(driver, 1280, 800)


def open_table(browser, table, key: str):
    box, web = table
    go_home(box)
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": web.base,
                                                         "permissions": ["wakeLockScreen"]})
    browser.get(web.base + "/table")
    screen_size(browser, 1280, 800)      # after loading: the phone emulation comes back with a page
    spec, actions = GAMES[key], example(key)
    assert box.app.table.games.start(spec.key, actions[0])
    return box, actions


def play_all(browser, box, actions, start: int = 1) -> None:
    """A game's example actions from ``start`` on the box, until the page shows them all."""
    for action in actions[start:]:
        assert box.app.table.dispatch(action), action
    box.app.pump()
    assert wait_for(lambda: live_actions(browser) == len(actions))[0]


def board_rows(browser) -> dict[str, list[str]]:
    """The scoreboard's rows, read in one script: {first cell: the other cells}."""
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#scores tbody tr')].map(r => "
        "[...r.children].map(c => c.innerText.replace('▶', '').replace('now: ', '').trim()))")
    return {row[0].rstrip(" ★"): row[1:] for row in rows}


def test_the_table_view_shows_makan_scores_and_coins_live_and_keeps_the_screen_awake(
        browser, table):
    box, actions = open_table(browser, table, "makan")
    for action in actions[1:31]:
        assert box.app.table.dispatch(action), action
        box.app.pump()
    assert wait_for(lambda: live_actions(browser) == 31)[0]
    state = box.app.play.session.state
    rows = board_rows(browser)
    for player in state.players:
        assert rows[player.name][0] == str(player.coins), (player.name, rows)
    awake = wait_for(lambda: browser.execute_script(
        "return document.documentElement.dataset.awake === '1'"))[0]
    assert awake, "no screen wake lock during the game"
    size = browser.execute_script(
        "return parseFloat(getComputedStyle(document.querySelector('#scores td')).fontSize)")
    width = browser.execute_script("return window.innerWidth")
    assert size >= 40, f"{size}px at {width}px wide: not readable across a table"
    shoot_sizes(browser, "table-makan")
    play_all(browser, box, actions, start=31)
    final = box.app.play.session.state
    rows = board_rows(browser)
    for player in final.players:
        total = next(p for p in box.app.play.session.spec.rules.summary(final)["players"]
                     if p["name"] == player.name)["score"]["total"]
        assert rows[player.name][-1] == str(total)
    released = wait_for(lambda: browser.execute_script(
        "return document.documentElement.dataset.awake !== '1'"))[0]
    assert released, "the wake lock outlived the game"


def test_the_table_view_counts_the_cafe_down_and_flashes_at_times_up(browser, table):
    box, actions = open_table(browser, table, "cafe")
    start = actions[1]
    box.advance(start["at"] - box.clock.now(), step=1.0)
    assert box.app.table.dispatch(start)
    state = box.app.play.session.state
    near = state.deadline - 2.0          # the box journals its clock 2 s before TIME'S UP
    box.advance(near - box.clock.now(), step=1.0)
    assert box.app.table.dispatch({"type": "clock", "at": near})
    box.app.pump()
    browser.execute_script("window.vibrated = null; navigator.vibrate = p => "
                           "{ window.vibrated = p; return true; };")
    assert wait_for(lambda: live_actions(browser) == len(box.app.play.session.actions))[0]
    # Read in one script: the live view may redraw between two element lookups.
    facts = dict(browser.execute_script(
        "return [...document.querySelectorAll('.facts dt')].map(t => "
        "[t.innerText.trim(), t.nextElementSibling.innerText.trim()])"))
    assert facts["LIGHT ORDERS"] == str(state.light) and facts["DARK ORDERS"] == str(state.dark)
    clock = css(browser, "#clock")[0]
    assert clock.get_attribute("role") == "timer" and clock.get_attribute("aria-live") == "off"
    shoot_sizes(browser, "table-cafe")
    flashed = wait_for(lambda: browser.execute_script(
        "return document.body.classList.contains('timesup') && window.vibrated"), 6)[0]
    assert flashed, "no flash and vibration at TIME'S UP"
    assert css(browser, "#clock")[0].text == "0:00"
    announced = css(browser, "#announce")[0].get_attribute("textContent")
    assert not re.search(r"\d:\d\d", announced), announced     # never the ticking clock


def test_the_table_view_shows_arthurs_and_your_hearts(browser, table):
    box, actions = open_table(browser, table, "miams")
    play_all(browser, box, actions)
    state = box.app.play.session.state
    rows = board_rows(browser)
    assert rows["Arthur"][0] == str(state.arthur.hearts)
    assert rows["You"][0] == str(state.player_score[0])
    shoot_sizes(browser, "table-miams")
    screen_size(browser, PHONE["width"], PHONE["height"])


def test_history_lists_imported_games_and_downloads_validate(browser, table, tmp_path):
    import jsonschema

    _, web = table
    for key in EXAMPLES:
        assert main(["history", "--state-dir", str(web.state_dir), "import",
                     str(ROOT / "docs" / "examples" / EXAMPLES[key]), "--game", key]) == 0
    browser.get(web.base + "/history")
    entries = [el.text for el in css(browser, "#games li")]
    for title in ("Makan Mania", "Crazy Café", "Miams solo"):
        assert sum(title in text for text in entries) >= 2, entries   # played and imported
    shoot(browser, "history")
    browser.execute_cdp_cmd("Browser.setDownloadBehavior",
                            {"behavior": "allow", "downloadPath": str(tmp_path)})
    for link in css(browser, ".downloads a"):
        link.click()
    csv_path, bg_path = tmp_path / "companion-games.csv", tmp_path / "companion-plays.bgsplay"
    assert wait_for(lambda: csv_path.exists() and bg_path.exists(), 10)[0]
    rows = list(csv.reader(csv_path.read_text(encoding="utf-8-sig").splitlines()))
    assert tuple(rows[0]) == CSV_FIELDS and len(rows) > 6
    # One "Log in BG Stats" link beside each finished game, none beside a game still played.
    for entry in css(browser, "#games li"):
        unfinished = any(word in entry.text for word in ("in progress on the box", "dropped"))
        assert len(entry.find_elements("css selector", "a.log")) == (0 if unfinished else 1), \
            entry.text
    links = [a.get_attribute("href") for a in css(browser, "#games a.log")]
    assert links and all(link.startswith(ADD_PLAY_URL) for link in links)
    schema = json.loads((ROOT / "tests" / "fixtures" / "history" / "bgsplay.schema.json")
                        .read_text(encoding="utf-8"))
    data = json.loads(bg_path.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, format_checker=jsonschema.FormatChecker())
    assert len(data["plays"]) >= 5
    # Each link carries its play: the same plays as the play file, one link each.
    sent = [json.loads(unquote(link.removeprefix(ADD_PLAY_URL))) for link in links]
    assert sorted(play["sourcePlayId"] for play in sent) == sorted(p["uuid"] for p in data["plays"])
    css(browser, "#games li a:not(.log)")[-1].click()
    assert "Arthur" in browser.page_source or "★" in browser.page_source
    shoot(browser, "game")


def test_a_roster_rename_shows_on_the_box_at_its_next_setup(browser, table):
    from selenium.webdriver.support.ui import Select

    box, web = table
    browser.get(web.base + "/roster")
    assert "Dee" in css(browser, "#roster")[0].text
    form = css(browser, "form#rename")[0]
    Select(form.find_element("css selector", "select")).select_by_visible_text("Dee")
    form.find_element("css selector", "input[name=name]").send_keys("Dora")
    form.find_element("css selector", "button").click()
    assert wait_for(lambda: css(browser, "p.done"), 5)[0]
    assert "Dee is now Dora" in css(browser, "p.done")[0].text
    shoot(browser, "roster")
    go_home(box)
    box.press("OK")                     # Makan Mania: its setup offers the roster's names
    assert "Dora" in box.app.table.games.roster_names() and "Dee" not in box.app.table.games.roster_names()
    browser.get(web.base + "/history")
    assert "Dora" in browser.page_source


def test_the_wifi_page_hands_the_named_network_to_the_hotspot_service(browser, table):
    """Issue 37: the box's own network "serves the phone page there with a page to choose a
    Wi-Fi network and type its passphrase": the form offers the networks the box saw, refuses
    a passphrase WPA2 would not take with the reason, and hands a good one over (the hotspot
    service, as root, takes it from handed/)."""
    from companion.appliance.hotspot_state import Mode, State

    box, web = table
    state_dir = box.app.table.state_dir
    (state_dir / "hotspot").mkdir(exist_ok=True)
    (state_dir / "hotspot" / "hotspot.json").write_text(
        State(Mode.OPEN, "Companion-9C1E", "abcdefghjk", networks=["Home", "Café 5G"]).as_text())
    request = state_dir / "handed" / "wifi-request.json"
    try:
        browser.get(web.base + "/wifi")
        offered = [o.get_attribute("value") for o in css(browser, "#networks option")]
        assert offered == ["Home", "Café 5G"]
        form = css(browser, "form#wifi")[0]
        form.find_element("css selector", "input[name=ssid]").send_keys("Café 5G")
        secret = form.find_element("css selector", "input[name=passphrase]")
        assert secret.get_attribute("type") == "password"
        # What the browser's own checks would stop, as a crafted request sends it.
        browser.execute_script("arguments[0].removeAttribute('minlength'); arguments[0].value = 'short';",
                               secret)
        form.find_element("css selector", "button").click()
        refused = wait_for(lambda: css(browser, "p.error"), 5)[0]
        assert refused and "8 to 63" in refused[0].text and not request.exists()
        form = css(browser, "form#wifi")[0]
        form.find_element("css selector", "input[name=ssid]").send_keys("Café 5G")
        form.find_element("css selector", "input[name=passphrase]").send_keys("  spaced pass ")
        form.find_element("css selector", "button").click()
        joining = wait_for(lambda: css(browser, "#joining"), 5)[0]
        assert joining and "The box is joining Café 5G" in joining[0].text
        assert json.loads(request.read_text()) == {"ssid": "Café 5G", "passphrase": "  spaced pass "}
        assert request.stat().st_mode & 0o777 == 0o640  # the hotspot service reads it as a group
    finally:
        request.unlink(missing_ok=True)
        (state_dir / "hotspot" / "hotspot.json").unlink()
    browser.get(web.base + "/wifi")
    assert "wifi_ssid in companion.txt" not in browser.page_source and not css(browser, "form#wifi")


def test_every_settings_form_refuses_a_wrong_value_with_the_loaders_message(browser, table):
    from companion.games.catalog import config_sections
    from companion.records import settings
    from tests.test_box_told import told
    from tests.test_settings import loader_message

    box, web = table
    fields = settings.settable(config_sections())
    browser.get(web.base + "/settings")
    groups = [f.get_attribute("data-group") for f in css(browser, "form.settings")]
    # The box's own games first; the page process also lists any other installed game (Pig).
    own = ["The box", "Makan Mania", "Crazy Café", "Miams solo"]
    assert groups[:len(own)] == own
    for index in range(1, len(own) + 1):
        form = css(browser, f"#settings-{index}")[0]
        field = form.find_elements("css selector", "input[name], select[name]")[1]  # after csrf
        key = field.get_attribute("name")
        # A select offers only right values: a wrong one is what a crafted request would send.
        browser.execute_script(
            "const f = arguments[0]; if (f.tagName === 'SELECT') { const o = new Option('x9', 'x9');"
            " f.add(o); f.value = 'x9'; } else { f.value = 'x9'; }", field)
        form.find_element("css selector", "button").click()
        shown = wait_for(lambda key=key: css(browser, f"[id='{key}-error']"), 5)[0]
        assert shown, f"{key}: no message"
        setting = fields[key]
        assert shown[0].text == loader_message(setting.section, setting.name, "x9")
        if index == 1:
            shoot(browser, "settings-refused")
    browser.get(web.base + "/settings")
    field = css(browser, "input[name='volume']")[0]
    field.clear()
    field.send_keys("1")
    css(browser, "#settings-1 button")[0].click()
    assert wait_for(lambda: css(browser, "p.done"), 5)[0]
    told(box)                                               # the page's mark, as it lands
    assert box.app.settings.values["volume"] == 1            # the box uses it at once
    go_home(box)
    box.screen.selected = [item.label for item in box.screen.items].index("Settings")
    box.press("OK")
    assert box.screen.name() == "SettingsScreen"
    assert box.screen.items[0].detail == "Quiet"        # and its Settings screen shows it
    shoot(browser, "settings")


def facts_off_the_edge(browser) -> list[str]:
    """The fact cards' values that reach past the page's width or past their own box."""
    return browser.execute_script(
        "const w = document.documentElement.clientWidth;"
        "return [...document.querySelectorAll('.facts dd')].filter(d => "
        "d.getBoundingClientRect().right > w + 0.5 || d.scrollWidth > d.clientWidth + 0.5"
        ").map(d => d.innerText)")


def test_the_miams_roll_card_fits_a_390_px_phone(browser, table):
    """Issue 39: at 390×844 (one of the README's sizes) the ROLL card cut "Marshmallow → Yums"
    ("Marshm", then "→ Yums" off the edge): on the Table and the Live page the whole roll shows
    inside its card and the page."""
    box, _ = open_table(browser, table, "miams")
    assert box.app.table.dispatch({"type": "roll", "face": "marshmallow", "source": "box"})
    box.app.pump()
    assert wait_for(lambda: live_actions(browser) == 2)[0], live_actions(browser)
    screen_size(browser, 390, 844)
    time.sleep(0.2)
    roll = next(d for d in css(browser, ".facts dd") if "→" in d.text)
    assert roll.text.replace("\n", " ") == "Marshmallow → Yums"
    assert facts_off_the_edge(browser) == []
    _, web = table
    browser.get(web.base + "/")
    screen_size(browser, 390, 844)
    assert wait_for(lambda: css(browser, "#roll"))[0]
    assert css(browser, "#roll")[0].text.replace("\n", " ") == "Marshmallow → Yums"
    assert facts_off_the_edge(browser) == []
    screen_size(browser, PHONE["width"], PHONE["height"])


def test_what_companion_txt_could_not_do_is_shown_on_every_page(browser, table):
    box, web = table
    report = box.app.table.state_dir / "firstboot.json"
    report.write_text(json.dumps({"sha256": "0" * 64, "notices": [], "problems": [
        "line 2: wifi_country = 'XX' is refused: it is not a country's ISO 3166 code"]}))
    try:
        browser.delete_all_cookies()
        browser.get(web.base + "/")
        shown = css(browser, "#setup-problems")
        assert shown and "companion.txt" in shown[0].text
        assert "line 2: wifi_country = 'XX' is refused" in shown[0].text
    finally:
        report.unlink()
    browser.get(web.base + "/")
    assert not css(browser, "#setup-problems")
