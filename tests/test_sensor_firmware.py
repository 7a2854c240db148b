"""The reference firmware's core (dicecore) on the host, fed generated accelerometer traces.

Quotes are from issue 6: "face from the gravity vector with hysteresis, 'rolling' on motion,
settled after a stable period, crooked when no axis dominates, heartbeat, STATE?".
"""

from __future__ import annotations

import math
import random

import pytest

from firmware_bridge.faces import FACES, faces_of
from firmware_bridge.firmware.dicecore import (
    CROOKED,
    FACE,
    FACE_AXES,
    ROLL,
    SETTLE_MS,
    DieTracker,
    Reporter,
    classify,
)
from firmware_bridge.parser import Parser
from firmware_bridge.protocol import (
    Crooked,
    Face,
    Heartbeat,
    Hello,
    HelloQuery,
    Roll,
    StateQuery,
    encode,
)

STEP_MS = 10  # the firmware samples at 100 Hz


def up(face: int) -> list[float]:
    """The gravity reading (1 g) of a die lying with ``face`` on top."""
    axis, sign = FACE_AXES[face]
    vector = [0.0, 0.0, 0.0]
    vector[axis] = float(sign)
    return vector


def tilted(face: int, toward: int, degrees: float) -> list[float]:
    """Lying on ``face``, leant ``degrees`` toward the neighbouring face ``toward``."""
    a, b = up(face), up(toward)
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [c * x + s * y for x, y in zip(a, b, strict=True)]


class Trace:
    """Samples every 10 ms into a tracker; collects (time, event)."""

    def __init__(self, seed: int = 0) -> None:
        self.tracker = DieTracker()
        self.rng = random.Random(seed)
        self.now = 0
        self.events: list[tuple[int, tuple]] = []

    def sample(self, vector: list[float], noise: float = 0.004) -> None:
        x, y, z = (v + self.rng.gauss(0, noise) for v in vector)
        event = self.tracker.update(self.now, x, y, z)
        if event is not None:
            self.events.append((self.now, event))
        self.now += STEP_MS

    def rest(self, vector: list[float], ms: int, noise: float = 0.004) -> None:
        for _ in range(ms // STEP_MS):
            self.sample(vector, noise)

    def tumble(self, ms: int) -> None:
        """A die in the air and bouncing: direction anywhere, 0.2 to 2.5 g."""
        for _ in range(ms // STEP_MS):
            direction = [self.rng.gauss(0, 1) for _ in range(3)]
            norm = math.sqrt(sum(v * v for v in direction)) or 1.0
            size = self.rng.uniform(0.2, 2.5)
            self.sample([v / norm * size for v in direction], noise=0)

    def turn(self, face: int, toward: int, ms: int) -> None:
        """Turned by hand, smoothly, from lying on ``face`` to lying on ``toward``."""
        steps = ms // STEP_MS
        for i in range(steps + 1):
            self.sample(tilted(face, toward, 90 * i / steps))

    def kinds(self) -> list:
        return [event for _, event in self.events]


@pytest.mark.parametrize("face", range(6))
def test_the_face_on_top_is_read_from_gravity(face):
    """"face from the gravity vector"."""
    assert classify(*up(face)) == face
    neighbour = next(f for f in range(6) if FACE_AXES[f][0] != FACE_AXES[face][0])
    assert classify(*[1.3 * v for v in tilted(face, neighbour, 25)]) == face


def test_no_dominant_axis_is_crooked_and_hysteresis_keeps_a_face():
    """"crooked when no axis dominates"; "with hysteresis": a face once read is kept while
    its axis still carries most of gravity."""
    leaning = tilted(0, 1, 45)
    assert classify(*leaning) is None
    slanted = tilted(0, 1, 40)
    assert classify(*slanted) is None          # a fresh reading would not trust 40°
    assert classify(*slanted, keep=0) == 0     # a die already on face 0 stays on it
    assert classify(*tilted(0, 1, 50), keep=0) is None


@pytest.mark.parametrize("seed", range(8))
def test_a_roll_is_one_roll_event_then_the_new_face(seed):
    """""rolling" on motion, settled after a stable period": ROLL once when it moves, FACE
    once it has lain still SETTLE_MS, with the time the roll took."""
    trace = Trace(seed)
    rng = random.Random(seed)
    first, second = rng.randrange(6), rng.randrange(6)
    trace.rest(up(first), 600)
    assert trace.kinds() == [(FACE, first, SETTLE_MS)]
    trace.events.clear()
    started = trace.now
    tumble_ms = rng.randrange(300, 1200, 10)
    trace.tumble(tumble_ms)
    trace.rest(up(second), 1000)
    (roll_at, roll), (face_at, face) = trace.events
    assert roll == (ROLL,) and roll_at == started
    assert face[:2] == (FACE, second)
    assert face_at - started == face[2]
    assert tumble_ms + SETTLE_MS - STEP_MS <= face[2] <= tumble_ms + SETTLE_MS + 2 * STEP_MS


def test_a_die_lying_near_an_edge_does_not_flicker():
    """"with hysteresis": a die leaning 38° with sensor noise reports nothing new for seconds."""
    trace = Trace(3)
    trace.rest(up(0), 500)
    for degrees in range(0, 39, 2):  # leant slowly, as by a card pushed under it
        trace.rest(tilted(0, 1, degrees), 30)
    trace.rest(tilted(0, 1, 38), 5000, noise=0.01)
    assert trace.kinds() == [(FACE, 0, SETTLE_MS)]


def test_a_die_come_to_rest_leaning_is_crooked():
    """"crooked when no axis dominates"."""
    trace = Trace(4)
    trace.rest(up(5), 500)
    trace.tumble(400)
    trace.rest(tilted(5, 2, 45), 600)
    assert trace.kinds()[1:] == [(ROLL,), (CROOKED,)]


def test_a_die_turned_slowly_by_hand_counts_as_a_roll():
    """No jolt at all, but a new face on top: still a roll, then the new face."""
    trace = Trace(5)
    trace.rest(up(0), 500)
    trace.turn(0, 1, 1500)
    trace.rest(up(1), 600)
    events = trace.kinds()
    assert events[1] == (ROLL,)
    assert events[2][:2] == (FACE, 1) and len(events) == 3


def cafe_reporter() -> Reporter:
    return Reporter("E6614103E7452D2F", "1.0.0", ("yellow", "yellow", "blue", "blue"), FACES)


def test_reporter_lines_parse_on_the_host():
    """The firmware's lines are the protocol: HELLO, ROLL, FACE (by name), CROOKED, HB."""
    reporter = cafe_reporter()
    stream = reporter.hello() + reporter.die(0, (ROLL,)) + reporter.die(0, (FACE, 2, 480))
    stream += reporter.die(3, (CROOKED,)) + reporter.heartbeat(7)
    parser = Parser()
    messages = [frame.message for frame in parser.feed(stream)]
    assert messages == [
        Hello(2, "1.0.0", "E6614103E7452D2F", ("yellow", "yellow", "blue", "blue")),
        Roll(0), Face(0, "pizza", 480), Crooked(3), Heartbeat(7),
    ]
    assert faces_of("yellow")[2] == "pizza"
    assert not any(parser.counters.values())


def test_an_old_board_answers_only_v1_queries_and_the_new_one_both():
    """Issue 13: "v1 lines are still read ... so an old sensor keeps working". A v1 board
    cannot check a CRC, so the host asks in both versions; the v2 board answers either."""
    old = Reporter("OLD", "1.0.0", ("red",), FACES, version=1)
    v1_ask, v2_ask = encode(HelloQuery(), 0, version=1), encode(HelloQuery(), 1)
    assert old.receive(v2_ask) == []
    [hello] = old.receive(v1_ask)
    assert hello.endswith(b"\r\n") and hello[-5:-4] == b"*"  # two hex digits: an XOR
    assert Parser(accept_v1=True).feed(hello)[0].message == Hello(1, "1.0.0", "OLD", ("red",))
    new = cafe_reporter()
    assert [len(new.receive(ask)) for ask in (v1_ask, v2_ask)] == [1, 1]


def test_state_query_answers_every_known_die_and_hello_query_says_hello():
    """"from the host STATE? (full snapshot of every die)"."""
    reporter = cafe_reporter()
    for index, event in enumerate([(FACE, 0, 1), (ROLL,), (CROOKED,), (FACE, 5, 9)]):
        reporter.die(index, event)
    host = Parser()
    ask, hello = encode(StateQuery(), 0), encode(HelloQuery(), 1)
    replies = reporter.receive(b"noise\r\n" + ask[:9]) + reporter.receive(ask[9:] + hello)
    messages = [frame.message for frame in host.feed(b"".join(replies))]
    assert messages[:4] == [Face(0, "burger", 1), Roll(1), Crooked(2), Face(3, "bill", 9)]
    assert isinstance(messages[4], Hello)


def test_sequence_numbers_wrap_after_255():
    """"seq 0–255 wrapping"."""
    reporter = cafe_reporter()
    seqs = [Parser().feed(reporter.heartbeat(n))[0].seq for n in range(258)]
    assert seqs[254:] == [254, 255, 0, 1]

