"""The serial link to the dice sensor: open, read, reconnect; events posted to the app's queue.

A reader thread owns the port. It only *posts* events (``firmware_bridge.events``); it never
touches app state. Any URL ``serial.serial_for_url`` takes works: a device path (best a stable
``/dev/serial/by-id/...`` link), ``loop://`` or ``spy://`` for debugging. Writes have a timeout,
so a stuck device never blocks the thread, and the link reconnects with back-off when the
device disappears (SerialException/OSError) or falls silent for three heartbeats.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import serial

from .events import DiceSettled, DieRolling, SensorHealth, SensorOffline, SensorOnline
from .faces import faces_of
from .parser import Parser
from .protocol import Crooked, Error, Face, Hello, HelloQuery, Message, Roll, StateQuery, encode

log = logging.getLogger(__name__)

ROLLING = "rolling"  # a die's state while it moves; otherwise a face name, CROOKED or None
CROOKED = "crooked"
DICE_MESSAGES = (Roll, Face, Crooked)
LINK_COUNTERS = ("reconnects", "silent", "write_timeout", "bad_die", "bad_face", "sensor_error")


class SensorLink:
    """Keeps a dice sensor connected and turns its lines into app events."""

    def __init__(
        self,
        url: str,
        post: Callable[[object], None],
        *,
        baud: int = 115200,
        heartbeat_s: float = 1.0,
        missed_beats: int = 3,
        backoff_s: tuple[float, float] = (0.1, 1.0),
        read_timeout_s: float = 0.05,
        write_timeout_s: float = 0.5,
        health_every_s: float = 0.25,
        opener: Callable[..., Any] = serial.serial_for_url,
    ) -> None:
        self.url = url
        self.baud = baud
        self.heartbeat_s = heartbeat_s
        self.missed_beats = missed_beats
        self.backoff_s = backoff_s
        self.read_timeout_s = read_timeout_s
        self.write_timeout_s = write_timeout_s
        self.health_every_s = health_every_s
        self._post = post
        self._opener = opener
        self._parser = Parser()
        self._counts = dict.fromkeys(LINK_COUNTERS, 0)
        self._problem = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._seq = 0
        self._online = False
        self._offline_reason: str | None = None
        self._kinds: tuple[str, ...] | None = None
        self._dice: list[str | None] = []
        self._moved = False
        self._health_sent: tuple[tuple[tuple[str, int], ...], str] | None = None
        self._health_at = 0.0

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
        self._send(port, HelloQuery())
        last_heard = asked = time.monotonic()
        silence = self.missed_beats * self.heartbeat_s
        while not self._stop.is_set():
            data = port.read(port.in_waiting or 1)
            now = time.monotonic()
            if data:
                dropped, problems = self._parser.counters["dropped"], self._parser.problems
                frames = self._parser.feed(data)
                if frames:
                    last_heard = now
                if self._parser.problems != problems:
                    self._problem = self._parser.last_problem
                for frame in frames:
                    self._on_message(port, frame.message)
                if self._parser.counters["dropped"] != dropped and self._kinds is not None:
                    self._send(port, StateQuery())  # frames were lost: ask where the dice are
            if now - last_heard > silence:
                self._counts["silent"] += 1
                return "no heartbeat"
            if self._kinds is None and now - asked >= self.heartbeat_s:
                self._send(port, HelloQuery())  # the sensor may have missed our first ask
                asked = now
            self._report_health(now)
        return "stopped"

    def _send(self, port: Any, message: Message) -> None:
        try:
            port.write(encode(message, self._seq))
        except serial.SerialTimeoutException:
            self._counts["write_timeout"] += 1
            self._problem = "write timed out"
        self._seq = (self._seq + 1) & 0xFF

    def _on_message(self, port: Any, message: Message) -> None:
        if isinstance(message, Hello):
            self._kinds = message.kinds
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

    def _report_health(self, now: float, force: bool = False) -> None:
        """Post the counters when they changed, at most every ``health_every_s``."""
        if not force and now - self._health_at < self.health_every_s:
            return
        health = (tuple(sorted(self.counters().items())), self._problem)
        if health != self._health_sent:
            self._health_sent = health
            self._health_at = now
            self._post(SensorHealth(*health))
