"""``companion web`` (and ``python -m companion.web``, which the service runs): serve the phone
page (live game, history, roster) on the local network."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.contract.config import ConfigError
from companion.games import box_config
from companion.records import pairing

INSTALL = "the phone page needs the web extra: pip install 'table-companion[web]'"


DESCRIPTION = (
    "Serve the phone page, a second screen for the table: the game being played, the history "
    "and stats with their downloads, the roster and the settings. It reads the box's journal "
    "beside the box and writes only roster changes, paired phones and settings; it never plays. "
    "Phones pair with the PIN or QR code of "
    "the box's Home → Phone screen; run on a terminal, it also prints an address whose token "
    "pairs one phone within 15 minutes (never under systemd, whose log others may read).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``companion web`` (also ``python -m companion.web``, which the service runs:
    it loads the web page's modules only, not every command's)."""
    parser.add_argument("--config", help="config file for the [web] section "
                        "(default /etc/companion/config.toml)")
    parser.add_argument("--state-dir", help="the box's state directory (default: "
                        "/var/lib/companion when it holds a journal, else the simulator's)")
    parser.add_argument("--listen", metavar="HOST:PORT",
                        help="address and port to listen on (default from [web]: 0.0.0.0:8080); "
                        "under systemd socket activation the sockets it passes instead")
    parser.set_defaults(handler=handle)


def _fail(message: str) -> int:
    print(f"companion web: {message}", file=sys.stderr)
    return 2


def listen_address(given: str | None, host: str, port: int) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST`` or ``:PORT`` over the config's defaults; ValueError if bad."""
    if not given:
        return host, port
    name, colon, number = given.rpartition(":")
    if not colon:
        return given.strip("[]"), port
    if not number.isdecimal() or not 0 < int(number) < 65536:
        raise ValueError(f"--listen {given!r}: the port must be a number from 1 to 65535")
    return (name.strip("[]") or host), int(number)


def handle(args: argparse.Namespace) -> int:
    try:
        cfg = box_config.load(args.config, required=args.config is not None)
        host, port = listen_address(args.listen, cfg.web.listen, cfg.web.port)
    except (ConfigError, ValueError) as exc:
        return _fail(str(exc))
    try:
        from companion.web.serve import run, sockets_for
        from companion.web.server import build
    except ImportError:
        return _fail(INSTALL)
    if args.state_dir:
        where = Path(args.state_dir)
    else:  # the service always names it: the simulator's default loads the box's modules
        from companion.records.history import state_dir

        where = state_dir(None)
    # A token is shown only to a person at a terminal: under systemd this line would go to the
    # system journal, where anyone who may read it could pair a phone.
    terminal = sys.stdout.isatty()
    try:
        sockets = sockets_for(host, port)
    except OSError as exc:
        return _fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    app = build(where, cfg, start_token=terminal, config_path=args.config)
    address = pairing.page_address(sockets[0].getsockname()[1], host)
    if terminal:
        print(f"Phone page: {address}pair?token={app.state.pairing.start_token}", flush=True)
        print(f"(journal: {where}; the link pairs one phone, once, within 15 minutes)", flush=True)
    else:
        print(f"Phone page: {address} (pair a phone on the box: Home → Phone)", flush=True)
    run(app, sockets)
    return 0
