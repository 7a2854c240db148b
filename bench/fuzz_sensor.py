"""Fuzz section: the dice sensor. Random bytes and mutated frames on the parser and on a running
link over a pty; a valid-frame flood through the link into a running simulated box.

- ``sensor_random_bytes``: random bytes (half uniform, half drawn from the protocol's own
  characters, so that they look like frames) fed to a parser and written to a link's pty.
- ``sensor_mutated_frames``: valid v2 frames mutated six ways (``sensor_mutations`` per kind:
  bit flip, two-bit flip, truncated, overlong, bad checksum, unknown type), each kind on the
  parser and on the link.
- ``sensor_exceptions``: exceptions out of the parser, and link sessions ended by one.
- ``sensor_false_faces``: frames accepted from a mutation or noise that carry a face, and dice
  events the link posted during the noise (aim 0 for both).
- ``flood_*``: ROLL/FACE pairs at 30,000 frames/s (20 s; 5 s quick) from a virtual sensor in
  another process, read by the box's own link (``build_app(..., sim=True)``, ``App.run`` in a
  thread): the box's RSS growth, the app queue's largest size, and press→frame p99 against a
  quiet run (a DOWN/UP press on the mock pins until the moved menu bar is on the display).
"""

from __future__ import annotations

import random
import resource
import string
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench_sensor import KINDS, box_with_sensor, percentile  # beside this file (see fuzz.py)

from companion.box.events import Stop
from firmware_bridge.events import DiceSettled, DieRolling, SensorOffline
from firmware_bridge.faces import FACES
from firmware_bridge.firmware.dicecore import FACE, MAX_LINE, ROLL, Reporter, frame
from firmware_bridge.link import SensorLink
from firmware_bridge.parser import REJECTIONS, Parser
from firmware_bridge.protocol import DECODERS, Face
from firmware_bridge.virtual import VirtualSensor

ALPHABET = b"$DS,*0123456789ABCDEF\r\nFACEROLLHBCROOKEDcolapizza"
FLOOD_RATE = 30_000


HELLO = Reporter("FUZZ-0001", "2.0.0", KINDS, FACES).hello()


class Tally:
    """What the fuzzed code did with bad input: exceptions, frames it should not have taken.

    Each case is judged as the link reads it: in a session that began with a v2 HELLO.
    """

    def __init__(self) -> None:
        self.exceptions = 0
        self.first_exception = ""
        self.accepted = 0
        self.false_faces = 0

    def feed(self, parser: Parser, data: bytes, expected: tuple = ()) -> None:
        """Feed ``data``; every frame beyond ``expected`` (messages in order) is a wrong one."""
        try:
            messages = [f.message for f in parser.feed(data)]
        except Exception as exc:  # the figure under test: nothing may escape the parser
            self.exceptions += 1
            self.first_exception = self.first_exception or repr(exc)
            messages = []
        for message in messages:
            if message in expected:
                continue
            self.accepted += 1
            self.false_faces += isinstance(message, Face)
        parser.reset()
        parser.feed(HELLO)


# ----- frames and their mutations ---------------------------------------------------------------
def valid_frames(rng: random.Random, count: int) -> list[bytes]:
    """The lines a Café sensor sends, at random: FACE most, then ROLL, CROOKED, HB."""
    reporter = Reporter("FUZZ-0001", "2.0.0", KINDS, FACES)
    out = []
    for _ in range(count):
        reporter.seq = rng.randrange(256)
        die, pick = rng.randrange(len(KINDS)), rng.random()
        if pick < 0.5:
            out.append(reporter.die(die, (FACE, rng.randrange(6), rng.randrange(2000))))
        elif pick < 0.8:
            out.append(reporter.die(die, (ROLL,)))
        elif pick < 0.9:
            out.append(reporter.die(die, ("CROOKED",)))
        else:
            out.append(reporter.heartbeat(rng.randrange(10**6)))
    return out


def _flip(line: bytes, bits: list[int]) -> bytes:
    out = bytearray(line)
    for bit in bits:
        out[bit // 8] ^= 1 << bit % 8
    return bytes(out)


def _fields(line: bytes) -> tuple[int, str, list[str]]:
    parts = line[1:line.rindex(b"*")].decode().split(",")
    return int(parts[1]), parts[2], parts[3:]


def mutate(kind: str, rng: random.Random, line: bytes) -> bytes:
    """``line`` made invalid one way; the result ends its line, so it is judged alone."""
    if kind == "bit_flip":
        return _flip(line, [rng.randrange(len(line) * 8)]) + b"\n"
    if kind == "two_bit_flip":
        return _flip(line, rng.sample(range(len(line) * 8), 2)) + b"\n"
    if kind == "truncated":  # cut inside the line (at least one check digit gone), then a new one
        cut = line[:rng.randrange(1, len(line) - 2)]
        return cut + (b"\r\n" if rng.random() < 0.5 else b"")
    seq, kind_word, fields = _fields(line)
    if kind == "overlong":  # a valid CRC, but over MAX_LINE: a FACE's time or an ERR's text padded
        if kind_word != "FACE":
            kind_word, fields = "ERR", ["X", ""]
        over = MAX_LINE - len(frame(seq, kind_word, tuple(fields))) + 1 + rng.randrange(200)
        fields[-1] = ("0" if kind_word == "FACE" else "A") * over + fields[-1]
        return frame(seq, kind_word, tuple(fields))
    if kind == "bad_checksum":
        good = line[line.rindex(b"*") + 1:line.rindex(b"*") + 5]
        bad = good
        while bad == good:
            bad = f"{rng.randrange(65536):04X}".encode()
        return line.replace(b"*" + good, b"*" + bad)
    if kind == "unknown_type":
        word = kind_word
        while word in DECODERS:
            word = "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randrange(2, 9)))
        return frame(seq, word, tuple(fields))
    raise ValueError(kind)


MUTATIONS = ("bit_flip", "two_bit_flip", "truncated", "overlong", "bad_checksum", "unknown_type")


def random_bytes(rng: random.Random, size: int) -> bytes:
    """Half uniform noise, half noise made of the protocol's own characters."""
    half = size // 2
    return rng.randbytes(half) + bytes(rng.choice(ALPHABET) for _ in range(size - half))


# ----- on the parser ----------------------------------------------------------------------------
def fuzz_parser(rng: random.Random, noise_bytes: int, per_kind: int, tally: Tally) -> dict:
    parser = Parser()
    parser.feed(HELLO)
    noise = random_bytes(rng, noise_bytes)
    position = 0
    while position < len(noise):
        size = rng.randrange(1, 512)
        tally.feed(parser, noise[position:position + size])
        position += size
    kinds: dict[str, dict] = {}
    for kind in MUTATIONS:
        before = dict(parser.counters)
        accepted = tally.accepted
        for line in valid_frames(rng, per_kind):
            bad = mutate(kind, rng, line)
            if kind == "truncated":  # the next line starts: it alone must be read
                after = valid_frames(rng, 1)[0]
                tally.feed(parser, bad + after, tuple(f.message for f in Parser().feed(after)))
            else:
                tally.feed(parser, bad)
        rejected = {k: parser.counters[k] - before[k] for k in REJECTIONS
                    if parser.counters[k] != before[k]}  # (random sequence numbers: no gaps)
        kinds[kind] = {"frames": per_kind, "accepted": tally.accepted - accepted,
                       "rejected_as": rejected}
    return kinds


# ----- on a running link over a pty -------------------------------------------------------------
class RecordingLink(SensorLink):
    """The real link, with every event it posts also kept in order for the campaign."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.posted: list[object] = []

    def _post(self, event: object) -> None:
        self.posted.append(event)
        super()._post(event)


def _wait(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def fuzz_link(rng: random.Random, noise_bytes: int, per_kind: int) -> dict:
    """Noise and mutated frames written to a pty the link reads; then a throw must still read."""
    directory = Path(tempfile.mkdtemp(prefix="fuzz-sensor-"))
    sensor = VirtualSensor(KINDS, link=directory / "dice-sensor", heartbeat_s=0.2, seed=5)
    sensor.plug()
    link = RecordingLink(str(directory / "dice-sensor"), lambda: None, heartbeat_s=0.2,
                         backoff_s=(0.02, 0.2))
    link.start()
    figures: dict[str, Any] = {}
    try:
        if not _wait(lambda: link.online, 5):
            raise RuntimeError("the link never saw the virtual sensor")
        sensor.throw()
        _wait(lambda: any(isinstance(e, DiceSettled) for e in link.posted), 5)
        start = len(link.posted)
        noise = random_bytes(rng, noise_bytes)
        for position in range(0, len(noise), 4096):
            sensor.send_raw(noise[position:position + 4096])
        for kind in MUTATIONS:
            lines = [mutate(kind, rng, line) for line in valid_frames(rng, per_kind)]
            for position in range(0, len(lines), 100):
                sensor.send_raw(b"".join(lines[position:position + 100]) + b"\r\n")
        sensor.send_raw(b"\r\n")
        time.sleep(0.5)  # the link reads what is left in the pty
        during = link.posted[start:]
        faces = ("salad", "burger", "juice", "bill")
        _wait(lambda: link.online, 5)
        sensor.throw(faces)
        recovered = _wait(lambda: any(isinstance(e, DiceSettled) and e.faces == faces
                                      for e in link.posted[start:]), 5)
        figures = {
            "false_dice_events": sum(isinstance(e, DiceSettled | DieRolling) for e in during),
            "link_errors": sum(isinstance(e, SensorOffline) and e.reason == "link error"
                               for e in link.posted),
            "reader_alive": link._thread is not None and link._thread.is_alive(),
            "recovered": recovered,
            "offline_spells": sum(isinstance(e, SensorOffline) for e in during),
            "counters": {k: v for k, v in link.counters().items() if v},
            "bytes_lost_in_pty": sensor.lost_bytes,
        }
    finally:
        link.stop()
        sensor.close()
    return figures


# ----- a flood into a running box ---------------------------------------------------------------
def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


class Presser:
    """Presses DOWN/UP on the mock pins and times each until the box shows its new frame."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.finger = app.hardware.extras["finger"]
        self.shown: list[float] = []
        self.changed = threading.Condition()
        app.panel.frame_listeners.append(self._on_frame)
        self.count = 0

    def _on_frame(self, image: Any) -> None:
        with self.changed:
            self.shown.append(time.perf_counter())
            self.changed.notify_all()

    def press(self) -> float | None:
        """One press; its press→frame time in ms (None if no frame came within a second)."""
        button = "DOWN" if self.count % 2 == 0 else "UP"  # the menu bar moves down, then back
        self.count += 1
        with self.changed:
            before = len(self.shown)
        started = time.perf_counter()
        self.finger.down(button)
        with self.changed:
            seen = self.changed.wait_for(lambda: len(self.shown) > before, 1.0)
            shown = self.shown[before] if seen else None
        time.sleep(0.04)
        self.finger.up(button)
        return None if shown is None else (shown - started) * 1000

    def run(self, count: int, seconds: float | None = None) -> list[float | None]:
        """``count`` presses, or as many as fit in ``seconds``, 60-90 ms apart."""
        times: list[float | None] = []
        ends = time.monotonic() + seconds if seconds else None
        rng = random.Random(7)
        while (len(times) < count) if ends is None else (time.monotonic() < ends):
            times.append(self.press())
            time.sleep(rng.uniform(0.02, 0.05))
        return times


def flood_box(flood_s: float, presses: int) -> dict:
    parent, app = box_with_sensor()
    presser = Presser(app)
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    try:
        if not _wait(lambda: app.sensor.online, 5):
            raise RuntimeError("the box never saw the virtual sensor")
        parent.send(("flood", FLOOD_RATE, 1.0))  # warm-up: first-time allocations
        parent.recv()
        time.sleep(0.5)
        quiet = presser.run(presses)
        link: SensorLink = app.hardware.extras["sensor"]
        read_before, rss_before = link._parser.frames, rss_mb()
        queue_max = [0]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.wait(0.01):
                queue_max[0] = max(queue_max[0], app.events.qsize())

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        parent.send(("flood", FLOOD_RATE, flood_s))
        flooded = presser.run(0, seconds=flood_s)
        sent = parent.recv()
        rss_after = rss_mb()
        sampling.set()
        sampler.join()
        read = link._parser.frames - read_before
        faces = ("cake", "pizza", "juice", "bill")
        parent.send(("throw", faces))
        parent.recv()
        latest = _wait(lambda: app.sensor.faces == faces, 5)
        quiet_ms = [t for t in quiet if t is not None]
        flood_ms = [t for t in flooded if t is not None]
        return {
            "flood_frames_per_s": round(sent["frames"] / sent["seconds"]),
            "flood_seconds": round(sent["seconds"], 1),
            "flood_frames_read": read,
            "flood_bytes_lost": sent["bytes_lost"],
            "flood_rss_before_mb": round(rss_before, 1),
            "flood_rss_growth_mb": round(rss_after - rss_before, 2),
            "flood_queue_max": queue_max[0],
            "flood_latest_faces_right": latest,
            "flood_noisy_shown": app.sensor.counters.get("noisy", 0) > 0
            and "noisy" in app.sensor.last_problem,
            "quiet_presses": len(quiet), "flood_presses": len(flooded),
            "presses_without_frame": len(quiet) + len(flooded) - len(quiet_ms) - len(flood_ms),
            "quiet_press_to_frame_ms_p50": round(percentile(quiet_ms, 50), 2),
            "quiet_press_to_frame_ms_p99": round(percentile(quiet_ms, 99), 2),
            "flood_press_to_frame_ms_p50": round(percentile(flood_ms, 50), 2),
            "flood_press_to_frame_ms_p99": round(percentile(flood_ms, 99), 2),
            "app_errors": app.errors,
        }
    finally:
        parent.send(("quit",))
        parent.recv()
        app.events.put(Stop("fuzz done"))
        loop.join(5)
        app.shutdown()


def run(quick: bool) -> dict:
    """The sensor campaign's figures (see the module's docstring)."""
    rng = random.Random(13)
    tally = Tally()
    noise = 200_000 if quick else 1_000_000
    per_kind = 10_000
    parser_kinds = fuzz_parser(rng, noise, per_kind, tally)
    link_per_kind = 1_000 if quick else 10_000
    link = fuzz_link(rng, noise // 2 if quick else noise, link_per_kind)
    flood = flood_box(5.0 if quick else 20.0, 100 if quick else 300)
    return {
        "sensor_random_bytes": noise + (noise // 2 if quick else noise),
        "sensor_mutated_frames": len(MUTATIONS) * (per_kind + link_per_kind),
        "sensor_mutations": {kind: {"parser": parser_kinds[kind], "link": link_per_kind}
                             for kind in MUTATIONS},
        "sensor_exceptions": tally.exceptions + link["link_errors"] + (not link["reader_alive"]),
        "sensor_first_exception": tally.first_exception,
        "sensor_false_faces": tally.false_faces + link["false_dice_events"],
        "sensor_parser_frames_accepted": tally.accepted,
        "sensor_link": link,
        **flood,
    }
