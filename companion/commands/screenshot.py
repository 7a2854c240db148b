"""``companion screenshot``: render named screens of the simulated box to PNG files."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

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
    """A fresh box (empty journal, fixed seed) walked to ``name``; the caller closes it."""
    state_dir = SCREENS_STATE_DIR / name
    shutil.rmtree(state_dir, ignore_errors=True)
    box = SimBox(state_dir, seed=7)
    run_steps(box, steps)
    return box


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
        box.app.hardware.display.save_png(str(path), args.scale)
        box.close()
        print(path)
    return 0
