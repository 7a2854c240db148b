"""The card-data forms over HTTP: paired phones only, with the CSRF check; hostile bodies
(huge, not UTF-8, unknown keys, wrong types) get a clear message and lose nothing."""

from __future__ import annotations

import html
import http.client
import re

import pytest

from companion.cli import main
from companion.contract.config import read_toml
from companion.records import cards
from tests.test_cards import DECLARED, loader_says
from tests.test_history import EXAMPLES, ROOT
from tests.web_process import WebProcess

FORMS = ("/cards/makan/trays", "/cards/makan/drinks", "/cards/miams/sheet", "/cards/miams/tile")


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    where = tmp_path_factory.mktemp("cards")
    assert main(["history", "--state-dir", str(where), "import",
                 str(ROOT / "docs" / "examples" / EXAMPLES["makan"]), "--game", "makan"]) == 0
    server = WebProcess(where)
    yield server
    server.close()


@pytest.fixture(scope="module")
def phone(web):
    return web.session()


def fields(page: str) -> dict[str, str]:
    """The form's fields as the page fills them (inputs, and each select's chosen option)."""
    found = {html.unescape(k): html.unescape(v)
             for k, v in re.findall(r'<input id="([^"]+)" name="[^"]+" value="([^"]*)"', page)}
    for key, options in re.findall(r'<select id="([^"]+)" name="[^"]+"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', options)
        found[html.unescape(key)] = html.unescape(chosen.group(1)) if chosen else ""
    return found


def opened(web, phone, path: str) -> dict[str, str]:
    status, _, body = web.get(path, phone)
    assert status == 200
    page = body.decode()
    return {**fields(page), "csrf": re.search(r'name="csrf" value="([^"]+)"', page).group(1)}


def errors(body: bytes) -> list[str]:
    return [html.unescape(e) for e in re.findall(r'<p class="error"[^>]*>(.*?)</p>', body.decode())]


def saved(web) -> dict[str, bytes]:
    folder = web.state_dir / cards.FOLDER
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.exists() else {}


@pytest.mark.parametrize("path", FORMS)
def test_every_card_form_answers_401_unpaired_and_403_without_this_phones_csrf(web, phone, path):
    assert web.get(path)[0] == 401
    form = opened(web, phone, path)
    assert web.post(path, form)[0] == 401
    assert web.post(path, {**form, "csrf": "x" * 43}, phone)[0] == 403
    assert web.post(path, {k: v for k, v in form.items() if k != "csrf"}, phone)[0] == 403


def test_a_card_file_not_declared_is_not_found(web, phone):
    for path in ("/cards/makan/rules", "/cards/nogame/trays", "/cards/makan/..%2F..%2Fconfig",
                 "/cards/%D9%A3/%00"):
        assert web.get(path, phone)[0] == 404


def test_a_saved_form_is_what_the_page_shows_next_and_reset_puts_the_stand_in_back(web, phone):
    form = opened(web, phone, "/cards/miams/tile")
    assert form["faces.fruit1"] == "pair"
    status, headers, _ = web.post("/cards/miams/tile", {**form, "faces.fruit1": "yums",
                                                        "faces.marshmallow": "pair"}, phone)
    assert status == 303
    status, _, body = web.get(headers["location"], phone)
    page = body.decode()
    assert "Saved Solo tile" in page and "the copy saved on this page" in page
    assert fields(page)["faces.fruit1"] == "yums"
    status, headers, _ = web.post("/cards/miams/tile", {"csrf": form["csrf"], "op": "reset"}, phone)
    assert status == 303 and "miams-tile.toml" not in saved(web)
    assert fields(web.get(headers["location"], phone)[2].decode())["faces.fruit1"] == "pair"


def test_a_wrong_type_gets_the_loaders_message_next_to_its_field(web, phone, tmp_path):
    form = opened(web, phone, "/cards/makan/drinks")
    before = saved(web)
    status, _, body = web.post("/cards/makan/drinks", {**form, "drink[2].dice": "one"}, phone)
    assert status == 400 and saved(web) == before
    _, card = DECLARED["makan", "drinks"]
    doc = read_toml(card.stand_in)
    doc["drink"][2]["dice"] = "one"
    assert errors(body) == [loader_says(card, doc, tmp_path)[1]]   # "expected int, got 'one'"
    assert 'id="drink[2].dice-error"' in body.decode()
    assert fields(body.decode())["drink[2].dice"] == "one"      # what was typed stays


def _raw_post(web, path: str, body: bytes, cookie: str, length: int | None = None
              ) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=10)
    try:
        conn.putrequest("POST", path)
        conn.putheader("Cookie", cookie)
        conn.putheader("Content-Type", "application/x-www-form-urlencoded")
        conn.putheader("Content-Length", str(len(body) if length is None else length))
        conn.endheaders()
        conn.send(body)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_hostile_bodies_get_a_clear_message_and_lose_nothing(web, phone):
    form = opened(web, phone, "/cards/makan/trays")
    assert web.post("/cards/makan/trays", {**form, "tray[0].name": "Rouge"}, phone)[0] == 303
    before = saved(web)
    assert "makan-trays.toml" in before
    from urllib.parse import urlencode

    good = urlencode({**form, "tray[0].name": "Rouge"}).encode()
    cases = [
        (good.replace(b"Rouge", b"R%FF%FEouge"), 400, "not UTF-8 text"),       # not UTF-8
        (good + b"&pad=" + b"x" * (70 * 1024), 413, "too big"),                 # huge
        (good + b"&tray[0].ability[x]=1", 400, "is not a field of this form"),  # unknown key
        (b"&".join([good, *(b"f%d=1" % i for i in range(300))]), 413, "too big"),  # too many
    ]
    for body, status, said in cases:
        answered, text = _raw_post(web, "/cards/makan/trays", body, phone)
        assert answered == status, (said, text[:200])
        assert said in html.unescape(text.decode()), said
        assert saved(web) == before
    # A length that announces gigabytes is refused before a byte is read.
    assert _raw_post(web, "/cards/makan/trays", b"", phone, length=1 << 33)[0] == 413
    assert saved(web) == before
    assert "Traceback" not in web.log()


FUZZ_EXAMPLES = 60


@pytest.mark.parametrize("path", FORMS)
@pytest.mark.slow
def test_any_values_in_a_real_form_are_saved_only_when_the_loader_reads_them(web, phone, path):
    from urllib.parse import quote

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.web_fuzz import texts

    form = opened(web, phone, path)
    _, card = DECLARED[tuple(path.split("/")[2:])]
    keys = sorted(k for k in form if k != "csrf")

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(keys), texts, min_size=1, max_size=4))
    def one(change: dict[str, str]) -> None:
        before = saved(web)
        sent = {**form, **change}
        body = "&".join(f"{quote(k)}={quote(v.encode('utf-8', 'surrogatepass'), safe='')}"
                        for k, v in sent.items()).encode()
        status, _ = _raw_post(web, path, body, phone)
        assert status in (303, 400), change
        if status == 400:
            assert saved(web) == before
        else:   # what was saved is what the game's loader reads
            card.load(web.state_dir / cards.FOLDER / f"{path.split('/')[2]}-{card.key}.toml")

    one()
    assert "Traceback" not in web.log()
