"""Bytes in, frames out: no transport here (the link feeds it whatever the port gave).

After garbage the parser resynchronises on the next ``$``. Every rejected line is counted by
kind, and sequence numbers reveal lost and repeated frames. Lines of protocol v1 (an XOR check,
which two flipped bits can pass) are read only when the box is set to allow them
(``accept_v1``, ``[sensor] protocol = 1``), and then only after a v1 HELLO that says version 1
from a sensor not yet heard speaking v2; each is counted in ``v1_lines``. Every other v1 line is
refused (``version``): before a HELLO, from a v2 sensor, or with v1 not allowed.
"""

from __future__ import annotations

from .firmware.dicecore import MAX_LINE, FrameError, unframe
from .protocol import Frame, Hello, HelloQuery, ProtocolError, StateQuery, decode

REJECTIONS = ("garbage", "truncated", "too_long", "malformed", "checksum", "unknown_type", "version")
STREAM = ("dropped", "duplicate", "v1_lines")
QUERIES = (HelloQuery, StateQuery)
RESTARTS = (Hello, *QUERIES)  # frames outside the plain sequence check
PROBLEMS = {
    "garbage": "garbage between lines",
    "truncated": "cut-off line",
    "too_long": "line too long",
    "malformed": "malformed line",
    "checksum": "bad checksum",
}


class Parser:
    """Incremental parser of the sensor's byte stream; ``counters`` count every problem."""

    def __init__(self, max_line: int = MAX_LINE, *, accept_v1: bool = False) -> None:
        self.max_line = max_line
        self.accept_v1 = accept_v1
        self.counters: dict[str, int] = dict.fromkeys(REJECTIONS + STREAM, 0)
        self.last_problem = ""
        self.problems = 0  # every problem, so a reader can tell a new one from the last
        self.frames = 0
        self._buffer = b""
        self._skipping = False  # inside an over-long line: drop bytes up to its end
        self._in_garbage = False
        self._last_seq: int | None = None
        self._version = 0  # the protocol the sensor's HELLO named; 0 before it
        self._heard_v2 = False  # a v2 line from the sensor on this connection

    def reset(self) -> None:
        """Forget a half-received line and the sequence (a new connection); keep the counts."""
        self._buffer = b""
        self._skipping = self._in_garbage = False
        self._last_seq = None
        self._version = 0
        self._heard_v2 = False

    def feed(self, data: bytes) -> list[Frame]:
        """Frames completed by ``data``, in order."""
        lines = (self._buffer + data if self._buffer else bytes(data)).split(b"\n")
        tail = lines.pop()
        out: list[Frame] = []
        append, max_line = out.append, self.max_line
        for raw in lines:
            if self._skipping:  # the end of an over-long line, unless a new one began in it
                self._skipping = False
                cut = raw.find(b"$")
                if cut < 0:
                    continue
                raw = raw[cut:]
            if raw.rfind(b"$") != 0:  # noise before the line, or a cut-off one: the slow path
                start = self._start_of_line(raw)
                if start is None:
                    continue
                raw = start
            else:
                self._in_garbage = False
            if len(raw) >= max_line:  # with its "\n", the line is over the limit
                self._reject("too_long")
                continue
            if raw[-1:] == b"\r":
                raw = raw[:-1]
            try:
                seq, kind, fields, version = unframe(raw)
                message = decode(kind, fields)
            except FrameError as exc:
                self._reject(exc.args[0])
                continue
            except ProtocolError as exc:
                self._reject(exc.kind, str(exc))
                continue
            if version == 1:
                if not self._v1_line(message):
                    continue
            elif not self._heard_v2 and not isinstance(message, QUERIES):
                self._heard_v2 = True
                if self._version == 1:
                    self._version = 2  # it speaks v2 after all: v1 lines from it are damaged
            last = self._last_seq
            if last is not None and seq == (last + 1) & 0xFF and not isinstance(message, RESTARTS):
                self._last_seq = seq  # the usual case, checked inline
            elif not self._in_sequence(seq, message):
                continue
            append(Frame(seq, message))
        self.frames += len(out)
        self._buffer = b""
        if self._skipping:
            cut = tail.find(b"$")
            if cut < 0:
                return out
            self._skipping, tail = False, tail[cut:]
        line = self._start_of_line(tail)
        if line is not None:
            if len(line) >= self.max_line:
                self._reject("too_long")
                self._skipping = True
            else:
                self._buffer = line
        return out

    def _v1_line(self, message: object) -> bool:
        """Count a v1 line the sensor may send; False (refused, counted) otherwise."""
        if isinstance(message, QUERIES):
            return True  # the host's own lines (seen on loop://) tell nothing of the sensor
        if not self.accept_v1:
            refused = "v1 line: set [sensor] protocol = 1 for an old sensor"
        elif self._heard_v2 or self._version > 1:
            refused = "v1 line from a v2 sensor"
        elif isinstance(message, Hello) and message.version != 1:
            refused = f"v1 line says protocol v{message.version}"
        elif not isinstance(message, Hello) and self._version != 1:
            refused = "v1 line before a v1 HELLO"
        else:
            self.counters["v1_lines"] += 1
            return True
        self._reject("version", refused)
        return False

    def _start_of_line(self, raw: bytes) -> bytes | None:
        """``raw`` from its last ``$`` on: what came before is garbage or a cut-off line."""
        start = raw.rfind(b"$")
        if start == 0:
            self._in_garbage = False
            return raw
        if start < 0:
            self._garbage(raw)
            return None
        first = raw.find(b"$")
        self._garbage(raw[:first])
        self._in_garbage = False
        if first < start:
            self._reject("truncated")
        return raw[start:]

    def _in_sequence(self, seq: int, message: object) -> bool:
        """Count gaps and repeats; False for a repeated frame, which is dropped."""
        if isinstance(message, QUERIES):
            return True  # the host's own numbering (seen on loop://) is another stream
        last, self._last_seq = self._last_seq, seq
        if isinstance(message, Hello):
            self._version = message.version
        if last is None or isinstance(message, Hello):
            return True  # a HELLO starts a new stream: the sensor restarted
        gap = (seq - last) & 0xFF
        if gap == 0:
            self.counters["duplicate"] += 1
            self.problems += 1
            self.last_problem = f"repeated frame {seq}"
            return False
        if gap != 1:
            self.counters["dropped"] += gap - 1
            self.problems += 1
            self.last_problem = f"{gap - 1} frame(s) lost"
        return True

    def _garbage(self, chunk: bytes) -> None:
        """Count a burst of noise once, however many reads (and line feeds) it spans."""
        if chunk.strip() and not self._in_garbage:  # line ends between frames are no noise
            self._in_garbage = True
            self._reject("garbage")

    def _reject(self, kind: str, detail: str = "") -> None:
        self.counters[kind] += 1
        self.problems += 1
        self.last_problem = detail or PROBLEMS.get(kind, kind)
