"""The phone page's Dice section (``/dice``): the paired dice with what the box says of them, the
dice its last search found, pair / forget / search again, each change checked on the server
(a hostile form is refused with its reason and changes nothing) and followed by the box at once."""

from __future__ import annotations

import re

import pytest

from companion.records import dice as pairs
from companion.records import roster
from companion.simulator.simbox import SimBox
from firmware_bridge.virtual_dice import IN_REACH
from tests.test_box_told import told
from tests.test_sensor_app import pump_until
from tests.web_process import WebProcess

pytestmark = pytest.mark.slow

AMBER, SAFFRON = IN_REACH[0][1], IN_REACH[1][1]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A simulated box that searched once, and `companion web` on its state directory."""
    state = tmp_path_factory.mktemp("dice")
    box = SimBox(state)
    assert box.app.dice.search() == ""
    pump_until(box, lambda: bool(box.app.dice.found))
    web = WebProcess(state)
    yield box, web, web.session()
    web.close()
    box.close()


def csrf(web, cookie) -> str:
    status, _, body = web.get("/dice", cookie)
    assert status == 200
    return re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()


def saved(web: WebProcess) -> list[str] | None:
    """The pairings kept in the journal's settings (None: never set on the box or the page)."""
    with roster.connect(web.state_dir) as conn:
        return pairs.saved(conn).get(pairs.KEY)


def test_the_page_needs_a_session_and_lists_the_dice_the_box_found(table):
    _box, web, cookie = table
    assert web.get("/dice")[0] == 401
    status, _, body = web.get("/dice", cookie)
    page = body.decode()
    assert status == 200 and "No die is paired." in page
    for _, address, name, rssi in IN_REACH:
        assert f'data-address="{address}"' in page and name in page and f"{rssi} dBm" in page


@pytest.mark.parametrize(("form", "reason"), [
    ({"op": "pair", "address": "AA:BB:CC:DD:EE:FF", "kind": "yellow"},
     "that die was not found by the box&#39;s last search: search again"),
    ({"op": "pair", "address": AMBER, "kind": "purple"},
     "the colour is one of yellow, blue, white, red"),
    ({"op": "pair", "address": AMBER + " red\n", "kind": "red"},
     "that die was not found"),
    ({"op": "pair", "address": "x" * 41, "kind": "red"}, "that is not a die&#39;s address"),
    ({"op": "forget", "address": SAFFRON}, f"{SAFFRON} is not paired"),
    ({"op": "drop tables", "address": AMBER}, "pick search, pair or forget"),
])
def test_a_hostile_form_is_refused_with_its_reason_and_changes_nothing(table, form, reason):
    _box, web, cookie = table
    before = saved(web)
    status, _, body = web.post("/dice", {**form, "csrf": csrf(web, cookie)}, cookie)
    assert status == 400
    assert reason in re.search(rb'id="dice-error">([^<]*)<', body).group(1).decode()
    assert saved(web) == before


def test_a_form_without_this_sessions_token_is_refused(table):
    _box, web, cookie = table
    status, _, _ = web.post("/dice", {"op": "pair", "address": AMBER, "kind": "red",
                                      "csrf": "x"}, cookie)
    assert status == 403 and saved(web) is None


def test_pair_then_forget_on_the_page_and_the_box_follows_at_once(table):
    box, web, cookie = table
    status, headers, _ = web.post("/dice", {"op": "pair", "address": AMBER.lower(),
                                            "kind": "white", "csrf": csrf(web, cookie)}, cookie)
    assert status == 303 and "Paired" in headers["location"]
    assert saved(web) == [f"pixels {AMBER} white"]
    told(box, lambda: box.app.dice.lines == [f"pixels {AMBER} white"])
    pump_until(box, lambda: box.app.sensor.online and box.app.sensor.kinds == ("white",))
    # the box says it connected, with its charge; the page shows it
    _, _, body = web.get("/dice", cookie)
    paired = body.decode().split('id="paired-dice"')[1].split("</ul>")[0]
    assert "white Pixels 00:01" in paired and "connected" in paired and "90%" in paired
    status, _, _ = web.post("/dice", {"op": "forget", "address": AMBER,
                                      "csrf": csrf(web, cookie)}, cookie)
    assert status == 303 and saved(web) == []
    told(box, lambda: box.app.dice.lines == [])
    assert box.app.dice.link is None and not box.app.sensor.configured
    box.app.pump()
    assert box.app.panel.status_icons() == ""  # no dice, no sensor icon (◎ or ⊘)


def test_search_again_asks_the_box_which_searches(table):
    box, web, cookie = table
    box.app.dice.found = []
    status, headers, _ = web.post("/dice", {"op": "search", "csrf": csrf(web, cookie)}, cookie)
    assert status == 303 and "searching" in headers["location"]
    told(box, lambda: len(box.app.dice.found) == len(IN_REACH))
