"""Smart dice (Bluetooth LE) figures on the host: the notification parser's rate.

- parse: Pixels and GoDice notifications a second through ``firmware_bridge.smart_dice``
  (a mix as a table of dice sends them: rolling, settled, battery), on wall time and on this
  process's CPU time; the median of 5 passes.

    python bench/ble_dice.py [--messages 200000] [--json]

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import struct
import time
from typing import Any

from firmware_bridge.smart_dice import PARSERS, Settled

_GODICE_FACE_VECTORS = [(-64, 0, 0), (0, 0, 64), (0, 64, 0), (0, -64, 0), (0, 0, -64), (64, 0, 0)]


def notifications(count: int, seed: int = 1) -> list[tuple[str, bytes]]:
    """``count`` notifications from two makes of dice, as rolls send them."""
    rng = random.Random(seed)
    out: list[tuple[str, bytes]] = []
    for n in range(count):
        step = n % 4
        if n % 2:
            godice = [b"R", b"S" + struct.pack("bbb", *rng.choice(_GODICE_FACE_VECTORS)),
                      b"R", b"Bat" + bytes([rng.randrange(101)])][step]
            out.append(("godice", godice))
        else:
            pixels = [bytes([3, 3, 0]), bytes([3, 1, rng.randrange(6)]), bytes([3, 3, 0]),
                      bytes([34, rng.randrange(101), 0])][step]
            out.append(("pixels", pixels))
    return out


def bench_parse(messages: int, repeats: int = 5) -> dict[str, Any]:
    sent = [(PARSERS[make], data) for make, data in notifications(messages)]
    wall, cpu = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        faces = sum(isinstance(parse(data), Settled) for parse, data in sent)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert faces == messages // 4, faces
    return {
        "messages": messages,
        "messages_per_s_wall_best": round(messages / min(wall)),
        "messages_per_s_wall_median": round(messages / statistics.median(wall)),
        "messages_per_s_cpu_median": round(messages / statistics.median(cpu)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000, help="notifications parsed a pass")
    parser.add_argument("--quick", action="store_true", help="20,000 notifications (CI)")
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    args = parser.parse_args(argv)
    figures = {"parse": bench_parse(20_000 if args.quick else args.messages)}
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
