"""``companion sensor-sim``: a virtual dice sensor on a pseudo-terminal."""

from __future__ import annotations

import argparse
import contextlib
import math
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from companion.files import textfiles
from companion.games.catalog import dice_sets
from firmware_bridge.faces import kinds_of
from firmware_bridge.virtual import VirtualSensor, check_script, random_play, run_script


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sensor-sim", help="a virtual dice sensor on a pseudo-terminal",
        description="Speak the dice-sensor protocol on a new pseudo-terminal and print its path; "
        "point [sensor] port in the config (or the box) at it. Without --script the dice are "
        "thrown every --every seconds; a script (see docs/sensor.md) sets faces, unplugs, "
        "injects noise. Ctrl-C stops it.",
    )
    sets = dice_sets()
    first = next(iter(sets), "yellow,yellow,blue,blue")
    parser.add_argument("--kinds", default=first,
                        help=f"the dice: {' or '.join(sets)}, or a list like yellow,blue "
                        f"(default {first})")
    parser.add_argument("--link", help="keep a symlink at this path to the current pty "
                        "(stable across unplug/replug, like /dev/serial/by-id)")
    parser.add_argument("--script", help="commands from this file, or - for standard input")
    parser.add_argument("--seed", type=int, help="seed the random faces for a repeatable run")
    parser.add_argument("--every", type=_seconds(0.0), default=4.0,
                        help="seconds between random throws without a script; 0 for none")
    parser.add_argument("--heartbeat", type=_seconds(0.01), default=1.0,
                        help="seconds between heartbeats")
    parser.add_argument("--id", default="VIRTUAL-0001", help="the sensor's unique id")
    parser.set_defaults(handler=handle)


def _seconds(low: float) -> Callable[[str], float]:
    """An argparse type: a finite number of seconds from ``low`` to an hour."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= 3600):
            raise argparse.ArgumentTypeError(f"{text!r}: seconds from {low:g} to 3600")
        return value
    return parse


def _fail(message: str) -> int:
    print(f"companion sensor-sim: {message}", file=sys.stderr)
    return 2


def handle(args: argparse.Namespace) -> int:
    try:
        kinds = kinds_of(args.kinds, dice_sets())
    except ValueError as exc:
        return _fail(f"--kinds: {exc}")
    lines = None
    if args.script and args.script != "-":
        try:
            lines = textfiles.read_text(args.script).splitlines()
        except textfiles.TooLarge as exc:
            return _fail(str(exc))
        except OSError as exc:
            return _fail(f"cannot read {args.script}: {exc.strerror}")
        except UnicodeDecodeError:
            return _fail(f"{args.script} is not UTF-8 text")
        wrong = check_script(lines, kinds)
        if wrong is not None:
            return _fail(f"{args.script}:{wrong[0]}: {wrong[1]}")
    if args.link and not Path(args.link).parent.is_dir():
        return _fail(f"--link {args.link}: no folder {Path(args.link).parent}")
    sensor = VirtualSensor(kinds, link=args.link, heartbeat_s=args.heartbeat, sensor_id=args.id,
                           seed=args.seed)
    try:
        path = sensor.plug()
    except OSError as exc:
        sensor.close()
        return _fail(f"--link {args.link}: cannot make a link there ({exc.strerror})")
    _say(f"sensor-sim: {path}" + (f" (link {args.link})" if args.link else ""))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # stop cleanly: the symlink goes too
    try:
        if args.script == "-":
            run_script(sensor, sys.stdin, _say)
            return 0
        if lines is not None and not run_script(sensor, lines, _say):
            return 0
        if lines is None and args.every > 0:
            threading.Thread(target=random_play, args=(sensor, args.every, stop), daemon=True).start()
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
        return 0
    finally:
        stop.set()
        sensor.close()


def _say(text: str) -> None:
    """Print a line at once: a test or a script reading our output waits for it."""
    print(text, flush=True)
