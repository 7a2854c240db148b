"""``companion sim``: the interactive simulator in a terminal."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys

from companion.boot import build_app
from companion.cli import add_common
from companion.commands.run import load_config
from companion.events import Stop
from companion.terminal import KeyboardFinger, RawTerminal, TerminalPanel


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sim", help="interactive simulator in this terminal",
        description="The box on simulated hardware: the OLED drawn in the terminal at 128×64 "
        "pixels (needs 130×37 characters), keys pressing the five buttons.",
    )
    add_common(parser)
    parser.add_argument("--seed", type=int, help="seed the box's dice for a repeatable session")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if not sys.stdin.isatty():
        print("companion sim: needs a terminal (for headless use try `companion screenshot` or "
              "`companion replay`)", file=sys.stderr)
        return 2
    columns, lines = shutil.get_terminal_size()
    if columns < 130 or lines < 37:
        print(f"companion sim: the terminal is {columns}×{lines}; make it at least 130×37 "
              "characters (the panel is drawn at its real 128×64 pixels)", file=sys.stderr)
        return 2
    cfg = load_config(args.config)
    app = build_app(cfg, sim=True, state_dir=args.state_dir, seed=args.seed)
    panel = TerminalPanel()
    display = app.hardware.display
    display.listeners.append(panel.paint)
    app.hardware.buzzer.listeners.append(
        lambda pattern: panel.set_status(f"♪ {pattern}" + ("\a" if pattern == "alarm" else ""))
    )
    fd = sys.stdin.fileno()
    finger = KeyboardFinger(app.hardware.extras["finger"], lambda: app.settings["long_press_s"],
                            lambda: app.post(Stop("quit")), fd)
    with RawTerminal(fd):
        app.start()
        finger.start()
        with contextlib.suppress(KeyboardInterrupt):
            app.run()
        finger.stopped.set()
        app.shutdown("Simulator stopped")
    print(f"Journal kept in {app.state_dir}")
    return 0
