"""What the last first boot did with ``companion.txt``, as the data partition keeps it: the
file's digest (an unchanged file is not applied again) and that of Raspberry Pi Imager's files
beside it, the problems and notices. The box's
start, ``companion doctor`` and the phone page read it to tell the owner what to fix."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

NAME = "firstboot.json"
DEFAULT = Path("/var/lib/companion") / NAME
MAX_READ = 256 * 1024  # far above what MAX_PROBLEMS lines make


@dataclass(frozen=True)
class Report:
    sha256: str
    problems: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    imager: str | None = None  # the digest of Raspberry Pi Imager's files beside it, if any


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read(path: Path) -> Report | None:
    """The report, or None when there is none (or it is unreadable: the next boot rewrites it)."""
    try:
        with open(path, "rb") as file:
            found = json.loads(file.read(MAX_READ))
        imager = found.get("imager")
        return Report(str(found["sha256"]), [str(p) for p in found.get("problems", [])],
                      [str(n) for n in found.get("notices", [])],
                      str(imager) if imager is not None else None)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def in_state_dir(state_dir: Path | None) -> Report | None:
    return read(state_dir / NAME) if state_dir else None




def write(path: Path, report: Report, write_file: Callable[[Path, bytes], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = {"sha256": report.sha256, "problems": report.problems, "notices": report.notices}
    if report.imager is not None:
        kept["imager"] = report.imager
    write_file(path, (json.dumps(kept, ensure_ascii=False, indent=1) + "\n").encode())
