"""What root runs on the box: the updater and the first boot's settings, from a fixed copy.

Root never runs a release's code. ``systemd/install.sh`` copies the few modules root needs
(:data:`MODULES`, with this file as the copy's ``__main__.py``) onto the root filesystem, in
:data:`COPY`, where no update reaches; the units run them with the distribution's Python in
isolated mode, ``/usr/bin/python3 -I /usr/lib/companion/privileged update ...``: no slot's
site-packages, no ``.pth`` file, no ``PYTHON*`` variable, nothing from the working directory.
The signatures are checked with the distribution's python3-cryptography. What a release
brings runs only as ``companion``: the box itself, and pip while its slot is built.

The copy changes with the image (or a new ``install.sh``), never with an update: a fix to the
updater reaches a box by a new image or by running install.sh again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

COPY = Path("/usr/lib/companion/privileged")
# The package's files the copy holds (systemd/install.sh copies them): the updater's modules
# and the first boot's, and what they import. tests/test_privileged.py checks the list is whole.
MODULES = (
    "companion/__init__.py",
    "companion/appliance/__init__.py",
    "companion/appliance/update.py",
    "companion/appliance/lockfile.py",
    "companion/appliance/slotbuild.py",
    "companion/appliance/plugins.py",
    "companion/appliance/plugin_install.py",
    "companion/appliance/release.py",
    "companion/appliance/signing.py",
    "companion/appliance/slots.py",
    "companion/appliance/spool.py",
    "companion/appliance/journal_merge.py",
    "companion/journal/__init__.py",
    "companion/journal/schema.py",
    "companion/appliance/durable.py",
    "companion/appliance/firstboot.py",
    "companion/appliance/firstboot_report.py",
    "companion/appliance/imager.py",
    "companion/appliance/network.py",
    "companion/appliance/settings_file.py",
)
STATE_DIR = Path("/var/lib/companion")


def add_update_actions(parser: argparse.ArgumentParser) -> argparse._MutuallyExclusiveGroup:
    """The updater's privileged actions, as ``companion update`` names them too."""
    parser.add_argument("release", nargs="?", type=Path, help="a .release file")
    parser.add_argument("--allow-downgrade", action="store_true",
                        help="install (or pass --verify) a version older than the one running")
    parser.add_argument("--keys", type=Path, metavar="DIR",
                        help="the public keys to trust (default /etc/companion/update-keys)")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--rollback", action="store_true", help="go back to the kept version")
    actions.add_argument("--boot-check", action="store_true",
                         help="at boot: roll back an update that was cut off (run by "
                         "companion-update-check.service)")
    actions.add_argument("--spool", metavar="DIR", type=Path,
                         help="install the release files handed over in DIR (run by "
                         "companion-update.service for the phone page)")
    actions.add_argument("--plugin", metavar="FILE.whl", type=Path,
                         help="install a game plugin's wheel into the running version and keep "
                         "it for every update (docs/games.md)")
    return actions


def _run_name(args: argparse.Namespace) -> str:
    """The run, as the first line of its section of the updater's log names it."""
    for action in ("plugin", "boot_check", "rollback", "spool"):
        if getattr(args, action):
            return "update --" + action.replace("_", "-")
    return f"update {args.release}"


def run_update(args: argparse.Namespace, state_dir: Path, prefix: Path | None = None) -> int:
    """Install, roll back, check at boot or take the spool, as ``args`` says; 1 and the
    reason when it cannot, 2 when nothing was named."""
    from companion.appliance import plugin_install, plugins, release, signing, slotbuild, slots, spool, update

    layout = slots.Layout(prefix) if prefix else slots.Layout()
    # Kept on the data partition too (the system's journal is in memory on the image).
    log = spool.UpdateLog(layout.prefix, _run_name(args))

    def say(line: str) -> None:
        # Each step as it comes: under systemd stdout is a pipe to the journal, which Python
        # buffers, so `journalctl -u companion-update -f` would show nothing until the end.
        print(line, flush=True)
        log(line)

    try:
        keys = signing.trusted_keys(args.keys or signing.KEYS_DIR)
        if args.plugin:
            say(plugin_install.install(args.plugin, layout=layout))
        elif args.boot_check:
            if update.boot_check(layout=layout, say=say, state_dir=state_dir):
                spool.keep_cut_log(layout.prefix)  # for companion doctor
        elif args.rollback:
            update.rollback(layout=layout, state_dir=state_dir, say=say)
        elif args.spool:
            for line in spool.take_spooled(args.spool, state_dir, layout=layout, keys=keys,
                                            say=say):
                say(line)
        elif args.release:
            update.install(args.release, state_dir, layout=layout, keys=keys,
                           allow_downgrade=args.allow_downgrade, say=say)
        else:
            print("companion update: name a release file, or --rollback (see --help)",
                  file=sys.stderr)
            return 2
    except (update.UpdateError, release.ReleaseError, signing.SignatureError,
            plugins.PluginError, slotbuild.BuildUserError, OSError) as exc:
        print(f"companion update: {exc}", file=sys.stderr)
        log(f"companion update: {exc}")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="companion-privileged",
        description="What root runs on the box, from the copy on the root filesystem: the "
        "updater (update) and the first boot's settings (firstboot). See docs/update.md.")
    commands = parser.add_subparsers(dest="command", required=True)
    updater = commands.add_parser("update", help="install a release file, go back, or check "
                                  "at boot (as companion update)")
    add_update_actions(updater)
    updater.add_argument("--state-dir", type=Path, default=STATE_DIR,
                         help=f"where the journal is (default {STATE_DIR})")
    updater.add_argument("--prefix", type=Path,
                         help="where the slots are (default /opt/companion)")
    commands.add_parser("firstboot", add_help=False,
                        help="apply companion.txt (as python -m companion.appliance.firstboot)")
    args, rest = parser.parse_known_args(argv)
    if args.command == "firstboot":
        from companion.appliance import firstboot

        return firstboot.main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return run_update(args, args.state_dir, args.prefix)


if __name__ == "__main__":
    sys.exit(main())
