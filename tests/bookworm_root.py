"""A Debian bookworm root filesystem for the installer's tests, built once with mmdebstrap.

The tarball is cached under ``$XDG_CACHE_HOME/table-companion`` (or ``~/.cache``), keyed on
the package list, so only the first run on a machine downloads Debian's packages (about
a minute); ``python -m tests.bookworm_root`` builds it ahead of the tests (`.ci/run` does).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

SUITE = "bookworm"
# What the image has that the installer and `systemd-analyze verify` look at.
PACKAGES = ("systemd", "python3", "python3-venv", "avahi-daemon", "wpasupplicant", "tzdata")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "table-companion"


def tarball() -> Path:
    key = hashlib.sha256(f"{SUITE} {' '.join(sorted(PACKAGES))}".encode()).hexdigest()[:12]
    return cache_dir() / f"rootfs-{SUITE}-{key}.tar"


def build() -> Path:
    """The cached tarball, made first if missing (needs root and mmdebstrap)."""
    target = tarball()
    if target.exists():
        return target
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap is not installed (apt-get install mmdebstrap)")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    subprocess.run(["mmdebstrap", "--variant=apt", "--quiet", "--format=tar",
                    f"--include={','.join(PACKAGES)}", SUITE, str(partial)], check=True)
    partial.rename(target)
    return target


def unpack(into: Path) -> Path:
    """A fresh copy of the root filesystem in ``into``."""
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-xf", str(build()), "-C", str(into)], check=True)
    return into


if __name__ == "__main__":
    print(build())
    sys.exit(0)
