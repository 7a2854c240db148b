"""`companion web` over HTTP: pairing (printed token, the box's PIN and QR token), 401 without a
session, "Forget phones", the roster form's CSRF check, the downloads, and the command line."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import time

import pytest

from companion.cli import main
from companion.records import pairing, phones, roster
from companion.screens.phone import qr_modules
from companion.web.auth import Pairing
from tests.test_history import EXAMPLES, ROOT, run
from tests.web_process import WebProcess, race_bodies

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


def test_under_systemd_no_token_is_printed_and_a_paired_cookie_is_strict_and_http_only(web):
    assert web.first_line.startswith("Phone page: http://") and "token" not in web.first_line
    status, headers, _ = web.get(f"/pair?t={pairing.offer(web.state_dir).token}")
    assert status == 303 and headers["location"] == "/"
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert web.get("/", cookie.split(";")[0])[0] == 200


def test_the_start_token_of_a_terminal_pairs_one_phone(state):
    gate = Pairing(state, start_token=True)
    assert gate.take_token(gate.start_token, "127.0.0.1").cookie
    assert not gate.take_token(gate.start_token, "127.0.0.2").cookie
    assert not Pairing(state).start_token


def test_the_box_pin_and_qr_token_pair_and_forget_phones_ends_every_session(web, state):
    offer = pairing.offer(state)
    assert re.fullmatch(r"\d{6}", offer.pin)
    status, headers, _ = web.post("/pair", {"pin": offer.pin})
    assert status == 303
    by_pin = headers["set-cookie"].split(";")[0]
    offer = pairing.offer(state)                                # the box's next code
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


@pytest.mark.slow
def test_racing_guessers_get_at_most_five_pins_checked_per_pin_shown(web, state):
    """900 connections guessing at once got 900 PINs checked; now the PIN is burnt after 5."""
    offer = pairing.offer(state)
    guesses = [f"{n:06d}" for n in range(300) if f"{n:06d}" != offer.pin][:240]
    bodies = [(f"127.0.1.{n % 60 + 1}", f"pin={g}".encode()) for n, g in enumerate(guesses)]
    answers = race_bodies(web.port, bodies)
    assert all(a.startswith(b"HTTP/1.1 ") for a in answers)
    checked = sum(b"Wrong PIN." in a for a in answers)
    assert 1 <= checked <= phones.MAX_WRONG
    assert not any(b" 303 " in a.split(b"\r\n")[0] for a in answers)
    # The right PIN of a burnt offer no longer pairs: the box shows a new one.
    assert b"used up" in web.post("/pair", {"pin": offer.pin})[2]


def test_wrong_guesses_never_lock_the_table_out(web, state):
    """Five wrong PINs a minute from any device made the right PIN answer 429 to everyone."""
    pairing.offer(state)
    codes = [web.post("/pair", {"pin": "000001"}, source="127.0.2.1")[0] for _ in range(10)]
    assert codes.count(429) >= 7          # that device stops being heard ...
    fresh = pairing.offer(state)           # ... the box shows a new PIN, and the table pairs
    status, _, _ = web.post("/pair", {"pin": fresh.pin}, source="127.0.2.2")
    assert status == 303


@pytest.mark.slow
def test_one_pin_pairs_one_phone_and_a_used_token_stays_used_after_a_restart(state):
    offer = pairing.offer(state)
    server = WebProcess(state)
    try:
        assert server.post("/pair", {"pin": offer.pin})[0] == 303
        status, _, body = server.post("/pair", {"pin": offer.pin}, source="127.0.3.1")
        assert status == 401 and b"paired a phone" in body
        assert server.get(f"/pair?t={offer.token}")[0] == 401
        second = pairing.offer(state)
        assert server.get(f"/pair?t={second.token}")[0] == 303
    finally:
        server.close()
    again = WebProcess(state)          # a restart of the page: the token is still used
    try:
        status, _, body = again.get(f"/pair?t={second.token}")
        assert status == 401 and b"used or has expired" in body
    finally:
        again.close()


def test_each_paired_phone_is_listed_and_one_can_be_forgotten(web, state):
    phone_a, phone_b = web.session(), web.session()
    status, _, body = web.get("/phones", phone_a)
    assert status == 200 and body.count(b"data-phone=") >= 2 and b"this phone" in body
    token = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    sid_b = phone_b.partition("=")[2].partition(".")[0]
    assert web.post("/phones", {"phone": phones.digest(sid_b), "csrf": "x"}, phone_a)[0] == 403
    status, _, body = web.post("/phones", {"phone": phones.digest(sid_b), "csrf": token}, phone_a)
    assert status == 200 and b"Phone forgotten." in body
    assert web.get("/history", phone_b)[0] == 401
    assert web.get("/history", phone_a)[0] == 200


def test_the_name_of_a_phone_comes_from_its_browser():
    assert phones.browser_name("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
                               "(KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36") == \
        "Chrome on Android"
    assert phones.browser_name("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) "
                               "AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 "
                               "Safari/604.1") == "Safari on iPhone"
    assert phones.browser_name("\u202e\x00" * 50) == "A browser"


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
    assert response.readline() == b"event: live\n"              # the part as it is now
    assert response.readline().startswith(b"data: {\"html\":")
    response.readline()
    assert main(["history", "--state-dir", str(state), "roster", "add", "Quin"]) == 0
    assert response.readline() == b": still here\n"      # the Live part did not change
    response.readline()
    begun = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()):     # a newer game: the Live part changes
        assert main(["history", "--state-dir", str(state), "import",
                     str(ROOT / "docs" / "examples" / EXAMPLES["cafe"]), "--game", "cafe"]) == 0
    # Other commits meanwhile (a phone's "last seen", the roster) change no Live part: they come
    # as kept-alive lines, then the new part.
    line = response.readline()
    while line in (b": still here\n", b"\n") and time.monotonic() - begun < 1.0:
        line = response.readline()
    assert line == b"event: live\n"
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


def open_pair_screen(box):
    labels = [item.label for item in box.screen.items]
    for _ in range(labels.index("Phone")):
        box.press("DOWN")
    box.press("OK")
    box.press("OK")                                     # Pair a phone
    return box.screen


def test_the_box_phone_screen_offers_a_pin_and_qr_and_forgets_phones(box):
    screen = open_pair_screen(box)
    offer = pairing.read(box.app.table.state_dir)
    assert offer.open(time.time()) and offer.pin == screen.offer.pin
    address = pairing.page_address(8080)
    assert screen.modules == qr_modules(f"{address}pair?t={offer.token}")
    frame = box.frame()
    assert frame.getpixel((1, 1)) == 255 and frame.getpixel((63, 1)) == 0   # the code's border
    box.press("BACK")                                   # closing withdraws the PIN and token
    after = pairing.read(box.app.table.state_dir)
    assert (after.secret, after.pin, after.token) == (offer.secret, "", "")
    box.press("DOWN")
    box.press("DOWN")
    box.press("OK")                                     # Forget phones
    box.press("OK")                                     # yes
    assert pairing.read(box.app.table.state_dir).secret != offer.secret


def test_a_box_without_a_state_dir_says_so_on_the_phone_screens(box):
    """No state directory (the journal off): no PIN to show and nothing to forget, each said."""
    box.app.table.state_dir = None
    screen = open_pair_screen(box)
    assert screen.offer is None and screen.problem == "No state dir"
    box.press("DOWN")                                   # no address to type without a PIN
    box.press("BACK")
    box.press("DOWN")
    box.press("DOWN")
    box.press("OK")                                     # Forget phones
    box.press("OK")                                     # yes
    assert box.app.stack.toast_lines == ["Cannot forget:", "state dir refuses"]
    assert box.app.errors == 0


def test_the_box_shows_a_new_pin_once_one_is_burnt_or_has_paired(box):
    screen = open_pair_screen(box)
    gate = Pairing(box.app.table.state_dir)
    first = screen.offer
    for n in range(phones.MAX_WRONG):
        assert gate.try_pin(f"{(int(first.pin) + 1 + n) % 10 ** 6:06d}", f"127.0.4.{n}").checked
    box.advance(1.5)
    assert screen.offer.pin and screen.offer.token != first.token
    second = screen.offer
    assert gate.try_pin(second.pin, "127.0.4.9", "Firefox/128 (Android)").cookie
    box.advance(1.5)
    assert screen.offer.token != second.token           # one PIN, one phone
    box.press("BACK")
    box.press("DOWN")
    box.press("OK")                                     # Paired phones
    listed = box.screen
    assert [item.label for item in listed.items] == ["Firefox on Android"]
    box.press("OK")                                     # forget it ...
    box.press("OK")                                     # ... yes
    with roster.connect(box.app.table.state_dir) as conn:
        assert phones.listing(conn) == []


def test_a_game_without_a_board_of_its_own_shows_its_facts_big():
    from companion.web.board import board

    made = board({"kind": "game", "title": "Pig", "status": "playing", "describe": "Ana's turn",
                  "facts": {"Ana": 12, "Ben": 30}})
    assert made["facts"] == [("Ana", 12), ("Ben", 30)] and made["announce"] == "Ana's turn"
    assert board({"kind": "none"})["rows"] == [] and board({"kind": "unknown"})["facts"] == []


def test_a_cafe_game_is_never_listed_as_dash_unfinished(box):
    """The history said "–: unfinished" of a Café game (it has no names): now the table's words."""
    from tests.test_history import example

    actions = example("cafe")
    assert box.app.table.games.start("cafe", actions[0])
    web = WebProcess(box.app.table.state_dir)
    try:
        session = web.session()
        body = web.get("/history", session)[2].decode()
        assert "The table: in progress on the box" in body and "–: unfinished" not in body
        for action in actions[1:]:
            if "at" in action:
                box.advance(max(0.0, action["at"] - box.clock.now()), step=1.0)
            box.app.table.dispatch(action)
        assert box.app.play.session.state.phase == "finished"
        body = web.get("/history", session)[2].decode()
        assert "Table: lost in round 3" in body and "unfinished" not in body
    finally:
        web.close()


def test_three_pages_watching_cost_one_render_a_change_not_three(state, monkeypatch):
    """Every Live stream woken by one journal change gets the part rendered once for all."""
    import asyncio

    from companion.web import feed, server

    app = server.build(state)
    watch, gate = app.state.watch, app.state.pairing
    cookie = gate.take_token(pairing.offer(state).token, "127.0.0.1").cookie
    renders: list[int] = []
    real = feed.live

    def counted(read):
        renders.append(1)
        return real(read)

    monkeypatch.setattr(feed, "live", counted)

    async def stream(chunks: list[bytes], gone: asyncio.Event) -> None:
        scope = {"type": "http", "method": "GET", "path": "/events", "raw_path": b"/events",
                 "query_string": b"", "root_path": "", "scheme": "http", "server": ("box", 80),
                 "client": ("127.0.0.1", 5000), "http_version": "1.1",
                 "headers": [(b"cookie", f"companion_session={cookie}".encode())], "app": app}

        async def receive():
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message.get("body"):
                chunks.append(message["body"])
        await app(scope, receive, send)

    async def watched() -> tuple[int, list[list[bytes]]]:
        gone = asyncio.Event()
        chunks: list[list[bytes]] = [[], [], []]
        watch.check()                                   # its first reading
        tasks = [asyncio.create_task(stream(c, gone)) for c in chunks]
        while not all(chunks):                          # each got the part as it is
            await asyncio.sleep(0.01)
        before = len(renders)
        with roster.connect(state) as conn:             # a change in the journal
            roster.add(conn, "Watcher")
        assert watch.check()
        await asyncio.sleep(0.2)
        gone.set()
        watch.check()
        await asyncio.wait(tasks, timeout=5)
        return len(renders) - before, chunks

    after_change, chunks = asyncio.run(watched())
    assert after_change == 1 and len(chunks) == 3
