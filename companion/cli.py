"""The ``companion`` command: run the box, simulate it, take screenshots, replay games."""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys

from . import __version__, commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: referee, timer and solo opponent for three dice games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(subparsers)
    return parser


def add_common(parser: argparse.ArgumentParser) -> None:
    """Options every box-running command shares."""
    parser.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    parser.add_argument("--state-dir", help="where the journal lives (default from config; "
                        "the simulator uses ~/.local/state/companion)")


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    args = build_parser().parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
