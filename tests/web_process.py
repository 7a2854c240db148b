"""`companion web` run as its own process for the tests, and a small HTTP client for it."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from companion import pairing

ROOT = Path(__file__).resolve().parent.parent
START_S = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebProcess:
    """``companion web --state-dir DIR --listen 127.0.0.1:PORT``, ready when constructed."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.web", "--state-dir", str(state_dir),
             "--listen", f"127.0.0.1:{self.port}"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.proc.stdout.readline()
        if "pair?token=" not in line:
            self.close()
            raise RuntimeError(f"companion web did not start: {line!r} {self.proc.stderr.read()}")
        self.start_link = line.split()[-1]
        self.token = self.start_link.rpartition("token=")[2]
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

    def request(self, method: str, path: str, cookie: str = "", form: dict | None = None
                ) -> tuple[int, dict[str, str], bytes]:
        """One request, redirects not followed: (status, headers, body)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
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

    def get(self, path: str, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
        return self.request("GET", path, cookie)

    def post(self, path: str, form: dict, cookie: str = "") -> tuple[int, dict[str, str], bytes]:
        return self.request("POST", path, cookie, form)

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
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()
