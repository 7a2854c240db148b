"""The sensor's line parser, fed the byte fixtures in tests/fixtures/sensor (see make_fixtures.py).

Quotes are from the protocol spec (firmware_bridge/PROTOCOL.md, issue 6).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.firmware.dicecore import frame
from firmware_bridge.parser import Parser
from firmware_bridge.protocol import MAX_LINE, Crooked, Error, Face, Heartbeat, Hello, Roll

FIXTURES = Path(__file__).parent / "fixtures" / "sensor"
CAFE = ("yellow", "yellow", "blue", "blue")


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def parse(data: bytes, chunks: list[int] | None = None) -> tuple[list, Parser]:
    parser = Parser()
    frames = []
    if chunks is None:
        frames = parser.feed(data)
    else:
        pos = 0
        for size in chunks:
            frames += parser.feed(data[pos:pos + size])
            pos += size
        frames += parser.feed(data[pos:])
    return [(f.seq, f.message) for f in frames], parser


def problems(parser: Parser) -> dict[str, int]:
    return {k: v for k, v in parser.counters.items() if v}


def test_a_cafe_session_parses_to_its_messages():
    """"Messages at least: HELLO (protocol version, firmware version, unique id, number and kind
    of dice), ROLL, FACE (die index, face, settle time), CROOKED, HB heartbeat ... ERR"."""
    frames, parser = parse(fixture("good_cafe.bin"))
    assert frames == [
        (0, Hello(2, "2.0.0", "E6614103E7452D2F", CAFE)),
        (1, Heartbeat(12)),
        (2, Roll(0)),
        (3, Roll(1)),
        (4, Face(0, "pizza", 412)),
        (5, Face(1, "donut", 530)),
        (6, Crooked(2)),
        (7, Error("IMU", "die 3 silent")),
        (8, Heartbeat(13)),
    ]
    assert problems(parser) == {}


def test_miams_dice_and_bare_line_feed():
    """"five white and one red Miams dice" (CR optional)."""
    frames, parser = parse(fixture("good_miams.bin"))
    assert frames == [
        (0, Hello(2, "0.9", "PICO-42", ("white",) * 5 + ("red",))),
        (1, Face(5, "marshmallow", 380)),
        (2, Face(0, "cross", 208)),
        (3, Heartbeat(99)),
    ]
    assert problems(parser) == {}


@given(st.lists(st.integers(min_value=0, max_value=40), max_size=60))
@pytest.mark.slow
def test_how_the_bytes_are_split_does_not_matter(chunks):
    """"Parser separate from transport: bytes in → messages out" — whatever reads the port gave."""
    data = fixture("good_cafe.bin") + fixture("garbage.bin") + fixture("truncated.bin")
    whole, whole_parser = parse(data)
    split, split_parser = parse(data, chunks)
    assert split == whole
    assert split_parser.counters == whole_parser.counters


@pytest.mark.parametrize(("name", "counter", "count"), [
    ("bad_checksum.bin", "checksum", 1),
    ("garbage.bin", "garbage", 1),
    ("truncated.bin", "truncated", 1),
    ("too_long.bin", "too_long", 1),
    ("unknown_type.bin", "unknown_type", 1),
    ("bad_version.bin", "version", 1),
    ("malformed.bin", "malformed", 13),
])
def test_each_corruption_is_rejected_counted_and_the_next_line_still_parses(name, counter, count):
    """"resynchronising on the next $ after garbage, rejecting bad checksums, over-long lines
    and unknown versions, counting each kind of rejection"."""
    frames, parser = parse(fixture(name))
    assert problems(parser) == {counter: count}
    assert frames[-1][1] == Heartbeat(1)
    assert len(frames) == 1
    assert parser.last_problem


def test_lost_and_repeated_frames_show_in_the_sequence():
    """"seq 0–255 wrapping so drops and duplicates show"."""
    frames, parser = parse(fixture("sequence.bin"))
    assert [seq for seq, _ in frames] == [250, 251, 253, 254, 255, 0, 4]  # the repeat is dropped
    assert problems(parser) == {"dropped": 4, "duplicate": 1}


def test_a_hello_starts_a_new_sequence():
    """A sensor that restarts numbers from 0 again: its HELLO is no gap."""
    data = fixture("good_cafe.bin")
    frames, parser = parse(data + data)
    assert len(frames) == 18
    assert problems(parser) == {}


def test_line_length_is_bounded_exactly():
    """"bounded length": MAX_LINE bytes from $ to the line feed pass, one more does not."""
    def err_line(size: int) -> bytes:
        base = frame(1, "ERR", ("X", ""))
        return frame(1, "ERR", ("X", "A" * (size - len(base))))

    fits, over = err_line(MAX_LINE), err_line(MAX_LINE + 1)
    assert (len(fits), len(over)) == (MAX_LINE, MAX_LINE + 1)
    frames, parser = parse(fits)
    assert len(frames) == 1 and problems(parser) == {}
    frames, parser = parse(over)
    assert frames == [] and problems(parser) == {"too_long": 1}


def test_an_endless_line_is_dropped_while_it_streams_in():
    """A line that never ends must not grow the buffer: it is dropped once over the bound,
    and the parser picks up again at the next $."""
    parser = Parser()
    assert parser.feed(b"$DS,1,ERR,X,") == []
    for _ in range(50):
        assert parser.feed(b"A" * 64) == []
        assert len(parser._buffer) <= MAX_LINE
    frames = parser.feed(b"AAA\r\n" + frame(2, "HB", (1,)))
    assert [f.message for f in frames] == [Heartbeat(1)]
    assert problems(parser) == {"too_long": 1}  # the rest of the long line is not "garbage"


def test_well_known_nmea_checksum():
    """"XX the hex XOR of the bytes between $ and *" — as in NMEA 0183."""
    from firmware_bridge.protocol import checksum

    assert checksum(b"GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,") == 0x76
