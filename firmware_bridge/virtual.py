"""A virtual dice sensor on a pseudo-terminal, speaking the real protocol.

It runs the firmware's own reporting core (``dicecore.Reporter``), so the host reads it through
the real pyserial path exactly as it reads a Pico. ``link`` keeps a stable symlink to the
current pty, like ``/dev/serial/by-id/...`` on a Pi, so unplug/replug can be replayed.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import select
import threading
import time
import tty
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from .faces import FACES, faces_of
from .firmware.dicecore import CROOKED, FACE, PROTOCOL_VERSION, ROLL, Reporter

WRITE_WAIT_S = 0.5  # a real UART never blocks forever either: after this the bytes are lost


class VirtualSensor:
    """Dice whose faces are set in code (or by a script), reported on a pty."""

    def __init__(
        self,
        kinds: Sequence[str],
        *,
        link: str | Path | None = None,
        heartbeat_s: float = 1.0,
        sensor_id: str = "VIRTUAL-0001",
        firmware: str = "sim-1.0",
        seed: int | None = None,
        version: int = PROTOCOL_VERSION,
    ) -> None:
        self.kinds = tuple(kinds)
        self.reporter = Reporter(sensor_id, firmware, self.kinds, FACES, version)  # 1: an old board
        self.link = Path(link) if link else None
        self.heartbeat_s = heartbeat_s
        self.rng = random.Random(seed)
        self.path: str | None = None
        self.lost_bytes = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._lock = threading.RLock()
        self._quiet_until = 0.0
        self._booted = time.monotonic()
        self._roll_started = [0.0] * len(self.kinds)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        for index, kind in enumerate(self.kinds):  # the dice lie on the table at power-up
            self.reporter.states[index] = (FACE, self.rng.randrange(len(faces_of(kind))), 0)

    # ----- the cable ----------------------------------------------------------------------
    def plug(self) -> str:
        """Plug in: a fresh pty (and the symlink to it); the sensor boots and says HELLO."""
        with self._lock:
            if self._master is not None:
                return self.path or ""
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing: bytes pass as they are
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self.path = os.ttyname(slave)
            if self.link is not None:
                temporary = self.link.with_name(self.link.name + ".new")
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
                temporary.symlink_to(self.path)
                temporary.replace(self.link)  # atomic: a reader never sees no link mid-swap
            self.reporter.seq = 0
            self._booted = time.monotonic()
            self._send(self.reporter.hello)
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._serve, name="virtual-sensor", daemon=True)
            self._thread.start()
        return self.path

    def unplug(self) -> None:
        """Pull the cable: the pty disappears under the host's open port."""
        with self._lock:
            if self.link is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.link.unlink()
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        self.unplug()

    # ----- the dice -----------------------------------------------------------------------
    def roll(self, dice: Iterable[int] | None = None) -> None:
        """Dice start moving (all when ``dice`` is None)."""
        now = time.monotonic()
        for index in range(len(self.kinds)) if dice is None else dice:
            if self.reporter.states[index] != (ROLL,):
                self._roll_started[index] = now
                self._send(self.reporter.die, index, (ROLL,))

    def settle(self, index: int, face: str | None) -> None:
        """Die ``index`` comes to rest on ``face`` (None: crooked), after a ROLL if none was sent."""
        if face is not None and face not in faces_of(self.kinds[index]):
            raise ValueError(f"die {index} ({self.kinds[index]}) has no face {face!r}")
        self.roll([index])
        if face is None:
            self._send(self.reporter.die, index, (CROOKED,))
            return
        settle_ms = int((time.monotonic() - self._roll_started[index]) * 1000)
        event = (FACE, faces_of(self.kinds[index]).index(face), settle_ms)
        self._send(self.reporter.die, index, event)

    def throw(self, faces: Sequence[str | None] | None = None) -> tuple[str | None, ...]:
        """Roll every die and settle them on ``faces`` (random ones when None)."""
        if faces is None:
            faces = [self.rng.choice(faces_of(kind)) for kind in self.kinds]
        self.roll()
        for index, face in enumerate(faces):
            self.settle(index, face)
        return tuple(faces)

    def faces(self) -> tuple[str | None, ...]:
        """What each die shows now (None while rolling or crooked)."""
        out: list[str | None] = []
        for index, state in enumerate(self.reporter.states):
            out.append(faces_of(self.kinds[index])[state[1]] if state and state[0] == FACE else None)
        return tuple(out)

    # ----- faults -------------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        """Bytes as they are: corrupt lines, noise."""
        self._write(data)

    def garbage(self, size: int) -> None:
        """A burst of line noise (no ``$``, so nothing in it can pass for a frame)."""
        noise = bytes(self.rng.choice(b"\x00\x7f\xffabcXYZ019,*#\r\n ") for _ in range(size))
        self._write(noise)

    def flood(self, count: int) -> None:
        """``count`` frames back to back: ROLL / FACE pairs over the dice, all settled at the end."""
        pairs = count // 2
        for n in range(pairs):
            index = n % len(self.kinds)
            self._send(self.reporter.die, index, (ROLL,))
            face = self.rng.randrange(len(faces_of(self.kinds[index])))
            self._send(self.reporter.die, index, (FACE, face, 5))
        if count % 2:
            self._send(self.heartbeat)

    def heartbeat(self) -> bytes:
        return self.reporter.heartbeat(int(time.monotonic() - self._booted))

    def quiet(self, seconds: float) -> None:
        """Send nothing at all (no heartbeat, no answers) for ``seconds``."""
        self._quiet_until = time.monotonic() + seconds

    def error(self, code: str, text: str) -> None:
        self._send(self.reporter.error, code, text)

    def hello(self) -> None:
        """Say HELLO again, as after a reset."""
        with self._lock:
            self.reporter.seq = 0
            self._write(self.reporter.hello())

    # ----- the wire -----------------------------------------------------------------------
    def _send(self, make: Callable[..., bytes], *args: object) -> None:
        """Number and write a frame in one step, so threads never interleave sequence numbers."""
        with self._lock:
            self._write(make(*args))

    def _answer(self, data: bytes) -> bytes:
        return b"".join(self.reporter.receive(data))

    def _write(self, data: bytes) -> None:
        with self._lock:
            if self._master is None or time.monotonic() < self._quiet_until:
                self.lost_bytes += len(data)
                return
            view = memoryview(data)
            deadline = time.monotonic() + WRITE_WAIT_S
            while view:
                try:
                    view = view[os.write(self._master, view):]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [self._master], [], left)[1]:
                        self.lost_bytes += len(view)  # nobody reads the port: bytes fall away
                        return
                except OSError:
                    self.lost_bytes += len(view)
                    return

    def _serve(self) -> None:
        """Heartbeats on time, answers to HELLO? and STATE?."""
        next_beat = time.monotonic() + self.heartbeat_s
        while not self._stop.is_set():
            master = self._master
            wait = max(0.0, min(next_beat - time.monotonic(), 0.05))
            if master is None:
                self._stop.wait(wait)
            else:
                try:
                    ready = select.select([master], [], [], wait)[0]
                    data = os.read(master, 4096) if ready else b""
                except (OSError, ValueError):
                    data = b""  # unplugged under us, or the host closed its side
                if data and time.monotonic() >= self._quiet_until:
                    self._send(self._answer, data)
            if time.monotonic() >= next_beat:
                next_beat += self.heartbeat_s
                if self._master is not None:
                    self._send(self.heartbeat)


def run_script(sensor: VirtualSensor, lines: Iterable[str], say: Callable[[str], None]) -> bool:
    """Carry out script commands (see docs/sensor.md); False when ``quit`` ended it."""
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        try:
            check_command(words, sensor.kinds)
        except ValueError as exc:
            say(f"error line {number}: {exc}")
            continue
        if not _command(sensor, words):
            say("ok quit")
            return False
        say("ok " + " ".join(words))
    return True


def check_script(lines: Iterable[str], kinds: Sequence[str]) -> tuple[int, str] | None:
    """The first script line that cannot be carried out, as (line number, reason)."""
    for number, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split()
        try:
            if words:
                check_command(words, kinds)
        except ValueError as exc:
            return number, str(exc)
    return None


# Each command's arguments (a die number, a face of that die, seconds, a count, free text),
# then the kind of any number more (None: no more).
_ARGS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "roll": ((), "die"), "throw": ((), None), "face": (("die", "face"), None),
    "crooked": (("die",), None), "wait": (("seconds",), None), "plug": ((), None),
    "unplug": ((), None), "quiet": (("seconds",), None), "garbage": (("count",), None),
    "flood": (("count",), None), "raw": ((), "text"), "error": (("code",), "text"),
    "hello": ((), None), "quit": ((), None),
}
MAX_COUNT = 1_000_000    # bytes of noise or frames in one line: far past any real burst
MAX_SECONDS = 86_400.0   # one wait or silence: a day


def check_command(words: Sequence[str], kinds: Sequence[str]) -> None:
    """ValueError with a short reason when a script command's words cannot be carried out."""
    verb, args = words[0], list(words[1:])
    if verb == "settle":
        if len(args) != len(kinds):
            raise ValueError(f"settle needs {len(kinds)} faces (- keeps a die, ? is crooked)")
        for index, face in enumerate(args):
            if face not in ("-", "?") and face not in faces_of(kinds[index]):
                raise ValueError(f"die {index} ({kinds[index]}) has no face {face!r}")
        return
    if verb not in _ARGS:
        raise ValueError(f"unknown command {verb!r}")
    needed, more = _ARGS[verb]
    if len(args) < len(needed) or (more is None and len(args) > len(needed)):
        raise ValueError(f"{verb} takes {' '.join(k.upper() for k in needed) or 'nothing'}")
    die = 0
    for arg, kind in zip(args, [*needed, *[more] * (len(args) - len(needed))], strict=True):
        if kind == "die":
            if not (arg.isascii() and arg.isdigit()) or int(arg) >= len(kinds):
                raise ValueError(f"{verb}: die {arg!r}: 0 to {len(kinds) - 1}")
            die = int(arg)
        elif kind == "face" and arg not in faces_of(kinds[die]):
            raise ValueError(f"die {die} ({kinds[die]}) has no face {arg!r}")
        elif kind == "seconds" and not _within(arg, float, MAX_SECONDS):
            raise ValueError(f"{verb} {arg!r}: seconds from 0 to {MAX_SECONDS:.0f}")
        elif kind == "count" and not _within(arg, int, MAX_COUNT):
            raise ValueError(f"{verb} {arg!r}: a whole number from 0 to {MAX_COUNT}")


def _within(text: str, kind: Callable[[str], float], high: float) -> bool:
    try:
        value = kind(text)
    except ValueError:
        return False
    return math.isfinite(value) and 0 <= value <= high


def _command(sensor: VirtualSensor, words: list[str]) -> bool:
    """Carry out one command that :func:`check_command` accepted; False for ``quit``."""
    verb, args = words[0], words[1:]
    if verb == "roll":
        sensor.roll([int(a) for a in args] or None)
    elif verb == "settle":
        sensor.roll([i for i, a in enumerate(args) if a != "-"])
        for index, face in enumerate(args):
            if face != "-":
                sensor.settle(index, None if face == "?" else face)
    elif verb == "throw":
        sensor.throw()
    elif verb == "face":
        sensor.settle(int(args[0]), args[1])
    elif verb == "crooked":
        sensor.settle(int(args[0]), None)
    elif verb == "wait":
        time.sleep(float(args[0]))
    elif verb == "plug":
        sensor.plug()
    elif verb == "unplug":
        sensor.unplug()
    elif verb == "quiet":
        sensor.quiet(float(args[0]))
    elif verb == "garbage":
        sensor.garbage(int(args[0]))
    elif verb == "flood":
        sensor.flood(int(args[0]))
    elif verb == "raw":
        sensor.send_raw(" ".join(args).encode() + b"\r\n")
    elif verb == "error":
        sensor.error(args[0], " ".join(args[1:]))
    elif verb == "hello":
        sensor.hello()
    elif verb == "quit":
        return False
    return True


def random_play(sensor: VirtualSensor, every_s: float, stop: threading.Event) -> None:
    """Throw every die every ``every_s`` seconds, letting them tumble a moment first."""
    while not stop.wait(every_s):
        sensor.roll()
        if stop.wait(sensor.rng.uniform(0.3, 0.8)):
            return
        sensor.throw()
