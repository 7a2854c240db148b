"""The sensor's brain in plain Python: line framing, face classification, and reporting.

It runs unchanged on the Pico (MicroPython) and on the host (CPython), where the host's
protocol module, the virtual sensor and the tests use it. So: no dataclasses, no f-strings
with conversions, no imports beyond ``math`` (and ``binascii.crc_hqx`` where it exists); the
face names are handed in by the caller (``firmware_bridge/faces.py``, copied to the board next
to this file).
"""

import math

try:
    from binascii import crc_hqx  # CPython: the same CRC in C
    HAVE_CRC_HQX = True
except ImportError:  # MicroPython has no crc_hqx: the table below computes it
    HAVE_CRC_HQX = False

PROTOCOL_VERSION = 2  # v2: a CRC-16 after "*" (four hex digits); v1 had a two-digit XOR
TALKER = b"$DS,"
MAX_LINE = 96  # bytes from "$" to "\n" inclusive; the host rejects longer lines
FORBIDDEN = "$*,\r\n"  # characters a field may not contain

# Two-character check digits to value: strict and faster than int(x, 16). v1's XOR may come in
# either case; v2's CRC only in upper case, so a flipped case bit is no valid frame.
HEX_UPPER = {}
HEX = {}
for _value in range(256):
    HEX_UPPER[f"{_value:02X}".encode()] = _value
    HEX[f"{_value:02X}".encode()] = _value
    HEX[f"{_value:02x}".encode()] = _value

# CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR.
CRC_INIT = 0xFFFF
CRC_TABLE = []
for _value in range(256):
    _crc = _value << 8
    for _ in range(8):
        _crc = ((_crc << 1) ^ 0x1021 if _crc & 0x8000 else _crc << 1) & 0xFFFF
    CRC_TABLE.append(_crc)


class FrameError(ValueError):
    """A line that is not a frame; ``args[0]`` is the kind: malformed or checksum."""


def checksum(body: bytes) -> int:
    """XOR of all bytes of ``body`` (NMEA's checksum; protocol v1)."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def crc16_table(data: bytes, crc: int = CRC_INIT) -> int:
    """CRC-16/CCITT-FALSE of ``data`` from the table (the board's way)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (protocol v2); ``crc16(b"123456789") == 0x29B1``."""
    if HAVE_CRC_HQX:
        return crc_hqx(data, CRC_INIT)
    return crc16_table(data)


def clean(text: str, limit: int = 24) -> str:
    """A free-text field made safe for a frame: separators replaced, length bounded."""
    out = "".join(" " if c in FORBIDDEN or not 32 <= ord(c) < 127 else c for c in str(text))
    return out[:limit]


def frame(seq: int, kind: str, fields: tuple = (), version: int = PROTOCOL_VERSION) -> bytes:
    """One line: ``$DS,<seq>,<KIND>,<fields>*<XXXX>\\r\\n`` (fields must already be clean);
    ``version`` 1 gives the old ``*<XX>`` XOR."""
    body = ",".join(["DS", str(seq & 0xFF), kind] + [str(f) for f in fields]).encode()
    check = f"{checksum(body):02X}" if version == 1 else f"{crc16(body):04X}"
    return b"$" + body + b"*" + check.encode() + b"\r\n"


def unframe(line: bytes) -> tuple:
    """``(seq, KIND, [fields], version)`` of a line without its line end; FrameError if it is
    not one. Four hex digits after ``*`` make a v2 line (CRC-16), two a v1 line (XOR)."""
    star = line.rfind(b"*")
    digits = len(line) - star - 1
    if not line.startswith(TALKER) or star < 0:
        raise FrameError("malformed")
    body = line[1:star]
    if digits == 4:
        high, low = HEX_UPPER.get(line[star + 1:star + 3]), HEX_UPPER.get(line[star + 3:])
        if high is None or low is None:
            raise FrameError("malformed")
        if crc16(body) != high << 8 | low:
            raise FrameError("checksum")
        version = 2
    elif digits == 2:
        want = HEX.get(line[star + 1:])
        if want is None:
            raise FrameError("malformed")
        if checksum(body) != want:
            raise FrameError("checksum")
        version = 1
    else:
        raise FrameError("malformed")
    if b"*" in body or b"$" in body:
        raise FrameError("malformed")  # a field holding a separator: a corrupted line
    try:
        parts = body.decode().split(",")
        seq = int(parts[1]) if parts[1].isdigit() and len(parts) > 2 else -1
    except (UnicodeError, ValueError):
        raise FrameError("malformed") from None
    if not 0 <= seq <= 255 or not parts[2]:
        raise FrameError("malformed")
    return seq, parts[2], parts[3:], version


# ----- classification ---------------------------------------------------------------------
# Face i of a die lies up when the accelerometer axis FACE_AXES[i] = (axis, sign) reads +1 g.
# Opposite faces are 0/5, 1/4, 2/3 (a real die's 1/6, 2/5, 3/4).
FACE_AXES = ((2, 1), (0, 1), (1, 1), (1, -1), (0, -1), (2, -1))

ENTER = 0.85     # a face is taken when its axis carries cos(32°) of gravity ...
LEAVE = 0.70     # ... and kept until it drops under cos(45°): no flicker near an edge
MOTION_G = 0.12  # |a| further than this from 1 g means the die is moving
JERK_G = 0.08    # or a change this big between two samples
SETTLE_MS = 250  # still this long after motion = settled

ROLL = "ROLL"
FACE = "FACE"
CROOKED = "CROOKED"


def classify(x: float, y: float, z: float, keep: "int | None" = None) -> "int | None":
    """Face index on top for a gravity vector, None if no axis dominates (crooked).

    ``keep`` is the current face: it stays while its axis holds LEAVE (hysteresis).
    """
    norm = math.sqrt(x * x + y * y + z * z)
    if norm < 0.2:
        return None  # free fall or a dead sensor: no face to read
    unit = (x / norm, y / norm, z / norm)
    if keep is not None:
        axis, sign = FACE_AXES[keep]
        if sign * unit[axis] >= LEAVE:
            return keep
    best = 0
    for axis in (1, 2):
        if abs(unit[axis]) > abs(unit[best]):
            best = axis
    if abs(unit[best]) < ENTER:
        return None
    return FACE_AXES.index((best, 1 if unit[best] > 0 else -1))


class DieTracker:
    """One die's accelerometer samples (in g) in, ROLL / FACE / CROOKED events out."""

    def __init__(self, settle_ms: int = SETTLE_MS) -> None:
        self.settle_ms = settle_ms
        self.face: int | None = None  # face index, None when crooked or unknown
        self.rolling = True       # unknown at power-up: report once it lies still
        self.roll_start = 0
        self.still_since: int | None = None
        self.previous: tuple[float, float, float] | None = None

    def update(self, now_ms: int, x: float, y: float, z: float) -> "tuple | None":
        """Feed one sample; returns None or an event: (ROLL,), (FACE, face, settle_ms), (CROOKED,)."""
        previous, self.previous = self.previous, (x, y, z)
        norm = math.sqrt(x * x + y * y + z * z)
        moving = abs(norm - 1.0) > MOTION_G
        if previous is not None and not moving:
            moving = max(abs(x - previous[0]), abs(y - previous[1]), abs(z - previous[2])) > JERK_G
        if moving:
            self.still_since = None
            if not self.rolling:
                return self._start(now_ms)
            return None
        if self.still_since is None:
            self.still_since = now_ms
        if not self.rolling:
            # a die turned slowly (no jolt) still counts as a new roll once its face changes
            if classify(x, y, z, self.face) != self.face:
                self.still_since = now_ms
                return self._start(now_ms)
            return None
        if now_ms - self.still_since < self.settle_ms:
            return None
        self.rolling = False
        self.face = classify(x, y, z)
        if self.face is None:
            return (CROOKED,)
        return (FACE, self.face, now_ms - self.roll_start)

    def _start(self, now_ms: int) -> tuple:
        self.rolling = True
        self.roll_start = now_ms
        return (ROLL,)


# ----- reporting --------------------------------------------------------------------------
class Reporter:
    """The sensor's side of the protocol: numbered frames, each die's last state, host requests."""

    def __init__(self, sensor_id: str, firmware: str, kinds: "tuple[str, ...]",
                 faces_by_kind: "dict[str, tuple[str, ...]]",
                 version: int = PROTOCOL_VERSION) -> None:
        self.version = version  # 1 plays an old board: XOR lines, deaf to v2 lines
        self.sensor_id = clean(sensor_id)
        self.firmware = clean(firmware, 12)
        self.kinds = tuple(kinds)
        self.names = [tuple(faces_by_kind[kind]) for kind in self.kinds]
        self.seq = 0
        # per die: None, (ROLL,), (FACE, i, ms), (CROOKED,)
        self.states: list[tuple | None] = [None] * len(self.kinds)
        self._pending = b""

    def frame(self, kind: str, fields: tuple = ()) -> bytes:
        """The next numbered frame (sequence 0..255, wrapping)."""
        line = frame(self.seq, kind, fields, self.version)
        self.seq = (self.seq + 1) & 0xFF
        return line

    def hello(self) -> bytes:
        fields = [self.version, self.firmware, self.sensor_id, len(self.kinds)]
        fields.extend(self.kinds)
        return self.frame("HELLO", tuple(fields))

    def heartbeat(self, uptime_s: int) -> bytes:
        return self.frame("HB", (int(uptime_s),))

    def error(self, code: str, text: str) -> bytes:
        return self.frame("ERR", (clean(code, 8), clean(text)))

    def die(self, index: int, event: tuple) -> bytes:
        """Record a die's event (from DieTracker or a script) and frame it."""
        self.states[index] = event
        return self._line(index, event)

    def _line(self, index: int, event: tuple) -> bytes:
        if event[0] == FACE:
            return self.frame(FACE, (index, self.names[index][event[1]], int(event[2])))
        return self.frame(event[0], (index,))

    def snapshot(self) -> list:
        """STATE? answer: every die's last state (dice never reported are left out)."""
        return [self._line(i, event) for i, event in enumerate(self.states) if event is not None]

    def receive(self, data: bytes) -> list:
        """Bytes from the host in, reply lines out (HELLO? and STATE?; other lines ignored)."""
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()
        if len(self._pending) > MAX_LINE:
            self._pending = b""  # a runaway line from the host: drop it, resync on the next
        replies = []
        for line in lines:
            try:
                _, kind, _, version = unframe(line.rstrip(b"\r"))
            except FrameError:
                continue
            if version > self.version:
                continue
            if kind == "HELLO?":
                replies.append(self.hello())
            elif kind == "STATE?":
                replies += self.snapshot()
        return replies
