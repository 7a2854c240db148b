"""The systemd notify protocol (sd_notify): READY, WATCHDOG and STOPPING datagrams.

Each message is one datagram of ``KEY=VALUE`` lines sent to the AF_UNIX socket named by
``NOTIFY_SOCKET`` ("@name" is an abstract address). Without the variable every call is a
no-op, and no call ever raises: a lost ping must not take the loop down with it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.box.app import App

log = logging.getLogger(__name__)


def socket_address(name: str) -> str | bytes:
    """The ``sendto`` address for a NOTIFY_SOCKET value; "@x" becomes the abstract b"\\0x"."""
    if name.startswith("@"):
        return b"\0" + name[1:].encode()
    return name


class Notifier:
    """Sends state changes to the service manager, or does nothing when there is none."""

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        self.address = address or None
        self.watchdog_usec = watchdog_usec
        self.sent = 0
        self.failed = 0
        self._sock: socket.socket | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """Read NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID as sd_watchdog_enabled() does."""
        env = os.environ if environ is None else environ
        usec: int | None = None
        try:
            usec = int(env.get("WATCHDOG_USEC", "")) or None
            pid = env.get("WATCHDOG_PID")
            if pid and int(pid) != os.getpid():
                usec = None  # the watchdog is meant for another process (e.g. our parent)
        except ValueError:
            usec = None
        return cls(env.get("NOTIFY_SOCKET"), usec)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def watchdog_interval(self) -> float | None:
        """Seconds between pings: half the manager's timeout, as sd_watchdog_enabled advises."""
        return self.watchdog_usec / 2_000_000 if self.watchdog_usec else None

    def notify(self, *lines: str) -> bool:
        """Send one datagram; True if it left, False if disabled or the send failed."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(lines).encode(), socket_address(self.address))
        except OSError as exc:
            self.failed += 1
            if self.failed == 1 or self.failed % 100 == 0:  # do not flood the log every ping
                log.warning("notify to %s failed (%d times): %s", self.address, self.failed, exc)
            return False
        self.sent += 1
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str = "") -> bool:
        return self.notify("STOPPING=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def supervise(app: App, notifier: Notifier) -> None:
    """Once the first frame is shown: READY=1, then WATCHDOG=1 from the loop's own deadlines.

    The pings are timers of the loop, not a helper thread, so a stuck loop stops pinging
    and the service manager restarts the box.
    """
    if not app.running:
        app.start()  # start() shows the first frame
    notifier.ready("showing the home menu")
    interval = notifier.watchdog_interval
    if interval:
        app.every(interval, notifier.watchdog)
