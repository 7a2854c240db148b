"""Serving the phone page on a network that may not be friendly: uvicorn, with guards.

uvicorn closes idle keep-alive connections, but has no deadline for a request's headers and
body, no cap on connections per address and none in all but a 503 to requests that did
arrive; 1,100 connections that send a byte now and then used every file descriptor, and the
accept loop then logged "Too many open files" as fast as it could. Its HTTP protocol class is
pluggable (``http=``), so :func:`guarded_protocol` adds what is missing to its h11 protocol
rather than replacing a server whose memory and behaviour are measured:

- a connection has :data:`REQUEST_S` to deliver a whole request (from connecting, or from the
  end of its last response), trickling or not; an idle keep-alive one goes after
  :data:`IDLE_S`;
- at most :data:`PER_ADDRESS` connections from one address (more are reset at once);
- at most :data:`TOTAL` in all, within the descriptor limit less :data:`SPARE_FDS`; when full,
  a new connection evicts the oldest one still waiting for its request, so a slow flood
  cannot keep a paired phone out;
- the descriptor limit is raised to its hard limit (up to :data:`WANT_FDS`) at start. asyncio
  accepts as many connections in one go as its ``backlog`` says, before any check, and closes
  a reset one only a loop turn or two later, so up to :data:`IN_FLIGHT` bursts of
  :data:`ACCEPTS` hold descriptors the guard cannot see yet: they are kept free, and an accept
  does not meet "Too many open files". The kernel's queue of connections waiting to be
  accepted is deeper, :data:`LISTEN_QUEUE` (one too short drops a phone's handshake while a
  flood fills it, and the phone waits a second for its retry);
- should the limit still be met (a hard limit lower than the box's), asyncio pauses accepting
  for a second; that is said in one line, not a traceback per connection;
- each logger the server writes to says at most :data:`LOG_LINES` lines a minute.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import resource
import socket
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_S = 10.0        # headers and body of one request, however they trickle
IDLE_S = 5              # a kept-alive connection with no new request
PER_ADDRESS = 32        # a phone opens a handful (its Live stream, a page, its assets)
TOTAL = 1024            # in all: a table's phones need a few dozen; bounds memory too
WANT_FDS = 4096
ACCEPTS = 64            # asyncio's backlog: connections it accepts at once, before any check
IN_FLIGHT = 4           # bursts accepted or reset but not yet seen by the guard or closed
LISTEN_QUEUE = 256      # the kernel's queue of connections waiting to be accepted
SPARE_FDS = 64 + IN_FLIGHT * ACCEPTS    # the journal, the watch, the logs, and the accepts
LOG_LINES = 20
SD_LISTEN_FDS_START = 3  # the first descriptor systemd passes (sd_listen_fds(3))
HEADER_BYTES = 16 * 1024


def descriptor_room(want: int = WANT_FDS) -> int:
    """Raise this process's descriptor limit towards ``want`` (within its hard limit); returns
    how many connections fit beside the server's own files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return max(16, min(TOTAL, int(soft) - SPARE_FDS))


class Guard:
    """The connections open now, oldest first, and how many each address holds."""

    def __init__(self, total: int, per_address: int = PER_ADDRESS) -> None:
        self.total = total
        self.per_address = per_address
        self.open: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self.by_address: collections.Counter[str] = collections.Counter()
        self.refused = 0
        self.evicted = 0
        self.timed_out = 0

    def admit(self, protocol: Any, address: str) -> bool:
        if self.by_address[address] >= self.per_address:
            self.refused += 1
            return False
        if len(self.open) >= self.total:
            waiting = next((p for p in self.open if p.waiting()), None)
            if waiting is None:
                self.refused += 1
                return False
            self.evicted += 1
            self.leave(waiting, waiting.address)
            waiting.drop()
        self.open[protocol] = None
        self.by_address[address] += 1
        return True

    def leave(self, protocol: Any, address: str) -> None:
        if protocol in self.open:
            del self.open[protocol]
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]


def guarded_protocol(guard: Guard, request_s: float = REQUEST_S) -> type[H11Protocol]:
    """uvicorn's h11 protocol under ``guard``, with a deadline for each whole request."""

    class GuardedH11Protocol(H11Protocol):
        address = ""
        _admitted = False
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(  # type: ignore[override]  # a Transport, as uvicorn's H11Protocol
                self, transport: asyncio.Transport) -> None:
            peer = transport.get_extra_info("peername")
            self.address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
            self.transport = transport
            if not guard.admit(self, self.address):
                transport.abort()           # a reset: no descriptor left lingering
                return
            self._admitted = True
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if not self._admitted:
                return
            self._admitted = False
            guard.leave(self, self.address)
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if not self._admitted:
                return
            super().data_received(data)
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
                self._disarm()              # the request is in: the app has its time

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()                 # the next request has a deadline too

        def waiting(self) -> bool:
            """No request is being answered: the connection only waits for one."""
            return self.cycle is None or self.cycle.response_complete

        def drop(self) -> None:
            self.transport.abort()

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(request_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if self.waiting() and not self.transport.is_closing():
                guard.timed_out += 1
                self.transport.abort()

    return GuardedH11Protocol


class FewLines(logging.Filter):
    """At most ``lines`` records a minute; then one line saying how many were left out."""

    def __init__(self, lines: int = LOG_LINES, clock=time.monotonic) -> None:
        super().__init__()
        self.lines, self.clock = lines, clock
        self.minute, self.count, self.dropped = clock(), 0, 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        if now - self.minute >= 60:
            if self.dropped:
                record.msg = f"({self.dropped} lines left out in the last minute) {record.msg}"
            self.minute, self.count, self.dropped = now, 0, 0
        self.count += 1
        if self.count > self.lines:
            self.dropped += 1
            return False
        return True


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """asyncio's report of an accept that found no descriptor: one line, not a traceback (it
    retries by itself a second later); any other report goes to asyncio's own handler."""
    error = context.get("exception")
    if context.get("message", "").startswith("socket.accept() out of system resource"):
        logging.getLogger("companion").warning(
            "web: no file descriptor left for a new connection (%s); accepting again in 1 s",
            getattr(error, "strerror", error))
        return
    loop.default_exception_handler(context)


def listening_socket(host: str, port: int) -> socket.socket:
    """The page's socket, with the kernel's full :data:`LISTEN_QUEUE`; OSError if it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=LISTEN_QUEUE)


def inherited_sockets() -> list[socket.socket]:
    """The listening sockets systemd passed to this process (socket activation: the image's
    companion-web.socket binds ports 80 and 8080, so the page needs no privilege), if any."""
    if os.environ.get("LISTEN_PID") != str(os.getpid()):
        return []
    count = int(os.environ.get("LISTEN_FDS", "0") or 0)
    for name in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)   # for this process only, never for a child it starts
    return [socket.socket(fileno=SD_LISTEN_FDS_START + i) for i in range(count)]


def sockets_for(host: str, port: int) -> list[socket.socket]:
    """systemd's sockets when it passed some, else one on ``host:port``; OSError if it cannot."""
    return inherited_sockets() or [listening_socket(host, port)]


def run(app: Any, sockets: list[socket.socket]) -> None:
    """Serve ``app`` on the listening ``sockets`` with the guards above."""
    import uvicorn

    class GuardedServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(quiet_accept_errors)
            await super().startup(sockets)
            for sock in sockets or ():
                sock.listen(LISTEN_QUEUE)   # asyncio set it to its own, shorter backlog

    for name in ("uvicorn.error", "uvicorn", "asyncio", "companion"):
        logging.getLogger(name).addFilter(FewLines())
    guard = Guard(descriptor_room())
    config = uvicorn.Config(
        app, http=guarded_protocol(guard), log_level="warning",
        access_log=False, timeout_keep_alive=IDLE_S, timeout_graceful_shutdown=1,
        proxy_headers=False, server_header=False, h11_max_incomplete_event_size=HEADER_BYTES,
        backlog=ACCEPTS, lifespan="on")
    app.state.guard = guard
    GuardedServer(config).run(sockets=sockets)
