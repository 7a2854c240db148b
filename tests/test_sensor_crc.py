"""Protocol v2's CRC-16/CCITT-FALSE (issue 13): its check value, its table on the board, and
what it catches — every 2-bit fault of a line, including the double fault the v1 XOR let by."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.firmware.dicecore import crc16, crc16_table, frame
from firmware_bridge.parser import Parser
from firmware_bridge.protocol import Face, Heartbeat, Hello

FIXTURES = Path(__file__).parent / "fixtures" / "sensor"
FRAMES = [  # the lines a sensor sends most, the longest, and one with free text
    frame(217, "FACE", (2, "cola", 558)),
    frame(9, "ROLL", (1,)),
    frame(10, "CROOKED", (0,)),
    frame(5, "HB", (37,)),
    frame(0, "HELLO", (2, "2.0.0", "E6614103E7452D2F", 6, "white", "white", "white", "white",
                       "white", "red")),
    frame(11, "ERR", ("IMU", "die 2 silent")),
]


def test_the_crc_check_value():
    """"CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xorout)": the catalogue's
    check value of "123456789" is 0x29B1."""
    assert crc16(b"123456789") == crc16_table(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


@given(st.binary(max_size=200))
def test_the_boards_table_computes_the_same_crc(data):
    """MicroPython has no binascii.crc_hqx: the firmware's table must agree with it."""
    assert crc16_table(data) == crc16(data)


@pytest.mark.slow
def test_every_two_bit_fault_of_a_line_is_refused():
    """Issue 13: "A test injects every 2-bit flip of a set of frames: 0 accepted" — any two bit
    positions anywhere in the line, check digits and line end included."""
    parser = Parser()
    for line in FRAMES:
        assert [f.seq for f in parser.feed(line)] == [int(line.split(b",")[1])]
        parser.reset()
        bits = len(line) * 8
        accepted = flips = 0
        for first in range(bits):
            once = bytearray(line)
            once[first // 8] ^= 1 << first % 8
            for second in range(first + 1, bits):
                twice = bytearray(once)
                twice[second // 8] ^= 1 << second % 8
                accepted += len(parser.feed(bytes(twice) + b"\n"))
                parser.reset()
                flips += 1
        assert flips == bits * (bits - 1) // 2
        assert accepted == 0, line


def test_the_double_fault_from_the_issue_is_refused():
    """Issue 13, failure 2: "`$DS,217,FACE,2,cola,558*05` → `…FACE,3,cola,548*05`" made a
    valid FACE for another die. From a v2 sensor the v1 line is refused, and the v2 line with
    the same two bits flipped fails its CRC; the heartbeat after it still reads."""
    parser = Parser()
    frames = parser.feed((FIXTURES / "double_fault.bin").read_bytes())
    assert [f.message for f in frames] == [
        Hello(2, "2.0.0", "E6614103E7452D2F", ("yellow", "yellow", "blue", "blue")),
        Heartbeat(1),
    ]
    assert {k: v for k, v in parser.counters.items() if v} == {"version": 1, "checksum": 1,
                                                                 "dropped": 1}


def test_an_old_v1_sensor_is_still_read_and_noted():
    """"v1 lines are still read (with a note in the health counters)": XOR checks in either
    case, a bare line feed; each line counted in ``v1_lines``, none rejected (with
    ``[sensor] protocol = 1``)."""
    parser = Parser(accept_v1=True)
    frames = parser.feed((FIXTURES / "good_v1.bin").read_bytes())
    assert [f.message for f in frames] == [
        Hello(1, "1.0.0", "E6614103E7452D2F", ("yellow", "yellow", "blue", "blue")),
        Face(2, "cola", 558), Face(0, "pizza", 208), Heartbeat(99),
    ]
    assert {k: v for k, v in parser.counters.items() if v} == {"v1_lines": 4}


CAFE = ("yellow", "yellow", "blue", "blue")


def v1(seq: int, kind: str, *fields: object) -> bytes:
    return frame(seq, kind, fields, version=1)


def v2(seq: int, kind: str, *fields: object) -> bytes:
    return frame(seq, kind, fields)


def v1_hello(seq: int = 0, version: int = 1) -> bytes:
    return v1(seq, "HELLO", version, "1.0.0", "OLD", 4, *CAFE)


def test_the_double_flip_that_passed_as_v1_is_refused_without_protocol_1():
    """Issue 27: "`$DS,4,FACE,0,ennut,300*69`, a double flip, was accepted". The XOR is no
    check against two flipped bits: v1 is read only with ``[sensor] protocol = 1``; every v1
    line is refused and counted otherwise, a v1 HELLO included."""
    parser = Parser()
    frames = parser.feed(v1_hello() + b"$DS,4,FACE,0,ennut,300*69\r\n" + v1(5, "HB", 1))
    assert frames == []
    assert {k: v for k, v in parser.counters.items() if v} == {"version": 3}
    assert parser.last_problem == "v1 line: set [sensor] protocol = 1 for an old sensor"


def test_with_protocol_1_v1_lines_are_read_only_after_a_v1_hello():
    """"Accept v1 only from a sensor whose HELLO says v1": lines before it are refused."""
    parser = Parser(accept_v1=True)
    frames = parser.feed(v1(3, "FACE", 0, "pizza", 0) + v1_hello(4) + v1(5, "FACE", 0, "pizza", 0))
    assert [f.message for f in frames] == [Hello(1, "1.0.0", "OLD", CAFE), Face(0, "pizza", 0)]
    assert parser.counters["version"] == 1 and parser.counters["v1_lines"] == 2


def test_with_protocol_1_a_v2_sensor_is_never_downgraded():
    """A sensor heard speaking v2 sends no v1 line: a v1 HELLO or FACE from it is a damaged
    line, before or after its own HELLO; so is a v1 HELLO that says it speaks v2."""
    parser = Parser(accept_v1=True)
    stream = (v2(0, "HELLO", 2, "2.0.0", "NEW", 4, *CAFE) + v2(1, "HB", 1) + v1_hello(2)
              + v1(3, "FACE", 0, "pizza", 0) + v2(4, "HB", 2))
    assert [f.message for f in parser.feed(stream)] == [
        Hello(2, "2.0.0", "NEW", CAFE), Heartbeat(1), Heartbeat(2)]
    assert parser.counters["version"] == 2 and parser.counters["v1_lines"] == 0
    parser.reset()  # a new connection: a sensor that turns out to speak v2 after a v1 HELLO
    frames = parser.feed(v1_hello(0) + v2(1, "HB", 1) + v1(2, "FACE", 0, "pizza", 0))
    assert [f.message for f in frames] == [Hello(1, "1.0.0", "OLD", CAFE), Heartbeat(1)]
    parser.reset()
    assert parser.feed(v1_hello(0, version=2)) == []
    assert parser.last_problem == "v1 line says protocol v2"
