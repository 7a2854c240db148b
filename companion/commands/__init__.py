"""CLI subcommands. Each module here defines ``register(subparsers)``; the CLI loads them all.
The options the box-running commands share are here too."""

from __future__ import annotations

import argparse


def add_common(parser: argparse.ArgumentParser) -> None:
    """Options every box-running command shares."""
    parser.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    parser.add_argument("--state-dir", help="where the journal lives (default from config; "
                        "the simulator uses ~/.local/state/companion)")
