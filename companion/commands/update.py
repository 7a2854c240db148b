"""``companion update``: install a release file beside the running version, or go back."""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

from companion.box.boot import resolve_state_dir
from companion.commands.run import load_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "update", help="install a release file (A/B, rolls back by itself), or --rollback",
        description="Install a release file beside the running version and switch to it; if "
        "the new version does not report READY, the box goes back by itself. Run as root "
        "(sudo). Every game is kept. See docs/update.md.")
    parser.add_argument("release", nargs="?", type=Path, help="a .release file")
    parser.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--rollback", action="store_true",
                         help="go back to the kept version")
    actions.add_argument("--build-release", metavar="DIR", type=Path,
                         help="build a release file from this checkout into DIR (network)")
    actions.add_argument("--boot-check", action="store_true",
                         help="at boot: roll back an update that was cut off (run by "
                         "companion-update-check.service)")
    actions.add_argument("--spool", metavar="DIR", type=Path,
                         help="install the release files handed over in DIR (run by "
                         "companion-update.service for the phone page)")
    parser.add_argument("--machine", default=platform.machine(),
                        help="with --build-release: aarch64 (the Pi, default here: "
                        f"{platform.machine()}) or x86_64")
    parser.add_argument("--wheels", type=Path, metavar="DIR",
                        help="with --build-release: take the wheels from DIR instead of PyPI")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from companion.appliance import release, update

    try:
        if args.build_release:
            print(release.build_release(args.build_release, args.machine, wheels=args.wheels))
        elif args.boot_check:
            update.boot_check()
        elif args.rollback:
            update.rollback()
        else:
            state_dir = resolve_state_dir(load_config(args.config), None, sim=False)
            if args.spool:
                for line in update.take_spooled(args.spool, state_dir):
                    print(line)
            elif args.release:
                update.install(args.release, state_dir)
            else:
                print("companion update: name a release file, or --rollback (see --help)",
                      file=sys.stderr)
                return 2
    except (update.UpdateError, release.ReleaseError, OSError) as exc:
        print(f"companion update: {exc}", file=sys.stderr)
        return 1
    return 0
