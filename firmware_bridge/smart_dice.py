"""Bluetooth LE dice notifications in, readings out: no Bluetooth here (the adapter feeds it).

Two makes of dice report their faces by themselves:

- **Pixels** (an open protocol): the die notifies on its own characteristic; each message's
  first byte is its type, the rest little-endian fields. ``RollState`` (3) carries the roll
  state and the face index (0 for face 1), ``IAmADie`` (2, the answer to ``WhoAreYou``) who
  the die is, ``BatteryLevel`` (34) its charge.
- **GoDice** (a public API): the Nordic UART service; ASCII headers. ``R`` the die started
  rolling, ``S`` it lies still after a roll with its x, y, z gravity vector (signed bytes),
  ``FS`` / ``MS`` still after a jolt or a slide (no roll), ``TS`` still but tilted, ``Bat``
  its charge, ``Col`` the colour of its dots.

Every notification either becomes one reading or is refused with the reason
(:class:`Refused`): a wrong length, an unknown message type, an impossible face or state, a
charge over 100 %. A refused notification never becomes a face.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass

# The Nordic UART service, which both makes use; the Pixels die notifies on the service's own
# UUID, a GoDice on the UART's TX characteristic.
NORDIC_UART_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
PIXELS_SERVICE = NORDIC_UART_SERVICE
PIXELS_NOTIFY = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
PIXELS_WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_SERVICE = NORDIC_UART_SERVICE
GODICE_NOTIFY = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"

# What the box asks once connected: who are you (Pixels), battery and dot colour (GoDice).
PIXELS_WHO_ARE_YOU = bytes([1])
GODICE_ASK_BATTERY = bytes([3])
GODICE_ASK_COLOUR = bytes([23])

SIDES = 6  # the games' dice are six-sided


@dataclass(frozen=True)
class Rolling:
    """The die started rolling (or is in a hand): its last face is no longer on the table."""


@dataclass(frozen=True)
class Settled:
    """The die lies still on ``face`` (1 to 6); ``rolled`` is False when it came to rest
    without a roll (nudged, slid, or put down by hand), which counts as no throw."""

    face: int
    rolled: bool = True


@dataclass(frozen=True)
class Crooked:
    """The die came to rest leaning: no face is up."""


@dataclass(frozen=True)
class Battery:
    percent: int
    charging: bool = False


@dataclass(frozen=True)
class Identity:
    """Who the die says it is (Pixels' IAmADie): its id, faces (0 if it does not say),
    LED count, firmware build time (UNIX seconds), and its state as it answered."""

    die_id: str
    faces: int
    leds: int
    firmware: int
    state: Rolling | Settled | Crooked | None
    battery: Battery


@dataclass(frozen=True)
class Colour:
    """A GoDice's dot colour, by name."""

    name: str


Reading = Rolling | Settled | Crooked | Battery | Identity | Colour | None  # None: nothing new


class Refused(ValueError):
    """A notification that means nothing: ``kind`` counts it, the message says why."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


REFUSALS = ("empty", "length", "unknown_type", "bad_state", "bad_face", "bad_value")

# ----- Pixels -------------------------------------------------------------------------------
PIXELS_IAMADIE, PIXELS_ROLL_STATE, PIXELS_BATTERY = 2, 3, 34
_PIXELS_LENGTHS = {PIXELS_IAMADIE: 22, PIXELS_ROLL_STATE: 3, PIXELS_BATTERY: 3}
# Roll states: 0 unknown, 1 rolled (at rest after a roll), 2 handling, 3 rolling, 4 crooked,
# 5 on a face without having rolled (firmware before 2023 had only 0 to 4).
_UNKNOWN, _ROLLED, _HANDLING, _ROLLING, _CROOKED, _ON_FACE = range(6)
# The die types of IAmADie's fourth byte, by their number of faces (0: an older die, unsaid).
_PIXELS_FACES = {0: 0, 1: 4, 2: 6, 3: 8, 4: 10, 5: 10, 6: 12, 7: 20, 8: 6, 9: 6}
_IAMADIE = struct.Struct("<BBBBIIHIBBBB")
_BATTERY_CHARGING = 2  # battery states: 0 ok, 1 low, 2 charging, 3 done, 4 bad charging, 5 error


def _pixels_state(state: int, face_index: int, faces: int) -> Rolling | Settled | Crooked | None:
    if state > _ON_FACE:
        raise Refused("bad_state", f"unknown roll state {state}")
    if state in (_ROLLING, _HANDLING):
        return Rolling()
    if state == _CROOKED:
        return Crooked()
    if state == _UNKNOWN:
        return None
    if face_index >= faces:
        raise Refused("bad_face", f"face index {face_index} on a {faces}-sided die")
    return Settled(face_index + 1, rolled=state == _ROLLED)


def _percent(level: int) -> int:
    if level > 100:
        raise Refused("bad_value", f"battery at {level} %")
    return level


def parse_pixels(data: bytes, faces: int = SIDES) -> Reading:
    """One Pixels notification's reading (Refused if it means nothing)."""
    if not data:
        raise Refused("empty", "empty notification")
    kind = data[0]
    expected = _PIXELS_LENGTHS.get(kind)
    if expected is None:
        raise Refused("unknown_type", f"unknown Pixels message {kind}")
    if len(data) != expected:
        raise Refused("length", f"Pixels message {kind} of {len(data)} bytes, not {expected}")
    if kind == PIXELS_ROLL_STATE:
        return _pixels_state(data[1], data[2], faces)
    if kind == PIXELS_BATTERY:
        return Battery(_percent(data[1]), data[2] == _BATTERY_CHARGING)
    (_, leds, _design, die_type, _hash, pixel_id, _flash, built,
     state, face_index, level, battery_state) = _IAMADIE.unpack(data)
    if die_type not in _PIXELS_FACES:
        raise Refused("bad_value", f"unknown Pixels die type {die_type}")
    own_faces = _PIXELS_FACES[die_type] or faces
    return Identity(f"{pixel_id:08X}", _PIXELS_FACES[die_type], leds, built,
                    _pixels_state(state, face_index, own_faces),
                    Battery(_percent(level), battery_state == _BATTERY_CHARGING))


# ----- GoDice -------------------------------------------------------------------------------
GODICE_COLOURS = ("black", "red", "green", "blue", "yellow", "orange")
# The gravity vector a six-sided GoDice reports lying on each face (its accelerometer's axes;
# one g reads 64).
_D6_AXES = {1: (-1, 0, 0), 2: (0, 0, 1), 3: (0, 1, 0), 4: (0, -1, 0), 5: (0, 0, -1), 6: (1, 0, 0)}
_LEAST_GRAVITY = 32  # a die at rest feels about 64; less is no die lying on a table
_FLAT_COSINE = 0.8  # within about 37° of a face's axis it lies flat; further out it leans


def face_of_vector(x: int, y: int, z: int) -> Settled | Crooked:
    """The face up for a gravity vector: the nearest axis, Crooked if it leans, Refused if the
    vector is too weak to be gravity."""
    length = math.sqrt(x * x + y * y + z * z)
    if length < _LEAST_GRAVITY:
        raise Refused("bad_value", f"no gravity in ({x}, {y}, {z})")
    face, axis = max(_D6_AXES.items(), key=lambda item: item[1][0] * x + item[1][1] * y
                     + item[1][2] * z)
    if (axis[0] * x + axis[1] * y + axis[2] * z) / length < _FLAT_COSINE:
        return Crooked()
    return Settled(face)


def _vector(data: bytes) -> tuple[int, int, int]:
    x, y, z = struct.unpack("bbb", data)
    return x, y, z


def _godice_rest(rolled: bool) -> Callable[[bytes], Reading]:
    def rest(body: bytes) -> Reading:
        reading = face_of_vector(*_vector(body))
        return Settled(reading.face, rolled) if isinstance(reading, Settled) else reading
    return rest


def _godice_colour(body: bytes) -> Reading:
    if body[0] >= len(GODICE_COLOURS):
        raise Refused("bad_value", f"unknown GoDice colour {body[0]}")
    return Colour(GODICE_COLOURS[body[0]])


def _godice_tilted(body: bytes) -> Reading:
    face_of_vector(*_vector(body))  # refused when no gravity, as any other rest
    return Crooked()


# Header → (bytes after it, reader of those bytes).
_GODICE: dict[bytes, tuple[int, Callable[[bytes], Reading]]] = {
    b"R": (0, lambda body: Rolling()),
    b"S": (3, _godice_rest(rolled=True)),
    b"FS": (3, _godice_rest(rolled=False)),
    b"MS": (3, _godice_rest(rolled=False)),
    b"TS": (3, _godice_tilted),
    b"Bat": (1, lambda body: Battery(_percent(body[0]))),
    b"Col": (1, _godice_colour),
}


def parse_godice(data: bytes) -> Reading:
    """One GoDice notification's reading (Refused if it means nothing)."""
    if not data:
        raise Refused("empty", "empty notification")
    for header in (data[:3], data[:2], data[:1]):
        known = _GODICE.get(bytes(header))
        if known is None:
            continue
        size, read = known
        if len(data) != len(header) + size:
            raise Refused("length", f"GoDice {header.decode()} of {len(data)} bytes, "
                                    f"not {len(header) + size}")
        return read(bytes(data[len(header):]))
    raise Refused("unknown_type", f"unknown GoDice message {bytes(data[:3])!r}")


PARSERS: dict[str, Callable[[bytes], Reading]] = {"pixels": parse_pixels, "godice": parse_godice}
NOTIFY = {"pixels": PIXELS_NOTIFY, "godice": GODICE_NOTIFY}
WRITE = {"pixels": PIXELS_WRITE, "godice": GODICE_WRITE}
ASK_ON_CONNECT = {"pixels": (PIXELS_WHO_ARE_YOU,), "godice": (GODICE_ASK_BATTERY, GODICE_ASK_COLOUR)}
