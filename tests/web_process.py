"""`companion web` run as its own process for the tests, and a small HTTP client for it."""

from __future__ import annotations

import contextlib
import http.client
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from companion.records import pairing

ROOT = Path(__file__).resolve().parent.parent
START_S = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def race_bodies(port: int, bodies: list[tuple[str, bytes]], path: str = "/pair") -> list[bytes]:
    """Open one connection per (source address, body), send every request's headers, then every
    body at once, as a racing guesser would; returns each answer."""
    socks = []
    for source, body in bodies:
        s = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
        s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: box\r\nContent-Type: application/"
                  b"x-www-form-urlencoded\r\nConnection: close\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\n\r\n")
        socks.append(s)
    for s, (_, body) in zip(socks, bodies, strict=True):
        s.sendall(body)
    answers = []
    for s in socks:
        chunks = []
        with contextlib.suppress(OSError):
            while chunk := s.recv(65536):
                chunks.append(chunk)
        s.close()
        answers.append(b"".join(chunks))
    return answers


class WebProcess:
    """``companion web --state-dir DIR --listen 127.0.0.1:PORT``, ready when constructed."""

    def __init__(self, state_dir: Path, descriptors: int | None = None) -> None:
        """``descriptors``: the process's file descriptor limit (soft and hard)."""
        self.state_dir = Path(state_dir)
        self.port = free_port()
        limit = None if descriptors is None else (
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, descriptors)))
        # Its log goes to a file: a pipe nobody reads would stop the server once full.
        self.log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 (as long as the process)
            prefix="companion-web-", suffix=".log")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.web", "--state-dir", str(state_dir),
             "--listen", f"127.0.0.1:{self.port}"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log_file, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=limit)
        self.first_line = self.proc.stdout.readline()
        if "Phone page:" not in self.first_line:
            said = self.log()
            self.close()
            raise RuntimeError(f"companion web did not start: {self.first_line!r} {said}")
        self.base = f"http://127.0.0.1:{self.port}"
        until = time.monotonic() + START_S
        while True:
            try:
                self.get("/pair")
                break
            except OSError:
                if time.monotonic() > until or self.proc.poll() is not None:
                    self.close()
                    raise RuntimeError("companion web did not answer") from None
                time.sleep(0.05)

    def request(self, method: str, path: str, cookie: str = "", form: dict | None = None,
                source: str = "", timeout: float = 10) -> tuple[int, dict[str, str], bytes]:
        """One request, redirects not followed: (status, headers, body). ``source``: the
        loopback address to send from (127.0.0.0/8 is all loopback), as another device."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        headers = {"Cookie": cookie} if cookie else {}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, \
                response.read()
        finally:
            conn.close()

    def get(self, path: str, cookie: str = "", **how) -> tuple[int, dict[str, str], bytes]:
        return self.request("GET", path, cookie, **how)

    def post(self, path: str, form: dict, cookie: str = "", **how
             ) -> tuple[int, dict[str, str], bytes]:
        return self.request("POST", path, cookie, form, **how)

    def session(self) -> str:
        """Pair as a phone scanning the box's QR code; returns the Cookie header to send."""
        status, headers, _ = self.get(f"/pair?t={pairing.offer(self.state_dir).token}")
        assert status == 303, status
        return headers["set-cookie"].split(";")[0]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log_file.close()

    def log(self) -> str:
        """What the server wrote to its log so far."""
        return Path(self.log_file.name).read_text(encoding="utf-8", errors="replace")
