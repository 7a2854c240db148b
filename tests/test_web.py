"""`companion web` over HTTP: pairing (printed token, the box's PIN and QR token), 401 without a
session, "Forget phones", the roster form's CSRF check, the downloads, and the command line."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import pytest

from companion import pairing
from companion.cli import main
from companion.screens.phone import qr_modules
from companion.web.auth import MAX_WRONG, Pairing
from tests.test_history import EXAMPLES, ROOT, run
from tests.web_process import WebProcess

PAGES = ("/", "/history", "/history/1", "/roster", "/export/games.csv", "/export/plays.bgsplay",
         "/export/game-1.jsonl", "/events")


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    """A state directory with the three example games imported."""
    where = tmp_path_factory.mktemp("web")
    for n, key in enumerate(EXAMPLES):
        assert main(["history", "--state-dir", str(where), "import",
                     str(ROOT / "docs" / "examples" / EXAMPLES[key]), "--game", key,
                     "--date", f"2026-11-2{n} 19:30", "--minutes", "30"]) == 0
    return where


@pytest.fixture(scope="module")
def web(state):
    server = WebProcess(state)
    yield server
    server.close()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_and_api_answers_401_without_a_session(web, path):
    assert web.get(path)[0] == 401
    forged = "companion_session=abc." + "0" * 64
    assert web.get(path, forged)[0] == 401


def test_the_printed_token_pairs_once_with_a_strict_http_only_cookie(web):
    status, headers, _ = web.get(f"/pair?token={web.token}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    session = cookie.split(";")[0]
    assert web.get("/", session)[0] == 200
    status, _, body = web.get(f"/pair?token={web.token}")
    assert status == 401 and b"used or has expired" in body


def test_the_box_pin_and_qr_token_pair_and_forget_phones_ends_every_session(web, state):
    offer = pairing.offer(state)
    assert re.fullmatch(r"\d{6}", offer.pin)
    status, headers, _ = web.post("/pair", {"pin": offer.pin})
    assert status == 303
    by_pin = headers["set-cookie"].split(";")[0]
    status, headers, _ = web.get(f"/pair?t={offer.token}")     # what the QR code holds
    assert status == 303
    by_qr = headers["set-cookie"].split(";")[0]
    assert web.get(f"/pair?t={offer.token}")[0] == 401          # one time only
    assert web.get("/history", by_pin)[0] == web.get("/history", by_qr)[0] == 200
    pairing.forget_phones(state)
    assert web.get("/history", by_pin)[0] == web.get("/history", by_qr)[0] == 401
    assert web.post("/pair", {"pin": offer.pin})[0] == 401      # the PIN went with it


def test_the_qr_code_holds_the_pairing_address():
    modules = qr_modules("http://192.168.100.200:8080/pair?t=" + "x" * 16)
    assert modules is not None and len(modules) <= 29      # 62 px with its quiet zone
    assert qr_modules("http://example.org/" + "x" * 80) is None


def test_wrong_pins_are_slowed_down():
    now = [1000.0]
    gate = Pairing(ROOT / "nowhere", clock=lambda: now[0])
    for _ in range(MAX_WRONG):
        assert gate.wait_s() == 0
        assert not gate.try_pin("000000")
    assert gate.wait_s() > 0
    now[0] += 61
    assert gate.wait_s() == 0


def test_pin_guessing_gets_429(state):
    server = WebProcess(state)      # its own process: the count of wrong PINs is per process
    try:
        pairing.offer(state)
        codes = [server.post("/pair", {"pin": "12345x"})[0] for _ in range(MAX_WRONG + 1)]
        assert codes[:MAX_WRONG] == [401] * MAX_WRONG and codes[-1] == 429
    finally:
        server.close()


def test_the_roster_form_needs_its_csrf_token(web):
    session = web.session()
    status, _, body = web.get("/roster", session)
    token = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    assert web.post("/roster", {"op": "add", "name": "Zed"}, session)[0] == 403
    assert web.post("/roster", {"op": "add", "name": "Zed", "csrf": "x" * 64}, session)[0] == 403
    status, headers, _ = web.post("/roster", {"op": "add", "name": "Zed", "csrf": token}, session)
    assert status == 303 and "Added%20Zed" in headers["location"]
    status, _, body = web.post("/roster", {"op": "add", "name": "Zed", "csrf": token}, session)
    assert status == 400 and b"Zed is in the roster already" in body


def test_the_roster_page_marks_who_is_me(web, state, capsys):
    """The phone sets the play file's "me"; the roster list says who it is."""
    session = web.session()
    _, _, body = web.get("/roster", session)
    token = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    status, headers, _ = web.post("/roster", {"op": "add", "name": "Dee", "csrf": token}, session)
    player = re.search(rb'<option value="(\d+)"[^>]*>Dee<', web.get("/roster", session)[2])
    status, headers, _ = web.post("/roster", {"op": "me", "player": player.group(1).decode(),
                                              "csrf": token}, session)
    assert status == 303 and "You%20are%20Dee" in headers["location"]
    _, _, body = web.get("/roster", session)
    assert b"<b>Dee</b> <small>(you)</small>" in body
    _, out, _ = run(capsys, "history", "--state-dir", str(state), "export", "--format",
                    "bgsplay", "--out", "-")
    data = json.loads(out)
    assert next(p["name"] for p in data["players"]
                if p["id"] == data["userInfo"]["meRefId"]) == "Dee"
    status, headers, _ = web.post("/roster", {"op": "me", "player": "", "csrf": token}, session)
    assert status == 303 and "none%20of%20these" in headers["location"]


def test_downloads_are_what_the_cli_writes(web, state, capsys):
    session = web.session()
    status, headers, body = web.get("/export/games.csv", session)
    assert status == 200 and headers["content-type"].startswith("text/csv")
    assert "attachment" in headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert {r["game"] for r in rows} == {"Makan Mania", "3 Minute Crazy Café", "Miams"}
    _, written, _ = run(capsys, "history", "--state-dir", str(state), "export", "--format",
                        "bgsplay", "--out", "-")
    status, headers, body = web.get("/export/plays.bgsplay", session)
    assert status == 200 and body.decode() == written and len(json.loads(body)["plays"]) == 3
    assert headers["content-type"] == "application/octet-stream"
    assert 'filename="companion-plays.bgsplay"' in headers["content-disposition"]
    status, _, body = web.get("/export/game-1.jsonl", session)
    assert status == 200 and body.decode().splitlines()[1].startswith('{"type": "setup"')
    assert web.get("/export/game-99.jsonl", session)[0] == 404
    assert web.get("/export/secrets.txt", session)[0] == 404


def test_sse_pushes_a_change_of_the_journal(web, state):
    """The event stream carries the Live page's new part soon after another writer commits."""
    import http.client

    session = web.session()
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=5)
    conn.request("GET", "/events", headers={"Cookie": session})
    response = conn.getresponse()
    assert response.status == 200 and response.getheader("content-type").startswith(
        "text/event-stream")
    assert response.readline().startswith(b"retry:")
    response.readline()
    begun = time.monotonic()
    assert main(["history", "--state-dir", str(state), "roster", "add", "Quin"]) == 0
    assert response.readline() == b"event: live\n"
    assert response.readline().startswith(b"data: {\"html\":")
    assert time.monotonic() - begun < 1.0
    conn.close()


def test_help_documents_the_flags(capsys):
    with pytest.raises(SystemExit):
        main(["web", "--help"])
    out = capsys.readouterr().out
    for flag in ("--state-dir", "--listen", "--config", "HOST:PORT"):
        assert flag in out


@pytest.mark.parametrize(("listen", "said"), [
    ("127.0.0.1:99999", "port must be a number"), ("127.0.0.1:http", "port must be a number"),
])
def test_a_bad_listen_address_is_said(capsys, listen, said):
    code, _, err = run(capsys, "web", "--listen", listen, "--state-dir", "/nonexistent")
    assert code == 2 and said in err and "Traceback" not in err


def test_the_box_phone_screen_offers_a_pin_and_qr_and_forgets_phones(box):
    labels = [item.label for item in box.screen.items]
    for _ in range(labels.index("Phone")):
        box.press("DOWN")
    box.press("OK")
    box.press("OK")                                     # Pair a phone
    screen = box.screen
    offer = pairing.read(box.app.state_dir)
    assert offer.open(time.time()) and offer.pin == screen.offer.pin
    address = pairing.page_address(8080)
    assert screen.modules == qr_modules(f"{address}pair?t={offer.token}")
    frame = box.frame()
    assert frame.getpixel((1, 1)) == 255 and frame.getpixel((63, 1)) == 0   # the code's border
    box.press("BACK")                                   # closing withdraws the PIN and token
    after = pairing.read(box.app.state_dir)
    assert (after.secret, after.pin, after.token) == (offer.secret, "", "")
    box.press("DOWN")
    box.press("OK")                                     # Forget phones
    box.press("OK")                                     # yes
    assert pairing.read(box.app.state_dir).secret != offer.secret
