"""``companion screenshot``: render named screens of the simulated box to PNG files."""

from __future__ import annotations

import argparse
import fcntl
import shutil
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import IO

from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens, run_steps


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "screenshot", help="render named screens to PNG",
        description="Walk a fresh simulated box to each named screen and save it as PNG.",
    )
    parser.add_argument("names", nargs="*", help="screen names (default: all; see --list)")
    parser.add_argument("--out", default=".", help="folder for the PNG files (default: here)")
    parser.add_argument("--scale", type=int, default=1, help="enlarge pixels N times")
    parser.add_argument("--list", action="store_true", help="list the screen names and exit")
    parser.set_defaults(handler=handle)


# A fixed place, so screens that show the state directory look the same on every machine.
SCREENS_STATE_DIR = Path(tempfile.gettempdir()) / "companion-screens"


def render(name: str, steps: tuple[str, ...]) -> SimBox:
    """A fresh box (empty journal, fixed seed) walked to ``name``; the caller closes it.

    The state directory is the same on every machine, so two processes rendering the same
    screen at once (two test runs) take turns: one would delete the other's journal."""
    state_dir = SCREENS_STATE_DIR / name
    turn = _take_turn(SCREENS_STATE_DIR / f"{name}.lock")
    shutil.rmtree(state_dir, ignore_errors=True)
    box = SimBox(state_dir, seed=7)
    weakref.finalize(box, turn.close)  # the turn ends when the box is closed and dropped
    close = box.close

    def close_and_end_turn() -> None:
        close()
        turn.close()

    box.close = close_and_end_turn  # type: ignore[method-assign]  # this one box ends its turn
    run_steps(box, steps)
    return box


def _take_turn(lock: Path, wait_s: float = 30.0) -> IO[bytes]:
    """An exclusive lock on ``lock`` (waiting at most ``wait_s``, then going ahead)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    handle = open(lock, "ab")  # noqa: SIM115 (held until the box is closed)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except OSError:
            if time.monotonic() > deadline:
                return handle
            time.sleep(0.05)


def handle(args: argparse.Namespace) -> int:
    screens = named_screens()
    if args.list:
        print("\n".join(screens))
        return 0
    unknown = [n for n in args.names if n not in screens]
    if unknown:
        print(f"companion screenshot: unknown screen {unknown[0]!r}; see --list", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.names or screens:
        box = render(name, screens[name])
        path = out / f"{name}.png"
        box.display.save_png(str(path), args.scale)
        box.close()
        print(path)
    return 0
