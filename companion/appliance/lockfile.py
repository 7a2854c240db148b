"""``requirements.lock``: every pinned dependency with its hashes, read and written here only.

The installer, the image's build, the updater, the release builder and the benchmarks all read
the lock through this module. It imports nothing outside Python's standard library, so the
system's ``python3`` runs it from the source tree before any venv exists::

    python3 -m companion.appliance.lockfile for-slot requirements.lock OUT   # the lock a slot installs
    python3 -m companion.appliance.lockfile version requirements.lock lgpio  # one pin's version
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = "requirements.lock"
# Built from source on the box's machine: PyPI has no aarch64 wheel of lgpio for cp311. The
# system's site-packages hold it (systemd/install.sh), shared by every slot.
SOURCE_ONLY = {"lgpio": "aarch64"}
HEADER = """\
# Table Companion's Python dependencies, pinned with their hashes (every wheel for aarch64,
# the Pi, and x86_64, the CI machines). Used by systemd/install.sh and the SD-card image.
# Refresh: python -m companion.appliance.release lock   (needs the network; commit the result)
"""
_PIN = re.compile(r'\s*([A-Za-z0-9_.-]+)==([^\s;]+)\s*(?:;\s*platform_machine\s*==\s*"(\w+)")?'
                  r"((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*")


class LockError(ValueError):
    """A lock file that cannot be read; the message names the line."""


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    machine: str | None  # None: every machine
    hashes: tuple[str, ...]

    def line(self) -> str:
        marker = f' ; platform_machine == "{self.machine}"' if self.machine else ""
        hashes = "".join(f" \\\n    --hash=sha256:{digest}" for digest in self.hashes)
        return f"{self.name}=={self.version}{marker}{hashes}\n"


def read_lock(path: Path) -> list[Pin]:
    """The pins of a lock file (continuation lines joined)."""
    text = path.read_text().replace("\\\n", " ")
    pins = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        found = _PIN.fullmatch(line)
        if not found:
            raise LockError(f"{path.name} line {number}: expected NAME==VERSION --hash=sha256:…")
        hashes = tuple(re.findall(r"sha256:([0-9a-f]{64})", found[4]))
        pins.append(Pin(found[1].lower(), found[2], found[3], hashes))
    return pins


def write_lock(path: Path, pins: list[Pin], header: str = HEADER) -> Path:
    path.write_text(header + "".join(pin.line() for pin in pins))
    return path


def pins_for(pins: list[Pin], machine: str) -> list[Pin]:
    """The pins that apply to ``machine``."""
    return [pin for pin in pins if pin.machine in (None, machine)]


def for_slot(lock: Path, into: Path) -> Path:
    """The lock a slot's venv installs: every pin but what is built from source (the system's
    copy serves every slot), each with its hashes."""
    return write_lock(into, [pin for pin in read_lock(lock) if pin.name not in SOURCE_ONLY],
                      header="")


def version_of(lock: Path, name: str) -> str:
    for pin in read_lock(lock):
        if pin.name == name.lower():
            return pin.version
    raise LockError(f"{lock.name} pins no {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m companion.appliance.lockfile",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True)
    slot = actions.add_parser("for-slot", help="write the lock a slot installs (no source-only pins)")
    slot.add_argument("lock", type=Path)
    slot.add_argument("out", type=Path)
    version = actions.add_parser("version", help="print the version the lock pins for NAME")
    version.add_argument("lock", type=Path)
    version.add_argument("name")
    args = parser.parse_args(argv)
    try:
        if args.action == "for-slot":
            for_slot(args.lock, args.out)
        else:
            print(version_of(args.lock, args.name))
    except (OSError, LockError) as exc:
        print(f"lockfile: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
