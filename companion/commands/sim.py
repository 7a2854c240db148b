"""``companion sim``: the interactive simulator in a terminal."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys

from companion.box.boot import build_app
from companion.commands import add_common
from companion.commands.run import load_config
from companion.simulator.terminal import (
    COMPACT_SIZE,
    KeyPresser,
    RawTerminal,
    TerminalPanel,
    app_keyboard,
    rendering_for,
)
from hardware.buzzer import RecordingBuzzer
from hardware.sim import SimDisplay


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "sim", help="interactive simulator in this terminal",
        description="The box on simulated hardware: the OLED drawn in the terminal at its real "
        "128×64 pixels when it has 130×37 characters, in braille (2×4 pixels a character) in a "
        "smaller one down to 66×20; keys press the five buttons.",
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
    if rendering_for(columns, lines) is None:
        print(f"companion sim: the terminal is {columns}×{lines}; make it at least "
              f"{COMPACT_SIZE[0]}×{COMPACT_SIZE[1]} characters", file=sys.stderr)
        return 2
    cfg = load_config(args.config)
    app = build_app(cfg, sim=True, state_dir=args.state_dir, seed=args.seed)
    panel = TerminalPanel()
    display, buzzer = app.hardware.display, app.hardware.buzzer
    if not isinstance(display, SimDisplay) or not isinstance(buzzer, RecordingBuzzer):
        raise TypeError("build_app(sim=True) builds the simulated display and buzzer")
    display.listeners.append(panel.paint)
    buzzer.listeners.append(
        lambda pattern: panel.set_status(f"♪ {pattern}" + ("\a" if pattern == "alarm" else ""))
    )
    fd = sys.stdin.fileno()
    presser = KeyPresser(app)
    keyboard = app_keyboard(app, presser, fd)
    with RawTerminal(fd):
        app.start()
        keyboard.start()
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: SIGINT in cbreak mode
            app.run()
        keyboard.stopped.set()
        presser.lift()  # a held button would keep gpiozero's hold thread waiting at close
        app.shutdown("Simulator stopped")
    print(f"Journal kept in {app.table.state_dir}")
    return 0
