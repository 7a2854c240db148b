"""``companion web``: serve the phone page (live game, history, roster) on the local network;
the command itself is :mod:`companion.web.command`."""

from __future__ import annotations

import argparse

from companion.web.command import DESCRIPTION, add_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("web", help="serve the phone page: live game, history and "
                                   "roster", description=DESCRIPTION)
    add_arguments(parser)
