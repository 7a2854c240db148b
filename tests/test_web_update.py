"""The Update tab hands a release file to the box (never to the updater: the box asks first);
a failing SD card is shown on every page, from the health the box publishes in its runtime directory (RAM)."""

from __future__ import annotations

import http.client
import json
import re
import socket

import pytest

from companion.box.play import RETRY_S
from companion.journal import health_file as health
from companion.journal.health import JournalStatus
from companion.journal.journal import Journal
from companion.simulator.simbox import SimBox
from companion.web.update import MAX_BYTES
from tests.test_saved_games import fill_disk, start, tallies  # noqa: F401 (the tally games)
from tests.web_process import WebProcess


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    return tmp_path_factory.mktemp("run")


@pytest.fixture(scope="module")
def page_temp(tmp_path_factory):
    """The page's temporary folder (where the form parser spools an upload)."""
    return tmp_path_factory.mktemp("page-tmp")


@pytest.fixture(scope="module")
def web(tmp_path_factory, runtime, page_temp):
    state = tmp_path_factory.mktemp("state")
    (state / "update-spool").mkdir()  # systemd-tmpfiles makes it on the box
    journal, _ = Journal.open(state)  # the box's journal, where paired phones are kept
    journal.close()
    mp = pytest.MonkeyPatch()
    mp.setenv("RUNTIME_DIRECTORY", str(runtime))
    mp.setenv("TMPDIR", str(page_temp))
    server = WebProcess(state)
    mp.undo()
    yield server
    server.close()


def upload(web: WebProcess, cookie: str, name: str, data: bytes, csrf: str
           ) -> tuple[int, dict[str, str], bytes]:
    boundary = "----companion-test"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"release\"; "
            f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=10)
    try:
        conn.request("POST", "/update", body=body, headers={
            "Cookie": cookie, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def folder_bytes(folder) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def test_a_chunked_upload_is_cut_off_once_past_the_limit(web, page_temp):
    """Issue 36: "A 200 MB chunked upload is refused only after the page's temp directory has
    grown to 210 MB": with no Content-Length, the bytes received are counted instead."""
    cookie = web.session()
    token = csrf_of(web.get("/update", cookie)[2])
    boundary = "----companion-test"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{token}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"release\"; "
            f"filename=\"big.release\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    block = b"\0" * (1 << 20)
    sent, largest = 0, 0
    with socket.create_connection(("127.0.0.1", web.port), timeout=30) as conn:
        conn.sendall(f"POST /update HTTP/1.1\r\nHost: box\r\nCookie: {cookie}\r\nContent-Type: "
                     f"multipart/form-data; boundary={boundary}\r\nTransfer-Encoding: chunked"
                     "\r\n\r\n".encode() + b"%x\r\n%s\r\n" % (len(head), head))
        try:
            while sent < 200 * 2**20:
                conn.sendall(b"%x\r\n%s\r\n" % (len(block), block))
                sent += len(block)
                largest = max(largest, folder_bytes(page_temp))
        except OSError:
            pass  # the page answered and closed the connection
        answer = conn.recv(4096)
    assert answer.split(b"\r\n")[0].endswith(b"413 Request Entity Too Large") or b" 413 " in answer
    assert sent < 100 * 2**20, "the page kept reading past the limit"
    assert largest <= MAX_BYTES + 4 * (1 << 20)
    assert folder_bytes(page_temp) == 0  # the parser's temporary file is gone
    assert not list((web.state_dir / "handed").glob("big.release*"))


def csrf_of(page: bytes) -> str:
    return re.search(rb'name="csrf" value="([^"]+)"', page)[1].decode()


def test_a_release_file_lands_whole_beside_the_box_never_in_the_updaters_spool(web):
    assert web.get("/update")[0] == 401
    cookie = web.session()
    status, _, page = web.get("/update", cookie)
    assert status == 200 and b'id="running">0.1.0<' in page
    token = csrf_of(page)
    status, headers, _ = upload(web, cookie, "table-companion-0.2.0-aarch64.release", b"x" * 3000, token)
    assert status == 303 and "press%20OK%20on%20the%20box%20to%20install%20it" in headers["location"]
    handed, spool = web.state_dir / "handed", web.state_dir / "update-spool"
    assert (handed / "table-companion-0.2.0-aarch64.release").read_bytes() == b"x" * 3000
    assert not list(handed.glob("*.partial")) and not list(spool.iterdir())
    status, _, page = upload(web, cookie, "notes.txt", b"hello", token)
    assert status == 400 and b"choose a .release file" in page
    assert upload(web, cookie, "a.release", b"x", "forged")[0] == 403
    assert sorted(path.name for path in handed.iterdir()) == ["table-companion-0.2.0-aarch64.release"]
    (spool / "last.txt").write_text("table-companion-0.2.0-aarch64.release: running 0.2.0\n")
    page = web.get("/update", cookie)[2]
    assert b"Last update: table-companion-0.2.0-aarch64.release: running 0.2.0" in page


def test_every_page_warns_while_the_box_holds_play_in_memory(web, runtime):
    cookie = web.session()
    (runtime / health.FILENAME).write_text(json.dumps({"ok": False, "held": 3, "reason": "read-only"}))
    for path in ("/", "/history", "/roster", "/update"):
        page = web.get(path, cookie)[2].decode()
        assert ("cannot write to its SD card (read-only): 3 changes held (play kept in memory). "
                "Play goes on; keep the box on") in page, path
    (runtime / health.FILENAME).write_text(json.dumps({"ok": True, "held": 0, "reason": ""}))
    assert "card-failing" not in web.get("/", cookie)[2].decode()


def test_the_box_publishes_its_journal_health_when_it_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path / "run"))
    (tmp_path / "run").mkdir()
    box = SimBox(tmp_path / "state")
    try:
        start(box)
        assert health.read(tmp_path / "run") == JournalStatus(True, 0, "")
        fill_disk(box)
        box.press("ACTION")
        held = health.read(tmp_path / "run")
        assert held is not None and not held.ok and held.reason == "disk full" and held.held >= 1
        box.app.play.journal._disk.execute("PRAGMA max_page_count = 1000000")  # space freed
        box.advance(RETRY_S + 0.1)
        assert health.read(tmp_path / "run") == JournalStatus(True, 0, "")
    finally:
        box.close()
