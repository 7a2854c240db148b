"""Protocol v2's CRC-16/CCITT-FALSE (issue 13): its check value, its table on the board, and
what it catches — every 2-bit fault of a line, including the double fault the v1 XOR let by."""

from __future__ import annotations

from pathlib import Path

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
    case, a bare line feed; each line counted in ``v1_lines``, none rejected."""
    parser = Parser()
    frames = parser.feed((FIXTURES / "good_v1.bin").read_bytes())
    assert [f.message for f in frames] == [
        Hello(1, "1.0.0", "E6614103E7452D2F", ("yellow", "yellow", "blue", "blue")),
        Face(2, "cola", 558), Face(0, "pizza", 208), Heartbeat(99),
    ]
    assert {k: v for k, v in parser.counters.items() if v} == {"v1_lines": 4}
