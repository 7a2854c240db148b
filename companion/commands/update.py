"""``companion update``: install a release file beside the running version, or go back."""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path
from typing import Any

from companion.appliance.privileged import add_update_actions, run_update
from companion.box.boot import resolve_state_dir
from companion.commands.run import load_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "update", help="install a release file (goes back by itself), or --rollback",
        description="Install a release file beside the running version and switch to it; if "
        "the new version does not report READY, the box goes back by itself. Run as root "
        "(sudo). Every game is kept. See docs/update.md.")
    parser.add_argument("--config", help="config file (default /etc/companion/config.toml)")
    actions = add_update_actions(parser)
    actions.add_argument("--build-release", metavar="DIR", type=Path,
                         help="build a release file from this checkout into DIR (network)")
    actions.add_argument("--verify", action="store_true",
                         help="check the release file (signature, machine, version, every "
                         "file's hash) without installing or running anything from it; exit "
                         "2 with the reason when it would be refused")
    actions.add_argument("--make-key", metavar="DIR", type=Path,
                         help="make a signing key pair in DIR: NAME.key (keep it private) and "
                         "NAME.pub (give it to image/build.sh --update-key)")
    parser.add_argument("--key", type=Path, metavar="FILE",
                        help="with --build-release: the private key to sign the release with")
    parser.add_argument("--name", default="release",
                        help="with --make-key: the key's name (default: release)")
    parser.add_argument("--machine", default=platform.machine(),
                        help="with --build-release: aarch64 (the Pi, default here: "
                        f"{platform.machine()}) or x86_64")
    parser.add_argument("--wheels", type=Path, metavar="DIR",
                        help="with --build-release: take the wheels from DIR instead of PyPI")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from companion.appliance import release, signing

    keys = signing.trusted_keys(args.keys or signing.KEYS_DIR)
    try:
        if args.make_key:
            for path in signing.make_key(args.make_key, args.name):
                print(path)
        elif args.build_release:
            if args.key is None:
                print("companion update: --build-release needs --key FILE (a release is signed; "
                      "make a key with --make-key DIR)", file=sys.stderr)
                return 2
            print(release.build_release(args.build_release, args.machine, wheels=args.wheels,
                                        key=args.key))
        elif args.verify:
            return verify(args, keys)
        else:
            # On the SD-card image root runs the copy on the root filesystem instead
            # (companion-update, docs/update.md): this one runs the installed release's code.
            return run_update(args, resolve_state_dir(load_config(args.config), None, sim=False))
    except (release.ReleaseError, signing.SignatureError, OSError) as exc:
        print(f"companion update: {exc}", file=sys.stderr)
        return 1
    return 0


def verify(args: argparse.Namespace, keys: list[Any]) -> int:
    """``--verify FILE``: 0 and what it holds, or 2 and why the box would refuse it."""
    from companion import __version__
    from companion.appliance import release

    if args.release is None:
        print("companion update: --verify needs a release file", file=sys.stderr)
        return 2
    try:
        manifest = release.read_release(args.release, None, keys, release.Expect(
            args.machine, __version__, args.allow_downgrade))
    except release.ReleaseError as exc:
        print(f"companion update: {exc}", file=sys.stderr)
        return 2
    print(f"{args.release.name}: {manifest['version']} for {manifest['machine']}, signed by "
          f"{manifest['signed_by']}, {len(manifest['files'])} files checked")
    return 0
