"""The ``companion`` command: run the box, simulate it, take screenshots, replay games, and
each game's own commands."""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys

from . import __version__, commands


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with ``command`` alone when it names one: a command's
    module (and all it imports) is loaded only when that command runs."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: referee, timer and solo opponent for dice games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = {info.name: f"{commands.__name__}.{info.name}"
               for info in pkgutil.iter_modules(commands.__path__)}
    if command not in modules:  # a game's own command, or the whole list: read the games
        from .games.catalog import GAMES

        for spec in GAMES.values():  # the box's commands keep their names
            modules = {**spec.commands, **modules}
    for name in [command] if command in modules else sorted(modules):
        importlib.import_module(modules[name]).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    words = sys.argv[1:] if argv is None else argv
    # The first word that is not an option names the command (the top level has no option
    # that takes a value); --help, --version or an unknown command get the whole list.
    command = next((word for word in words if not word.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    return int(args.handler(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
