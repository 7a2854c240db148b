"""The serial link to the dice sensor: open, read, reconnect; news kept for the app's loop.

A reader thread owns the port. It never touches app state: it keeps the latest news
(``firmware_bridge.events``) in a :class:`Mailbox`, one slot per kind, and calls ``wake`` when
the mailbox goes from empty to not empty, so the app's queue holds at most one sensor wake-up
however fast the sensor talks; the loop then ``take``s the news. A babbling sensor costs the
loop one drain at a time, never a growing queue, and a button press waits behind one wake-up
at most.

Any URL ``serial.serial_for_url`` takes works: a device path (best a stable
``/dev/serial/by-id/...`` link), ``loop://`` or ``spy://`` for debugging. Writes have a timeout,
so a stuck device never blocks the thread, and the link reconnects with back-off when the
device disappears (SerialException/OSError) or falls silent for three heartbeats.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

import serial

from .events import DiceSettled, DieRolling, SensorHealth, SensorOffline, SensorOnline
from .faces import faces_of
from .parser import Parser
from .protocol import (
    ASKING,
    PROTOCOL_VERSION,
    Crooked,
    Error,
    Face,
    Hello,
    HelloQuery,
    Message,
    Roll,
    StateQuery,
    encode,
)

log = logging.getLogger(__name__)

ROLLING = "rolling"  # a die's state while it moves; otherwise a face name, CROOKED or None
CROOKED = "crooked"
DICE_MESSAGES = (Roll, Face, Crooked)
LINK_COUNTERS = ("reconnects", "silent", "write_timeout", "bad_die", "bad_face", "sensor_error",
                 "noisy")
# A real sensor sends a few dice lines a second (eight for a four-dice throw); more than this in
# one second is a babbling sensor, and the status says "sensor noisy".
NOISY_PER_S = 200
NOISY = "sensor noisy"
# Bytes parsed per read: the reader holds the GIL while it parses, so a flood read whole would
# keep the loop thread (and a press) waiting; about 40 lines, a fraction of a millisecond.
READ_MAX = 1024


class Mailbox:
    """The latest news for the app, one slot per kind: coalescing, so bounded.

    Slots: the connection (online/offline), each die's rolling, the settled set, the health.
    A new event replaces its slot's older one and goes to the end, so ``take`` returns the
    latest of each kind in the order they last happened. ``wake`` is called when the mailbox
    goes from empty to not empty: at most one wake-up is pending, since only ``take`` empties it.
    """

    def __init__(self, wake: Callable[[], None]) -> None:
        self._wake = wake
        self._lock = threading.Lock()
        self._slots: dict[Hashable, object] = {}

    def put(self, slot: Hashable, event: object) -> None:
        with self._lock:
            empty = not self._slots
            self._slots.pop(slot, None)
            if isinstance(event, DiceSettled):  # the dice have settled since they rolled
                for die in [key for key in self._slots if isinstance(key, int)]:
                    del self._slots[die]
            self._slots[slot] = event
        if empty:
            self._wake()

    def take(self) -> list[object]:
        """Every pending event, oldest first; the mailbox is empty after."""
        with self._lock:
            slots, self._slots = self._slots, {}
        return list(slots.values())

    def __len__(self) -> int:
        return len(self._slots)


class SensorLink:
    """Keeps a dice sensor connected and turns its lines into app events.

    ``wake`` (any thread may call it, e.g. posting a token on the app's queue) tells the loop
    to call :meth:`take`.
    """

    def __init__(
        self,
        url: str,
        wake: Callable[[], None],
        *,
        baud: int = 115200,
        heartbeat_s: float = 1.0,
        missed_beats: int = 3,
        backoff_s: tuple[float, float] = (0.1, 1.0),
        read_timeout_s: float = 0.05,
        write_timeout_s: float = 0.5,
        health_every_s: float = 0.25,
        opener: Callable[..., Any] = serial.serial_for_url,
        accept_v1: bool = False,
    ) -> None:
        self.url = url
        self.baud = baud
        self.heartbeat_s = heartbeat_s
        self.missed_beats = missed_beats
        self.backoff_s = backoff_s
        self.read_timeout_s = read_timeout_s
        self.write_timeout_s = write_timeout_s
        self.health_every_s = health_every_s
        self.mailbox = Mailbox(wake)
        self._opener = opener
        self._parser = Parser(accept_v1=accept_v1)
        self._counts = dict.fromkeys(LINK_COUNTERS, 0)
        self._problem = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = 0
        self._version = PROTOCOL_VERSION  # the sensor's, from its HELLO
        self._online = False
        self._offline_reason: str | None = None
        self._kinds: tuple[str, ...] | None = None
        self._dice: list[str | None] = []
        self._moved = False
        self._health_sent: tuple[tuple[tuple[str, int], ...], str] | None = None
        self._health_at = 0.0
        self._window_at = 0.0  # the start of the second whose dice lines are counted
        self._window_lines = 0
        self._noisy = False

    # ----- control (any thread) -----------------------------------------------------------
    def start(self) -> None:
        """Start the reader thread (it connects, and keeps reconnecting, by itself)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="dice-sensor", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the reader thread and close the port."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def online(self) -> bool:
        return self._online

    def take(self) -> list[object]:
        """The news since the last call (loop thread): the latest of each kind, oldest first."""
        return self.mailbox.take()

    def _post(self, event: object) -> None:
        match event:
            case SensorOnline() | SensorOffline():
                self.mailbox.put("connection", event)
            case DieRolling(index):
                self.mailbox.put(index, event)
            case _:
                self.mailbox.put(type(event).__name__, event)

    def counters(self) -> dict[str, int]:
        """Every problem counter: the parser's rejections and the link's own."""
        return {**self._parser.counters, **self._counts}

    # ----- the reader thread --------------------------------------------------------------
    def _run(self) -> None:
        delay = self.backoff_s[0]
        while not self._stop.is_set():
            try:
                port = self._opener(self.url, baudrate=self.baud, timeout=self.read_timeout_s,
                                    write_timeout=self.write_timeout_s)
            except (serial.SerialException, OSError, ValueError) as exc:
                log.debug("sensor %s: cannot open: %s", self.url, exc)
                self._went_offline("port not found")
            else:
                try:
                    reason = self._session(port)
                except (serial.SerialException, OSError) as exc:
                    log.info("sensor %s: %s", self.url, exc)
                    reason = "unplugged"
                except Exception:  # a dead reader would leave the box "online" forever
                    log.exception("sensor %s: reader failed; reconnecting", self.url)
                    reason = "link error"
                finally:
                    with contextlib.suppress(serial.SerialException, OSError):
                        port.close()  # the device may already be gone
                if self._kinds is not None:
                    delay = self.backoff_s[0]  # it worked: retry quickly after the next loss
                if not self._stop.is_set():
                    self._went_offline(reason)
            if self._stop.wait(delay):
                break
            delay = min(delay * 2, self.backoff_s[1])

    def _session(self, port: Any) -> str:
        """Talk to an open port until it fails (exception) or falls silent (returned reason)."""
        self._parser.reset()
        self._kinds = None
        self._version = PROTOCOL_VERSION
        # A v1 board cannot check a v2 HELLO?: ask in v1 too, when v1 is allowed at all.
        asking = itertools.cycle(ASKING if self._parser.accept_v1 else (PROTOCOL_VERSION,))
        self._send(port, HelloQuery(), next(asking))
        last_heard = asked = time.monotonic()
        silence = self.missed_beats * self.heartbeat_s
        heard_refused = False  # lines came, but none the parser took (an old v1 board, noise)
        while not self._stop.is_set():
            data = port.read(min(port.in_waiting, READ_MAX) or 1)
            now = time.monotonic()
            if data:
                dropped, problems = self._parser.counters["dropped"], self._parser.problems
                frames = self._parser.feed(data)
                if frames:
                    last_heard = now
                if self._parser.problems != problems:
                    self._problem = self._parser.last_problem
                    heard_refused = True
                for frame in frames:
                    self._on_message(port, frame.message)
                if self._parser.counters["dropped"] != dropped and self._kinds is not None:
                    self._send(port, StateQuery())  # frames were lost: ask where the dice are
            if now - last_heard > silence:
                self._counts["silent"] += 1
                # A sensor heard only in refused lines is not silent: its refusal says what to do.
                return self._problem if heard_refused and self._problem else "no heartbeat"
            if self._kinds is None and now - asked >= self.heartbeat_s:
                self._send(port, HelloQuery(), next(asking))  # it may have missed the last ask
                asked = now
            self._report_health(now)
        return "stopped"

    def _send(self, port: Any, message: Message, version: int | None = None) -> None:
        try:
            port.write(encode(message, self._seq, version or self._version))
        except serial.SerialTimeoutException:
            self._counts["write_timeout"] += 1
            self._problem = "write timed out"
        self._seq = (self._seq + 1) & 0xFF

    def _on_message(self, port: Any, message: Message) -> None:
        if isinstance(message, Hello):
            self._kinds = message.kinds
            self._version = message.version
            if message.version < PROTOCOL_VERSION:
                self._problem = f"sensor speaks protocol v{message.version}: update its firmware"
            self._dice = [None] * len(message.kinds)
            self._moved = False
            self._online = True
            self._post(SensorOnline(message.sensor_id, message.firmware, message.kinds))
            self._report_health(time.monotonic(), force=True)
            self._send(port, StateQuery())
            return
        if self._kinds is None:
            return  # dice lines mean nothing until HELLO said which dice these are
        if isinstance(message, Error):
            self._counts["sensor_error"] += 1
            self._problem = f"sensor {message.code}: {message.text}"
            return
        if not isinstance(message, DICE_MESSAGES):
            return  # heartbeats only keep the link alive; queries are ours (loop://)
        self._window_lines += 1
        die = message.die
        if die >= len(self._dice):
            self._counts["bad_die"] += 1
            self._problem = f"no die {die}"
            return
        if isinstance(message, Roll):
            if self._dice[die] != ROLLING:
                self._dice[die] = ROLLING
                self._moved = True
                self._post(DieRolling(die))
            return
        if isinstance(message, Face):
            if message.face not in faces_of(self._kinds[die]):
                self._counts["bad_face"] += 1
                self._problem = f"{message.face} on a {self._kinds[die]} die"
                return
            self._dice[die] = message.face
        else:
            self._dice[die] = CROOKED
        # a settled set only after something moved: a snapshot of dice lying still is no roll
        if self._moved and ROLLING not in self._dice and None not in self._dice:
            self._moved = False
            faces = tuple(None if d == CROOKED else d for d in self._dice)
            self._post(DiceSettled(faces, self._kinds))

    def _went_offline(self, reason: str) -> None:
        if self._online:
            self._counts["reconnects"] += 1
        self._problem = reason
        if self._online or self._offline_reason is None:  # news only at the change (or start)
            self._online = False
            self._offline_reason = reason
            self._post(SensorOffline(reason))
        self._report_health(time.monotonic(), force=True)

    def _watch_rate(self, now: float) -> None:
        """Once a second: was it a babbling sensor? A new spell counts once in ``noisy``."""
        if now - self._window_at < 1.0:
            return
        rate = self._window_lines / (now - self._window_at)
        self._window_at, self._window_lines = now, 0
        noisy = rate > NOISY_PER_S
        if noisy and not self._noisy:
            self._counts["noisy"] += 1
            self._problem = f"{NOISY}: {rate:,.0f} dice lines/s"
        self._noisy = noisy

    def _report_health(self, now: float, force: bool = False) -> None:
        """Post the counters when they changed, at most every ``health_every_s``."""
        self._watch_rate(now)
        if not force and now - self._health_at < self.health_every_s:
            return
        health = (tuple(sorted(self.counters().items())), self._problem)
        if health != self._health_sent:
            self._health_sent = health
            self._health_at = now
            self._post(SensorHealth(*health))
