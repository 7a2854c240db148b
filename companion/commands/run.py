"""``companion run``: the box on its hardware (or ``--sim``), until SIGTERM."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from companion.appliance.slots import on_trial, state_dir_for_run
from companion.box.boot import build_app, resolve_state_dir
from companion.box.events import Stop
from companion.box.notify import Notifier, supervise
from companion.commands import add_common
from companion.games import box_config as config_module

if TYPE_CHECKING:  # the app and its games' screens load after the first frame (build_app)
    from companion.box.app import App

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run the box (real hardware, or --sim)",
                                   description="Run the box until stopped (SIGTERM or Ctrl-C).")
    add_common(parser)
    parser.add_argument("--sim", action="store_true", help="simulated hardware, no display")
    parser.add_argument("--sim-io", metavar="DIR", type=Path,
                        help="with --sim: the panel's frames (DIR/frames) and the buttons (the "
                             "FIFO DIR/buttons, a button's name a line) as files")
    parser.set_defaults(handler=handle)


def load_config(path: str | None) -> config_module.Config:
    """Load the config or exit with its one-line message."""
    try:
        return config_module.load(path, required=path is not None)
    except config_module.ConfigError as exc:
        print(f"companion: config error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def handle(args: argparse.Namespace) -> int:
    from hardware.device import HardwareError

    if args.sim_io and not args.sim:
        print("companion: --sim-io needs --sim (the real panel and buttons are not files)",
              file=sys.stderr)
        return 2
    if args.sim_io and not args.sim_io.is_dir():
        print(f"companion: --sim-io {args.sim_io}: no such folder", file=sys.stderr)
        return 2
    try:
        cfg = load_config(args.config)
    except SystemExit:
        if not args.sim:
            show_on_default_panel("Config error", "Fix config.toml; run: companion doctor")
        raise
    try:
        # Right after an update, its first start runs on a copy of the journal (docs/update.md).
        state_dir = state_dir_for_run(resolve_state_dir(cfg, args.state_dir, args.sim))
        app = build_app(cfg, sim=args.sim, state_dir=state_dir, stand_in=args.sim_io,
                        splash=True)
    except HardwareError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 3
    stop_on_signals(app)
    notifier = Notifier.from_environ()
    app.start()
    if on_trial() and not app.table.journal_ok:
        # READY tells the updater this version is healthy: not while its journal cannot be
        # written (play only in memory) or is in a schema it does not know. The update goes
        # back; outside one, the box plays on and says so (docs/journal.md).
        status = app.play.journal.status.reason if app.play.journal else "no journal"
        print(f"companion: not READY on trial: the journal cannot be written ({status})",
              file=sys.stderr)
        app.shutdown()
        return 1
    supervise(app, notifier)  # READY=1 now that the first frame is on the panel
    log.info("box running; state in %s", app.table.state_dir)
    app.run()
    notifier.stopping("closing the journal")
    app.shutdown()
    notifier.close()
    return 0


def stop_on_signals(app: App, signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> None:
    """Each of ``signals`` asks the loop to stop (the journal is closed on the way out)."""
    for signum in signals:
        signal.signal(signum, lambda number, _frame: app.events.put(Stop(signal.Signals(number).name)))


def show_on_default_panel(title: str, message: str) -> None:
    """Best effort: tell the table why the box is not starting, on a panel at the default
    address, since a box that exits with a blank screen looks dead."""
    from companion.frame.canvas import Canvas, compose
    from hardware.device import open_oled
    from hardware.display import OledDisplay

    try:
        display = OledDisplay(open_oled(config_module.parse({}).display))
        def body(canvas: Canvas) -> None:
            canvas.paragraph(message, 1)

        display.show(compose(title, "", "", body))
        display.close()
    except Exception as exc:  # no panel there either: stderr already has the message
        log.debug("no panel for the error message: %s", exc)
