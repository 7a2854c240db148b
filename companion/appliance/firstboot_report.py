"""What the last first boot did with ``companion.txt``, as the data partition keeps it: the
file's digest (an unchanged file is not applied again) and that of Raspberry Pi Imager's files
beside it, the problems and notices. The box's
start, ``companion doctor`` and the phone page read it to tell the owner what to fix. Beside
it, ``firstboot.sha256``: the digests first boot's unit checks before it starts any Python."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .durable import write_durably

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


def stamp_path(report: Path) -> Path:
    """Beside the report: the digests of what the last run left (``firstboot.sha256``)."""
    return report.with_suffix(".sha256")


def watched(settings: Path, report: Path, beside: tuple[str, ...]) -> list[Path]:
    """The files whose change makes first boot apply the settings again: the settings, a
    replacement of them a power cut left, the files ``beside`` them (Imager's) and the report.
    The unit's ``ExecCondition=`` hashes the same paths, in this order."""
    return [settings, settings.with_name(settings.name + ".new"),
            *(settings.with_name(name) for name in beside), report]


def write_stamp(settings: Path, report: Path, beside: tuple[str, ...], root: Path) -> None:
    """The digests of the :func:`watched` files there are (under ``root``), as ``sha256sum``
    prints them in ``/``, beside the report: the unit compares them (``cmp``) and starts no
    Python while they are the same."""
    lines = []
    for path in watched(settings, report, beside):
        with contextlib.suppress(FileNotFoundError):
            data = (root / path.relative_to("/")).read_bytes()
            lines.append(f"{digest(data)}  {path.relative_to('/')}\n")
    write_durably(root / stamp_path(report).relative_to("/"), "".join(lines).encode())
