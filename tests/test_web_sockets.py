"""The phone page under systemd socket activation: the sockets companion-web.socket opens (the
image's ports 80 and 8080) are the ones it serves, passed as systemd passes them (descriptors
3 and up, LISTEN_FDS, LISTEN_PID naming the process); without them it opens its own."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time

from tests.web_process import ROOT, free_port


def answer(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/pair")
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_page_serves_every_socket_systemd_passes_it(tmp_path):
    listening = [socket.create_server(("127.0.0.1", 0)) for _ in range(2)]
    ports = [s.getsockname()[1] for s in listening]
    unused = free_port()   # what --listen names: not opened when systemd passed sockets

    def as_systemd_passes_them() -> None:
        for number, sock in enumerate(listening, 3):
            os.dup2(sock.fileno(), number)
            os.set_inheritable(number, True)

    # sh sets LISTEN_PID to its own pid, which exec keeps for Python (as systemd sets it).
    command = (f'LISTEN_PID=$$ LISTEN_FDS=2 exec "{sys.executable}" -m companion.web '
               f'--state-dir "{tmp_path}" --listen 127.0.0.1:{unused}')
    proc = subprocess.Popen(["sh", "-c", command], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=as_systemd_passes_them,
                            pass_fds=(3, 4), env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        first = proc.stdout.readline()
        assert first.startswith("Phone page: http://") and f":{ports[0]}/" in first, first
        for sock in listening:
            sock.close()   # only the page holds them now
        until = time.monotonic() + 20
        while True:
            try:
                statuses = [answer(port) for port in ports]
                break
            except OSError:
                assert time.monotonic() < until and proc.poll() is None, proc.stderr.read()
                time.sleep(0.05)
        assert statuses == [401, 401]   # the PIN page, as to any phone not yet paired
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", unused)) != 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
