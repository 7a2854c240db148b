"""The notify protocol against real AF_UNIX datagram sockets, and the loop that speaks it."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion.box.notify import Notifier, socket_address, supervise
from companion.screens.system import PoweredOffScreen
from companion.simulator.simbox import SimBox

pytestmark = pytest.mark.slow


@pytest.fixture
def listener():
    """A bound datagram socket standing in for systemd's notify socket (short path: 108 bytes max)."""
    directory = tempfile.mkdtemp(prefix="ntf")
    path = os.path.join(directory, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)  # a loaded machine can take a while to start a Python process
    yield path, sock
    sock.close()
    os.unlink(path)
    os.rmdir(directory)


def receive(sock: socket.socket) -> list[str]:
    return sock.recv(4096).decode().split("\n")


def receive_from(sock: socket.socket) -> tuple[list[str], int]:
    """One datagram and the pid the kernel vouches sent it (needs SO_PASSCRED on ``sock``)."""
    data, ancillary, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(struct.calcsize("3i")))
    pids = [struct.unpack("3i", cdata[:struct.calcsize("3i")])[0]
            for level, kind, cdata in ancillary
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS]
    assert len(pids) == 1, "every datagram carries its sender's credentials"
    return data.decode().split("\n"), pids[0]


def test_ready_watchdog_and_stopping_arrive_as_one_datagram_each(listener):
    path, sock = listener
    notifier = Notifier(path)
    assert notifier.ready("home")
    assert notifier.watchdog()
    assert notifier.stopping()
    assert receive(sock) == ["READY=1", "STATUS=home"]
    assert receive(sock) == ["WATCHDOG=1"]
    assert receive(sock) == ["STOPPING=1"]
    notifier.close()


def test_an_abstract_address_is_reached_through_its_at_sign():
    name = f"companion-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(30)  # a loaded machine can take a while to start a Python process
    try:
        assert socket_address("@" + name) == b"\0" + name.encode()
        assert Notifier("@" + name).ready()
        assert receive(sock) == ["READY=1"]
    finally:
        sock.close()


def test_without_notify_socket_every_call_is_a_no_op():
    notifier = Notifier.from_environ({})
    assert not notifier.enabled
    assert not notifier.ready() and not notifier.watchdog() and not notifier.stopping()
    assert notifier.watchdog_interval is None and notifier.sent == 0


def test_a_vanished_socket_is_counted_never_raised(tmp_path):
    notifier = Notifier(str(tmp_path / "gone"))
    assert notifier.watchdog() is False
    assert notifier.watchdog() is False
    assert notifier.failed == 2 and notifier.sent == 0


def test_watchdog_interval_is_half_the_timeout_and_only_for_our_pid():
    mine = Notifier.from_environ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "10000000",
                                  "WATCHDOG_PID": str(os.getpid())})
    assert mine.watchdog_interval == 5.0
    other = Notifier.from_environ({"NOTIFY_SOCKET": "/x", "WATCHDOG_USEC": "10000000",
                                   "WATCHDOG_PID": str(os.getpid() + 1)})
    assert other.watchdog_interval is None
    assert Notifier.from_environ({"WATCHDOG_USEC": "soon"}).watchdog_interval is None


def test_the_loop_sends_ready_then_pings_on_its_own_deadlines(listener, tmp_path):
    """On the virtual clock the pings can only come from the loop's timers: none until time moves."""
    path, sock = listener
    box = SimBox(tmp_path / "state")
    notifier = Notifier(path, watchdog_usec=2_000_000)
    supervise(box.app, notifier)
    assert box.app.panel.frames_shown >= 1
    assert receive(sock) == ["READY=1", "STATUS=showing the home menu"]
    box.app.pump()
    sock.setblocking(False)
    with pytest.raises(BlockingIOError):
        sock.recv(4096)
    # The blocking loop must wake up for the ping even with no input at all.
    assert box.app.next_deadline() <= box.clock.now() + 1.0
    box.advance(3.5)
    pings = []
    while True:
        try:
            pings.append(sock.recv(4096))
        except BlockingIOError:
            break
    assert pings == [b"WATCHDOG=1"] * 3
    box.close()


def test_shutdown_shows_powered_off_and_closes_the_journal(tmp_path):
    box = SimBox(tmp_path / "state")
    journal = box.app.play.journal
    box.app.shutdown()
    assert isinstance(box.app.stack.screens[-1], PoweredOffScreen)
    with pytest.raises(sqlite3.ProgrammingError):
        journal.history()


def test_sigterm_stops_a_running_box_cleanly(listener, tmp_path):
    """`companion run --sim`: READY, pings, STOPPING on SIGTERM from the main process; exit 0, journal closed.

    That the pings come from the loop's own deadlines is shown on the virtual clock above;
    their pace is a figure, not a test assertion.
    """
    path, sock = listener
    state = tmp_path / "state"
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
    env.pop("WATCHDOG_PID", None)
    # Its output goes to a file: pipes nobody reads until the end would stop a chatty box.
    log = tmp_path / "box.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "run", "--sim", "--state-dir", str(state)],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        # NotifyAccess=main: systemd takes only what the main process sends, as the kernel names it
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        message, sender = receive_from(sock)
        assert message[0] == "READY=1" and sender == proc.pid
        for _ in range(3):
            assert receive_from(sock) == (["WATCHDOG=1"], proc.pid)
        proc.send_signal(signal.SIGTERM)
        message, sender = receive_from(sock)
        while message == ["WATCHDOG=1"]:  # pings already on their way
            message, sender = receive_from(sock)
        assert message[0] == "STOPPING=1" and sender == proc.pid
        proc.wait(timeout=120)  # generous: a loaded machine can stall the exit
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text(errors="replace")
    # SQLite removes the write-ahead log only when the last connection closes cleanly.
    assert (state / "journal.db").exists()
    assert not Path(f"{state}/journal.db-wal").exists()
    conn = sqlite3.connect(state / "journal.db")
    assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
    conn.close()
