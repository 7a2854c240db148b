"""Messages ↔ lines of the sensor protocol. Quotes are from issue 6 / firmware_bridge/PROTOCOL.md."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.catalog import dice_sets
from firmware_bridge.faces import FACES, faces_of, kinds_of
from firmware_bridge.firmware.dicecore import MAX_LINE, checksum
from firmware_bridge.parser import Parser
from firmware_bridge.protocol import (
    VERSIONS,
    Crooked,
    Error,
    Face,
    Heartbeat,
    Hello,
    HelloQuery,
    Roll,
    StateQuery,
    encode,
)

KINDS = st.sampled_from(sorted(FACES))
TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)


@st.composite
def messages(draw):
    kind = draw(KINDS)
    die = draw(st.integers(0, 9))
    return draw(st.sampled_from([
        Hello(draw(st.sampled_from(VERSIONS)), draw(st.from_regex(r"[0-9.]{1,8}", fullmatch=True)),
              draw(st.from_regex(r"[0-9A-F]{16}", fullmatch=True)),
              tuple(draw(st.lists(KINDS, min_size=1, max_size=6)))),
        Roll(die),
        Face(die, draw(st.sampled_from(faces_of(kind))), draw(st.integers(0, 10**6))),
        Crooked(die),
        Heartbeat(draw(st.integers(0, 10**9))),
        HelloQuery(),
        StateQuery(),
    ]))


@given(messages(), st.integers(0, 255))
@pytest.mark.slow
def test_every_message_survives_a_round_trip(message, seq):
    """"$DS,<seq>,<TYPE>,<fields>*<XXXX>\\r\\n": what is sent is what is read."""
    line = encode(message, seq)
    assert line.startswith(b"$DS,") and line.endswith(b"\r\n") and len(line) <= MAX_LINE
    [frame] = Parser().feed(line)
    assert frame == (seq, message)


@given(TEXT, TEXT)
def test_error_text_is_made_safe_for_a_line(code, text):
    """An ERR's free text can hold no separator, so it can never break the framing."""
    [frame] = Parser().feed(encode(Error(code, text), 7))
    assert isinstance(frame.message, Error)
    assert not set("$*,") & set(frame.message.code + frame.message.text)


@given(st.binary(max_size=120))
def test_checksum_is_the_xor_of_every_byte(body):
    """v1: "XX the hex XOR of the bytes between $ and *"."""
    expected = 0
    for byte in body:
        expected ^= byte
    assert checksum(body) == expected


def test_face_names_are_defined_once_per_kind():
    """"Face names are per die kind (fruits, dishes, drinks, bill, cross, marshmallow) and
    defined in one place"."""
    assert faces_of("yellow")[:3] == ("burger", "donut", "pizza")
    assert faces_of("blue")[-1] == "bill"
    assert faces_of("white")[-1] == "cross" and faces_of("red")[-1] == "marshmallow"
    assert all(len(set(names)) == 6 for names in FACES.values())
    sets = dice_sets()
    assert kinds_of("cafe", sets) == sets["cafe"] == ("yellow", "yellow", "blue", "blue")
    assert kinds_of("miams", sets) == ("white",) * 5 + ("red",)
    assert kinds_of("red,blue") == ("red", "blue")
    with pytest.raises(ValueError, match="green"):
        kinds_of("yellow,green")


def test_the_examples_in_the_spec_are_valid_lines():
    """PROTOCOL.md "with examples": every example line parses with no rejection."""
    from pathlib import Path

    spec = Path(__file__).parent.parent / "firmware_bridge" / "PROTOCOL.md"
    lines = [line for line in spec.read_text().splitlines() if line.startswith("$DS,") and "<" not in line]
    assert len(lines) >= 10
    for line in lines:
        parser = Parser()
        assert len(parser.feed(line.encode() + b"\r\n")) == 1, line
        assert not any(parser.counters.values()), line
