"""Dice sensor figures: parse rate, FACE-to-app latency over a real pty, reconnect after replug.

- parse: lines per second through ``firmware_bridge.parser.Parser`` (target >= 100,000), on
  wall time and on this process's CPU time (the second is steadier on a busy machine); for
  protocol v2 (CRC-16) lines and, as ``parse_v1``, for an old sensor's v1 (XOR) lines.
- latency: a virtual sensor in another process writes a FACE line on its pty; the box (built
  by ``build_app`` with ``[sensor] port``, ``App.run`` in a thread) applies the settled set on
  its loop thread. From the end of that write to the loop's state change; target p99 < 20 ms.
- game: the same FACE lines with a Crazy Café game on sensor dice (journal on disk): from the
  end of the write to the frame that shows the die, through the game's ``roll`` action, the
  journal's write (fsync included) and the redraw; target p99 < 20 ms.
- reconnect: the sensor is unplugged, left out, plugged back; from the new pty being ready to
  the app seeing the sensor online; target < 2 s (the link's default back-off).

    python bench/bench_sensor.py [--lines 100000] [--samples 300] [--replugs 5] [--no-game]

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from companion.box.boot import build_app
from companion.box.events import Call, Stop
from companion.games import box_config as config
from companion.games.catalog import GAMES
from companion.ui.widgets import Screen
from firmware_bridge.events import DiceSettled, SensorOnline
from firmware_bridge.faces import FACES, faces_of
from firmware_bridge.firmware.dicecore import FACE, ROLL, Reporter
from firmware_bridge.parser import Parser
from firmware_bridge.virtual import VirtualSensor

KINDS = GAMES["cafe"].dice


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]  # nearest rank


def bench_parse(lines: int, repeats: int = 5, version: int = 2) -> dict[str, Any]:
    reporter = Reporter("E6614103E7452D2F", "1.0.0", KINDS, FACES, version)
    rng = random.Random(1)
    out = [reporter.hello()]
    for n in range(lines - 1):
        die = n % len(KINDS)
        if n % 50 == 49:
            out.append(reporter.heartbeat(n // 50))
        elif n % 2:
            out.append(reporter.die(die, (FACE, rng.randrange(6), rng.randrange(200, 900))))
        else:
            out.append(reporter.die(die, (ROLL,)))
    stream = b"".join(out)
    chunks = [stream[i:i + 4096] for i in range(0, len(stream), 4096)]  # as a port read gives
    wall, cpu = [], []
    for _ in range(repeats):
        parser = Parser(accept_v1=version == 1)  # v1: as with [sensor] protocol = 1
        started, started_cpu = time.perf_counter(), time.process_time()
        parsed = sum(len(parser.feed(chunk)) for chunk in chunks)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        problems = {k: v for k, v in parser.counters.items() if v and k != "v1_lines"}
        assert parsed == lines and not problems, problems
    best = lines / min(wall)
    return {
        "protocol": version, "lines": lines, "bytes_per_line": round(len(stream) / lines, 1),
        "lines_per_s_wall_best": round(best),
        "lines_per_s_wall_median": round(lines / statistics.median(wall)),
        "lines_per_s_cpu_median": round(lines / statistics.median(cpu)),
        "target": 100_000, "ok": best >= 100_000,
    }


def flood(sensor: VirtualSensor, rate: int, seconds: float) -> dict[str, Any]:
    """ROLL/FACE pairs over the dice at ``rate`` frames a second, sent every 5 ms."""
    sent = 0
    started = time.monotonic()
    while (now := time.monotonic()) - started < seconds:
        due = int((now - started) * rate)
        if due > sent:
            sensor.flood(due - sent)
            sent = due
        time.sleep(0.005)
    return {"frames": sent, "seconds": time.monotonic() - started, "bytes_lost": sensor.lost_bytes}


def sensor_process(conn: Any, link: str) -> None:
    """The virtual sensor, in its own process like a real one: commands in, write times out
    (``bench/fuzz_sensor.py`` floods and throws it too)."""
    sensor = VirtualSensor(KINDS, link=link, seed=2)
    sensor.plug()
    conn.send("ready")
    while True:
        command = conn.recv()
        if command[0] == "flood":
            conn.send(flood(sensor, *command[1:]))
        elif command[0] == "throw":
            sensor.throw(command[1])
            conn.send(time.monotonic())
        elif command[0] == "face":
            _, die, face = command
            sensor.roll([die])
            sensor.settle(die, face)
            conn.send(time.monotonic())  # the FACE line's last byte is in the pty now
        elif command[0] == "unplug":
            sensor.unplug()
            conn.send(time.monotonic())
        elif command[0] == "plug":
            sensor.plug()
            conn.send(time.monotonic())
        else:
            sensor.close()
            conn.send("bye")
            return


class Probe(Screen):
    """Top screen of the benchmarked box: notes when the loop applied each sensor event."""

    title = "Sensor bench"

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.settled: list[tuple[float, tuple]] = []
        self.online: list[float] = []
        self.changed = threading.Condition()

    def draw(self, canvas: Any) -> None:
        canvas.text(1, 1, f"{len(self.settled)} readings")

    def on_sensor(self, event: Any) -> None:
        now = time.monotonic()
        with self.changed:
            if isinstance(event, DiceSettled):
                self.settled.append((now, event.faces))
            elif isinstance(event, SensorOnline):
                self.online.append(now)
            self.changed.notify_all()

    def wait(self, done: Any, timeout: float = 5.0) -> None:
        with self.changed:
            if not self.changed.wait_for(done, timeout):
                raise RuntimeError("the box did not see the sensor event in time")


def box_with_sensor(journal: bool = False) -> tuple[Any, Any]:
    """A virtual sensor process (its command pipe) and a simulated box reading it, not started."""
    directory = Path(tempfile.mkdtemp(prefix="sensor-bench-"))
    link = str(directory / "dice-sensor")
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=sensor_process, args=(child, link), daemon=True)
    process.start()
    assert parent.recv() == "ready"
    app = build_app(config.parse({"sensor": {"port": link}}), sim=True, state_dir=directory,
                    journal=journal)
    return parent, app


def bench_game(samples: int) -> dict[str, Any]:
    """FACE line written → the Café game's roll action, journal write and the frame drawn."""
    from companion.games.crazy_cafe.timer import act

    parent, app = box_with_sensor(journal=True)
    frames: list[tuple[float, tuple]] = []
    shown = threading.Condition()

    def on_frame(_image: Any) -> None:  # on the loop thread: the faces this frame shows
        with shown:
            frames.append((time.monotonic(), app.play.session.state.faces if app.play.session else ()))
            shown.notify_all()

    writes = [0]
    run_ops = app.play.journal._run

    def counted(op: Any) -> None:
        writes[0] += 1
        run_ops(op)

    def on_the_game() -> None:  # a Double Trouble screen over the clock: back to the clock
        while app.stack.screens[-1] is not app.stack.game_root:
            app.table.pop()

    app.play.journal._run = counted
    app.panel.frame_listeners.append(on_frame)
    setup = {"type": "setup", "round_seconds": 600, "dice": "sensor"}  # the longest round
    app.events.put(Call(lambda: app.table.games.start("cafe", setup)))
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    faces: dict[int, str] = {}
    for die, kind in enumerate(KINDS):  # every die read before the round starts
        faces[die] = faces_of(kind)[0]
        parent.send(("face", die, faces[die]))
        parent.recv()
    time.sleep(0.3)
    app.events.put(Call(lambda: act(app.table, {"type": "round_start", "at": app.clock.now()})))
    time.sleep(0.1)
    rng = random.Random(4)
    latencies, missed, writes_before = [], 0, writes[0]
    for _ in range(samples):
        app.events.put(Call(on_the_game))
        die = rng.randrange(len(KINDS))
        face = rng.choice([f for f in faces_of(KINDS[die]) if f != faces[die]])
        faces[die] = face  # a new face each time, so each reading changes the frame
        parent.send(("face", die, face))
        written = parent.recv()
        with shown:
            if shown.wait_for(lambda die=die, face=face: frames and frames[-1][1][die] == face, 1.0):
                latencies.append((frames[-1][0] - written) * 1000)
            else:
                missed += 1
        time.sleep(rng.uniform(0.005, 0.02))
    parent.send(("quit",))
    parent.recv()
    app.events.put(Stop("bench done"))
    loop.join(5)
    app.shutdown()
    return {"samples": len(latencies), "missed": missed,
            "journal_writes": writes[0] - writes_before,
            "p50": round(percentile(latencies, 50), 2), "p99": round(percentile(latencies, 99), 2),
            "max": round(max(latencies), 2), "target_p99": 20,
            "ok": percentile(latencies, 99) < 20 and not missed}


def bench_link(samples: int, replugs: int) -> dict[str, Any]:
    parent, app = box_with_sensor()
    probe = Probe(app.table)
    app.events.put(Call(lambda: app.table.push(probe)))
    loop = threading.Thread(target=app.run, daemon=True)
    loop.start()
    probe.wait(lambda: probe.online)
    rng = random.Random(3)
    for die, kind in enumerate(KINDS):  # every die read once, so each FACE completes a set
        parent.send(("face", die, faces_of(kind)[0]))
        parent.recv()
    probe.wait(lambda: probe.settled)
    time.sleep(0.3)  # let the last of these first sets arrive before timing starts
    latencies = []
    for _ in range(samples):
        die = rng.randrange(len(KINDS))
        face = rng.choice(faces_of(KINDS[die]))
        before = len(probe.settled)
        parent.send(("face", die, face))
        written = parent.recv()
        probe.wait(lambda before=before: len(probe.settled) > before)
        seen, faces = probe.settled[-1]
        assert faces[die] == face
        latencies.append((seen - written) * 1000)
        time.sleep(rng.uniform(0.005, 0.02))
    reconnects = []
    for _ in range(replugs):
        online_before = len(probe.online)
        parent.send(("unplug",))
        parent.recv()
        time.sleep(0.5)  # the cable stays out a moment: the link is retrying with back-off
        parent.send(("plug",))
        plugged = parent.recv()
        probe.wait(lambda n=online_before: len(probe.online) > n)
        reconnects.append(probe.online[-1] - plugged)
    parent.send(("quit",))
    parent.recv()
    app.events.put(Stop("bench done"))
    loop.join(5)
    app.shutdown()
    return {
        "latency_ms": {
            "samples": samples, "p50": round(percentile(latencies, 50), 2),
            "p99": round(percentile(latencies, 99), 2), "max": round(max(latencies), 2),
            "target_p99": 20, "ok": percentile(latencies, 99) < 20,
        },
        "reconnect_s": {
            "replugs": replugs, "median": round(statistics.median(reconnects), 3),
            "max": round(max(reconnects), 3), "target": 2.0, "ok": max(reconnects) < 2.0,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--replugs", type=int, default=5)
    parser.add_argument("--no-game", action="store_true", help="leave out the Café game's path")
    args = parser.parse_args()
    result = {"parse": bench_parse(args.lines), "parse_v1": bench_parse(args.lines, version=1),
              **bench_link(args.samples, args.replugs)}
    if not args.no_game:
        result["game_latency_ms"] = bench_game(args.samples)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
