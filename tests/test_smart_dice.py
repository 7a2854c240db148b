"""Pixels and GoDice notifications: the bytes each make's protocol documents, and generated
ones; a notification either is one reading or is refused with a reason, never a false face."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.smart_dice import (
    REFUSALS,
    Battery,
    Colour,
    Crooked,
    Identity,
    Refused,
    Rolling,
    Settled,
    face_of_vector,
    parse_godice,
    parse_pixels,
)


def i_am_a_die(*, die_type: int = 2, pixel_id: int = 0x1A2B3C4D, state: int = 1, face: int = 2,
               level: int = 87, battery_state: int = 0) -> bytes:
    # IAmADie: id 2, LED count, design, die type, data set hash (4), pixel id (4),
    # available flash (2), build timestamp (4), roll state, face index, battery level, state.
    return struct.pack("<BBBBIIHIBBBB", 2, 6, 3, die_type, 0xDEADBEEF, pixel_id, 4096,
                       1_700_000_000, state, face, level, battery_state)


# ----- Pixels -------------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "reading"), [
    (bytes([3, 1, 0]), Settled(1)),              # rolled, face index 0: face 1
    (bytes([3, 1, 5]), Settled(6)),
    (bytes([3, 5, 3]), Settled(4, rolled=False)),  # on a face without a roll
    (bytes([3, 3, 0]), Rolling()),
    (bytes([3, 2, 4]), Rolling()),               # in a hand: off the table
    (bytes([3, 4, 0]), Crooked()),
    (bytes([3, 0, 0]), None),                    # unknown state: nothing new
    (bytes([34, 55, 0]), Battery(55)),
    (bytes([34, 99, 2]), Battery(99, charging=True)),
])
def test_pixels_messages_from_the_protocol_document(data: bytes, reading: object) -> None:
    assert parse_pixels(data) == reading


def test_pixels_i_am_a_die_names_the_die_its_faces_and_its_state() -> None:
    identity = parse_pixels(i_am_a_die())
    assert identity == Identity("1A2B3C4D", 6, 6, 1_700_000_000, Settled(3), Battery(87))
    assert parse_pixels(i_am_a_die(die_type=7, face=19, state=3)) == Identity(
        "1A2B3C4D", 20, 6, 1_700_000_000, Rolling(), Battery(87))


@pytest.mark.parametrize(("data", "kind"), [
    (b"", "empty"),
    (bytes([3, 1]), "length"),
    (bytes([3, 1, 0, 0]), "length"),
    (bytes([34, 50]), "length"),
    (i_am_a_die()[:-1], "length"),
    (bytes([0]), "unknown_type"),
    (bytes([99, 1, 2]), "unknown_type"),
    (bytes([3, 6, 0]), "bad_state"),
    (bytes([3, 1, 6]), "bad_face"),               # face index 6 on a six-sided die
    (bytes([3, 5, 200]), "bad_face"),
    (bytes([34, 101, 0]), "bad_value"),
    (i_am_a_die(die_type=42), "bad_value"),
    (i_am_a_die(die_type=2, face=6), "bad_face"),
])
def test_pixels_refuses_what_means_nothing(data: bytes, kind: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_pixels(data)
    assert refused.value.kind == kind and str(refused.value)


# ----- GoDice -------------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "reading"), [
    (b"R", Rolling()),
    (b"S" + struct.pack("bbb", -64, 0, 0), Settled(1)),
    (b"S" + struct.pack("bbb", 0, 0, 64), Settled(2)),
    (b"S" + struct.pack("bbb", 0, 64, 0), Settled(3)),
    (b"S" + struct.pack("bbb", 0, -64, 0), Settled(4)),
    (b"S" + struct.pack("bbb", 0, 0, -64), Settled(5)),
    (b"S" + struct.pack("bbb", 62, -8, 5), Settled(6)),   # a little off the axis still lies flat
    (b"S" + struct.pack("bbb", 45, 45, 0), Crooked()),     # leaning on an edge
    (b"FS" + struct.pack("bbb", 64, 0, 0), Settled(6, rolled=False)),
    (b"MS" + struct.pack("bbb", 0, 64, 0), Settled(3, rolled=False)),
    (b"TS" + struct.pack("bbb", 0, 64, 0), Crooked()),
    (b"Bat" + bytes([73]), Battery(73)),
    (b"Col" + bytes([4]), Colour("yellow")),
])
def test_godice_messages_from_the_public_api(data: bytes, reading: object) -> None:
    assert parse_godice(data) == reading


@pytest.mark.parametrize(("data", "kind"), [
    (b"", "empty"),
    (b"RR", "length"),
    (b"S" + bytes(2), "length"),
    (b"FS" + bytes(4), "length"),
    (b"Bat", "length"),
    (b"X", "unknown_type"),
    (b"\x00\x01\x02\x03", "unknown_type"),
    (b"S" + bytes(3), "bad_value"),           # no gravity: no die lies like this
    (b"TS" + struct.pack("bbb", 3, -2, 1), "bad_value"),
    (b"Bat" + bytes([150]), "bad_value"),
    (b"Col" + bytes([6]), "bad_value"),
])
def test_godice_refuses_what_means_nothing(data: bytes, kind: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_godice(data)
    assert refused.value.kind == kind and str(refused.value)


# ----- generated ----------------------------------------------------------------------------
@given(st.binary(max_size=40))
def test_any_bytes_are_a_reading_or_refused_with_a_known_kind(data: bytes) -> None:
    for parse in (parse_pixels, parse_godice):
        try:
            reading = parse(data)
        except Refused as refused:
            assert refused.kind in REFUSALS
        else:
            if isinstance(reading, Settled):
                assert 1 <= reading.face <= 6


@given(st.integers(0, 255), st.integers(0, 255))
def test_a_pixels_face_is_only_ever_one_of_six(state: int, face_index: int) -> None:
    try:
        reading = parse_pixels(bytes([3, state, face_index]))
    except Refused:
        assert state > 5 or face_index > 5
    else:
        if isinstance(reading, Settled):
            assert reading.face == face_index + 1 <= 6


@given(st.integers(1, 6), st.integers(-6, 6), st.integers(-6, 6), st.integers(-6, 6))
def test_a_godice_lying_near_a_face_reads_that_face(face: int, dx: int, dy: int, dz: int) -> None:
    axes = {1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0), 5: (0, 0, -64),
            6: (64, 0, 0)}
    x, y, z = axes[face]
    assert face_of_vector(x + dx, y + dy, z + dz) == Settled(face)
