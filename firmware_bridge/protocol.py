"""The dice-sensor line protocol: typed messages and their frames (see PROTOCOL.md).

Framing (``$DS,<seq>,<TYPE>,<fields>*<XXXX>\\r\\n``) lives in the firmware's ``dicecore`` so the
board and the host share one implementation; this module gives the lines their types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .faces import FACES
from .firmware.dicecore import MAX_LINE, PROTOCOL_VERSION, checksum, clean, crc16, frame

__all__ = [
    "ASKING", "MAX_LINE", "PROTOCOL_VERSION", "VERSIONS", "Crooked", "Error", "Face", "Frame", "Heartbeat",
    "Hello", "HelloQuery", "Message", "ProtocolError", "Roll", "StateQuery", "checksum", "crc16",
    "decode", "encode",
]

VERSIONS = (1, PROTOCOL_VERSION)  # v1 sensors (XOR check) keep working
ASKING = (PROTOCOL_VERSION, 1)  # HELLO? in turn in each version: a v1 board reads no v2 line


class ProtocolError(ValueError):
    """A well-framed line whose content is wrong; ``kind`` names the rejection counter."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


def _record(cls: type) -> type:
    """A message is an immutable named tuple whose equality includes its type, so Roll(0) is
    not Crooked(0). Tuples rather than frozen dataclasses: a sensor floods thousands a second."""

    def eq(self: tuple, other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)

    def ne(self: tuple, other: object) -> bool:
        return not eq(self, other)

    def hash_(self: tuple) -> int:
        return hash((cls.__name__, *self))

    for name, method in (("__eq__", eq), ("__ne__", ne), ("__hash__", hash_)):
        setattr(cls, name, method)
    return cls


@_record
class Hello(NamedTuple):
    """Sensor → host at start-up and on HELLO?: who it is and which dice it watches."""

    version: int
    firmware: str
    sensor_id: str
    kinds: tuple[str, ...]


@_record
class Roll(NamedTuple):
    """A die started moving."""

    die: int


@_record
class Face(NamedTuple):
    """A die came to rest showing ``face``, ``settle_ms`` after it started moving."""

    die: int
    face: str
    settle_ms: int


@_record
class Crooked(NamedTuple):
    """A die came to rest with no face up (leaning on something)."""

    die: int


@_record
class Heartbeat(NamedTuple):
    """Sent every second; three missing ones mean the sensor is gone."""

    uptime_s: int


@_record
class Error(NamedTuple):
    """The sensor reports a fault of its own (e.g. an accelerometer not answering)."""

    code: str
    text: str


@_record
class HelloQuery(NamedTuple):
    """Host → sensor: say HELLO (the host opened the port after the sensor's start-up)."""


@_record
class StateQuery(NamedTuple):
    """Host → sensor: report every die's current state."""


Message = Hello | Roll | Face | Crooked | Heartbeat | Error | HelloQuery | StateQuery


class Frame(NamedTuple):
    """A message and the sequence number it came with (a pair: cheap to make by the thousand)."""

    seq: int
    message: Message


def _int(text: str, what: str, high: int) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) > high:
        raise ProtocolError("malformed", f"bad {what} {text!r}")
    return int(text)


def _count(fields: list[str], n: int, kind: str) -> None:
    if len(fields) != n:
        raise ProtocolError("malformed", f"{kind} needs {n} fields, got {len(fields)}")


def _hello(fields: list[str]) -> Hello:
    if not fields:
        raise ProtocolError("malformed", "HELLO without a version")
    version = _int(fields[0], "version", 10**6)
    if version not in VERSIONS:
        raise ProtocolError("version", f"protocol v{fields[0]} unsupported")
    if len(fields) < 4:
        raise ProtocolError("malformed", "HELLO too short")
    count = _int(fields[3], "dice count", 16)
    kinds = tuple(fields[4:])
    if len(kinds) != count or not kinds:
        raise ProtocolError("malformed", f"HELLO says {count} dice, lists {len(kinds)}")
    unknown = [k for k in kinds if k not in FACES]
    if unknown:
        raise ProtocolError("malformed", f"unknown die kind {unknown[0]!r}")
    return Hello(version, fields[1], fields[2], kinds)


def _die(fields: list[str]) -> int:
    return _int(fields[0], "die", 99)


def _roll(fields: list[str]) -> Roll:
    _count(fields, 1, "ROLL")
    return Roll(_die(fields))


def _face(fields: list[str]) -> Face:
    # the line a sensor sends most: checked inline, without helper calls
    if len(fields) == 3:
        die, face, settle = fields
        if die.isdigit() and settle.isdigit() and die.isascii() and settle.isascii() and len(die) < 3:
            return Face(int(die), face, int(settle))
    _count(fields, 3, "FACE")
    return Face(_die(fields), fields[1], _int(fields[2], "settle ms", 10**7))


def _crooked(fields: list[str]) -> Crooked:
    _count(fields, 1, "CROOKED")
    return Crooked(_die(fields))


def _heartbeat(fields: list[str]) -> Heartbeat:
    _count(fields, 1, "HB")
    return Heartbeat(_int(fields[0], "uptime", 10**10))


def _error(fields: list[str]) -> Error:
    if not fields:
        raise ProtocolError("malformed", "ERR without a code")
    return Error(fields[0], ",".join(fields[1:]))


def _query(message: Message) -> Callable[[list[str]], Message]:
    def decode_query(fields: list[str]) -> Message:
        if fields:
            raise ProtocolError("malformed", "a query has no fields")
        return message

    return decode_query


DECODERS: dict[str, Callable[[list[str]], Message]] = {
    "HELLO": _hello, "ROLL": _roll, "FACE": _face, "CROOKED": _crooked, "HB": _heartbeat,
    "ERR": _error, "HELLO?": _query(HelloQuery()), "STATE?": _query(StateQuery()),
}


def decode(kind: str, fields: list[str]) -> Message:
    """The message of an unframed line; ProtocolError (unknown_type, malformed, version)."""
    decoder = DECODERS.get(kind)
    if decoder is None:
        raise ProtocolError("unknown_type", f"unknown type {clean(kind, 10)}")
    return decoder(fields)


def fields_of(message: Message) -> tuple[str, tuple]:
    """The TYPE and fields a message is sent as."""
    match message:
        case Hello(version, firmware, sensor_id, kinds):
            return "HELLO", (version, clean(firmware, 12), clean(sensor_id), len(kinds), *kinds)
        case Roll(die):
            return "ROLL", (die,)
        case Face(die, face, settle_ms):
            return "FACE", (die, face, settle_ms)
        case Crooked(die):
            return "CROOKED", (die,)
        case Heartbeat(uptime_s):
            return "HB", (uptime_s,)
        case Error(code, text):
            return "ERR", (clean(code, 8), clean(text))
        case HelloQuery():
            return "HELLO?", ()
        case StateQuery():
            return "STATE?", ()
    raise TypeError(f"not a sensor message: {message!r}")


def encode(message: Message, seq: int, version: int = PROTOCOL_VERSION) -> bytes:
    """The line for ``message`` with sequence number ``seq`` (0..255), framed as ``version``."""
    kind, fields = fields_of(message)
    return frame(seq, kind, fields, version)
