"""A property-based fuzz of every route of the phone page, over raw HTTP on loopback.

The routes come from the application itself (a route added later is fuzzed too); each
request is built from bytes, so cookies, tokens, PINs and form fields may hold any character,
and path parameters huge numbers or digits of other scripts. Used by tests/test_web_fuzz.py
and bench/bench_web.py (which counts the 5xx answers).
"""

from __future__ import annotations

import re
import socket
from pathlib import Path
from urllib.parse import quote

from hypothesis import strategies as st
from starlette.routing import Mount, Route

from companion.web.server import build

PARAM = re.compile(r"\{(\w+)(:\w+)?\}")
FIELDS = ("pin", "csrf", "op", "name", "player", "into", "phone", "t", "token", "done", "view")


def routes() -> list[tuple[str, tuple[str, ...]]]:
    """(path template, methods) of every route the page serves."""
    found = []
    for route in build(Path("/nonexistent")).routes:
        if isinstance(route, Route):
            found.append((route.path, tuple(sorted(route.methods or {"GET"}))))
        elif isinstance(route, Mount):
            found.append((route.path + "/{path}", ("GET",)))
    return found


# Text a person, a browser or an attacker may send: any character, digits of any script,
# numbers far beyond SQLite's integers, the usual suspects.
texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=8),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    st.tuples(st.sampled_from("123456789"), st.integers(18, 5000)).map(lambda t: t[0] * t[1]),
    st.sampled_from(["", "0", "1", "%00", "..", "../../etc/passwd", "\u0663", "１２３４５６",
                     "game-1.jsonl", "games.csv", "app.css", "\udcff", "\x00", "ß" * 300]),
)
raw_bytes = st.binary(max_size=64).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))


def header_value(value: str | bytes) -> bytes:
    data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
    return data.replace(b"\r", b"").replace(b"\n", b"")


@st.composite
def requests(draw: st.DrawFn, table: list[tuple[str, tuple[str, ...]]], cookies: list[str],
             csrf: str) -> bytes:
    """One whole HTTP/1.1 request to one of ``table``'s routes."""
    template, methods = draw(st.sampled_from(table))
    method = draw(st.sampled_from(methods))
    path = PARAM.sub(lambda m: quote(draw(texts).encode("utf-8", "surrogatepass"), safe=""),
                     template)
    query = "&".join(f"{quote(draw(st.sampled_from(FIELDS)))}="
                     f"{quote(draw(texts).encode('utf-8', 'surrogatepass'), safe='')}"
                     for _ in range(draw(st.integers(0, 3))))
    target = path + ("?" + query if query else "")
    cookie = draw(st.one_of(st.sampled_from(cookies), texts, raw_bytes))
    headers = [b"Host: box", b"Connection: close",
               b"Cookie: companion_session=" + header_value(cookie)]
    body = b""
    if method == "POST":
        fields = draw(st.dictionaries(st.sampled_from(FIELDS), st.one_of(texts, st.just(csrf)),
                                      max_size=5))
        body = "&".join(f"{quote(k)}={quote(v.encode('utf-8', 'surrogatepass'), safe='')}"
                        for k, v in fields.items()).encode()
        if draw(st.booleans()):
            body = draw(st.binary(max_size=200)) if draw(st.booleans()) else body + b"&%zz=\xff"
        headers += [b"Content-Type: application/x-www-form-urlencoded",
                    b"Content-Length: " + str(len(body)).encode()]
    line = method.encode() + b" " + target.encode("ascii") + b" HTTP/1.1"
    return b"\r\n".join([line, *headers, b"", b""]) + body


def send(port: int, request: bytes, timeout: float = 10) -> int:
    """Send one raw request; the answer's status (0 when the server closed without one)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                return 0
            head += chunk
    parts = head.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
