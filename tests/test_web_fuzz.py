"""Every route of the phone page under a property-based fuzz: no 5xx, no traceback in the log.

Before, non-ASCII cookies, tokens, PINs and CSRF fields (``hmac.compare_digest`` refuses
non-ASCII text), ``/history/<23 digits>``, ``/export/game-<5,000 digits>.jsonl`` and
``/export/game-%D9%A3.jsonl`` each answered 500 with a traceback.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from tests.test_web import state  # noqa: F401 (the fixture)
from tests.web_fuzz import requests, routes, send
from tests.web_process import WebProcess

pytestmark = pytest.mark.slow

EXAMPLES = 250


@pytest.fixture(scope="module")
def fuzzed(state):  # noqa: F811
    server = WebProcess(state)
    session = server.session()
    body = server.get("/roster", session)[2]
    csrf = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    yield server, session.partition("=")[2], csrf
    server.close()


@pytest.mark.parametrize("request_line", [
    "GET /history/12345678901234567890123", "GET /export/game-" + "9" * 5000 + ".jsonl",
    "GET /export/game-%D9%A3.jsonl", "GET /history/%D9%A3", "GET /pair?t=%C3%A9",
])
def test_the_reported_paths_answer_without_an_error(fuzzed, request_line):
    web, cookie, _ = fuzzed
    raw = f"{request_line} HTTP/1.1\r\nHost: box\r\nConnection: close\r\n".encode()
    assert send(web.port, raw + b"Cookie: companion_session=" + cookie.encode() + b"\r\n\r\n") == 404 \
        or "pair" in request_line
    for bad in ("é", "\u0663" * 6, "x." + "ß" * 64):
        status = send(web.port, raw + f"Cookie: companion_session={bad}\r\n\r\n".encode())
        assert 400 <= status < 500


def test_non_ascii_pins_and_csrf_fields_are_refused_plainly(fuzzed):
    web, cookie, _ = fuzzed
    for form in ({"pin": "١٢٣٤٥٦"}, {"pin": "é"}, {"pin": "１２３４５６"}):
        assert web.post("/pair", form)[0] == 401
    session = f"companion_session={cookie}"
    assert web.post("/roster", {"op": "add", "name": "Zoë", "csrf": "é" * 64}, session)[0] == 403


def test_every_route_under_fuzz_answers_without_5xx_or_traceback(fuzzed):
    web, cookie, csrf = fuzzed
    table = routes()
    assert {path for path, _ in table} >= {"/", "/pair", "/events", "/history/{id}",
                                           "/export/{name}", "/roster", "/phones", "/settings",
                                           "/table"}
    statuses: list[int] = []

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(requests(table, [cookie, "", "forged.0"], csrf))
    def one(request: bytes) -> None:
        status = send(web.port, request)
        statuses.append(status)
        assert 0 < status < 500, request[:300]

    one()
    assert len(statuses) == EXAMPLES and len(set(statuses)) > 3
    log = web.log()
    assert "Traceback" not in log and " 500 " not in log, log[-3000:]
