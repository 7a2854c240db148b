"""Release files: the program and every pinned dependency as wheels, checked by their hashes.

A release file (``table-companion-VERSION-MACHINE.release``) is a tar archive holding

- ``release.json``: ``{"format": 1, "version": ..., "machine": ..., "python": "3.11",
  "files": {"wheels/NAME.whl": SHA256, ...}}``;
- ``requirements.lock``: the pinned dependencies it was built from;
- ``wheels/``: the project's wheel and one file per locked dependency for that machine.

``systemd/install.sh --wheels DIR`` and ``companion update FILE`` install from such a wheel
directory with pip offline (``--no-index --find-links``, ``--require-hashes``), so the box
never needs the network to install or update.

``python -m companion.appliance.release lock`` refreshes ``requirements.lock`` from ``pyproject.toml``
(network needed); ``python -m companion.appliance.release build`` (or ``companion update
--build-release``) builds a release file from the checkout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

FORMAT = 1
PYTHON = "3.11"  # Debian bookworm's python3
REPO = Path(__file__).resolve().parents[2]
LOCK_NAME = "requirements.lock"
# The wheel tags bookworm's glibc 2.36 accepts, newest first, per machine.
PLATFORMS = {
    machine: [f"manylinux_2_{minor}_{machine}" for minor in (36, 35, 34, 31, 28, 17)]
    + [f"manylinux2014_{machine}", f"linux_{machine}"]
    for machine in ("aarch64", "x86_64")
}
# Built from source on the box's machine: PyPI has no aarch64 wheel of lgpio for cp311.
SOURCE_ONLY = {"lgpio": "aarch64"}
# What building that source needs on the box's machine, pinned with it and with what they
# need in turn (pip runs offline there).
BUILD_TOOLS = {"setuptools": "aarch64", "wheel": "aarch64"}
LOCK_HEADER = """\
# Table Companion's Python dependencies, pinned with their hashes (every wheel for aarch64,
# the Pi, and x86_64, the CI machines). Used by systemd/install.sh and the SD-card image.
# Refresh: python -m companion.appliance.release lock   (needs the network; commit the result)
"""


class ReleaseError(Exception):
    """A release file or wheel directory that cannot be installed; the message says why."""


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


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_lock(path: Path) -> list[Pin]:
    """The pins of a lock file (continuation lines joined)."""
    text = path.read_text().replace("\\\n", " ")
    pins = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0]
        if not line.strip():
            continue
        found = re.fullmatch(
            r'\s*([A-Za-z0-9_.-]+)==([^\s;]+)\s*(?:;\s*platform_machine\s*==\s*"(\w+)")?((?:\s+--hash=sha256:[0-9a-f]{64})+)\s*',
            line)
        if not found:
            raise ReleaseError(f"{path.name} line {number}: expected NAME==VERSION --hash=sha256:…")
        hashes = tuple(re.findall(r"sha256:([0-9a-f]{64})", found[4]))
        pins.append(Pin(found[1].lower(), found[2], found[3], hashes))
    return pins


def pins_for(pins: list[Pin], machine: str) -> list[Pin]:
    return [pin for pin in pins if pin.machine in (None, machine)]


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                   check=True)


def _download(requirements: list[str], machine: str, into: Path, *, deps: bool) -> None:
    platform_args = [word for tag in PLATFORMS[machine] for word in ("--platform", tag)]
    _pip("download", "--dest", str(into), "--python-version", PYTHON, "--implementation", "cp",
         "--abi", "cp" + PYTHON.replace(".", ""), *platform_args,
         "--only-binary=:all:" if deps else "--no-deps", *requirements)


def project_requirements(repo: Path = REPO) -> list[str]:
    """The runtime dependencies and the phone page's (on the image it can be switched on)."""
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["web"]]


def _name_version(filename: str) -> tuple[str, str]:
    stem = filename.removesuffix(".tar.gz").removesuffix(".whl")
    name, version = stem.split("-")[:2]
    return name.lower().replace("_", "-"), version


def refresh_lock(repo: Path = REPO) -> Path:
    """Resolve for the Pi, pin those versions, and hash every file for both machines."""
    with tempfile.TemporaryDirectory() as scratch:
        hashes: dict[tuple[str, str], set[str]] = {}
        resolved = Path(scratch, "aarch64")
        _download(project_requirements(repo), "aarch64", resolved, deps=True)
        versions = dict(_name_version(path.name) for path in resolved.iterdir())
        versions.pop("setuptools", None)  # pinned below with the build tools
        for machine in PLATFORMS:
            target = Path(scratch, "pinned-" + machine)
            _download([f"{name}=={version}" for name, version in versions.items()], machine,
                      target, deps=False)
            for path in target.iterdir():
                hashes.setdefault(_name_version(path.name), set()).add(sha256(path))
        for name in SOURCE_ONLY:
            source = Path(scratch, "source-" + name)
            _pip("download", "--no-deps", "--no-binary=:all:", "--dest", str(source), name)
            for path in source.iterdir():
                versions[name] = _name_version(path.name)[1]
                hashes[(name, versions[name])] = {sha256(path)}
        tools = Path(scratch, "build-tools")
        _download(list(BUILD_TOOLS), "aarch64", tools, deps=True)  # wheel needs packaging
        build_only = {}
        for path in tools.iterdir():
            name, version = _name_version(path.name)
            if name in versions and name not in BUILD_TOOLS:
                continue  # a runtime dependency too: pinned for both machines already
            versions[name], build_only[name] = version, "aarch64"
            hashes[(name, version)] = {sha256(path)}
        only = {**SOURCE_ONLY, **build_only}
        pins = [Pin(name, version, only.get(name), tuple(sorted(hashes[(name, version)])))
                for name, version in sorted(versions.items())]
    lock = repo / LOCK_NAME
    lock.write_text(LOCK_HEADER + "".join(pin.line() for pin in pins))
    return lock


def build_wheels(into: Path, machine: str, repo: Path = REPO, *,
                 source_only: bool = True) -> list[Path]:
    """The project's wheel and every locked dependency for ``machine`` in ``into``; with
    ``source_only`` also the source of what PyPI has no wheel of (lgpio, which install.sh
    builds into the system's site-packages: a release leaves it out, every slot shares it)."""
    download_locked(into, machine, repo, source_only=source_only)
    project_wheel(into, repo)
    return sorted(into.iterdir())


def download_locked(into: Path, machine: str, repo: Path = REPO, *,
                    source_only: bool = True) -> None:
    into.mkdir(parents=True, exist_ok=True)
    pins = [pin for pin in pins_for(read_lock(repo / LOCK_NAME), machine)
            if source_only or pin.name not in SOURCE_ONLY]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as chosen:
        chosen.write("".join(pin.line().replace(f' ; platform_machine == "{machine}"', "")
                             for pin in pins))
    try:
        _download(["--require-hashes", "-r", chosen.name], machine, into, deps=False)
    finally:
        Path(chosen.name).unlink()


def project_wheel(into: Path, repo: Path = REPO) -> Path:
    """The project's own wheel, built from the checkout ``repo``."""
    _pip("wheel", "--no-deps", "--wheel-dir", str(into), str(repo))
    return next(into.glob("table_companion-*.whl"))


def project_version(repo: Path = REPO) -> str:
    return tomllib.loads((repo / "pyproject.toml").read_text())["project"]["version"]


def build_release(output_dir: Path, machine: str, repo: Path = REPO,
                  wheels: Path | None = None) -> Path:
    """A release file for ``machine`` in ``output_dir``; ``wheels`` reuses a wheel directory."""
    version = project_version(repo)
    with tempfile.TemporaryDirectory() as scratch:
        wheel_dir = wheels or build_wheels(Path(scratch, "wheels"), machine, repo,
                                           source_only=False)[0].parent
        files = {f"wheels/{path.name}": sha256(path) for path in sorted(wheel_dir.iterdir())
                 if _name_version(path.name)[0] not in SOURCE_ONLY}
        manifest = {"format": FORMAT, "version": version, "machine": machine,
                    "python": PYTHON, "files": files}
        manifest_path = Path(scratch, "release.json")
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        output_dir.mkdir(parents=True, exist_ok=True)
        release = output_dir / f"table-companion-{version}-{machine}.release"
        with tarfile.open(release, "w") as archive:
            archive.add(manifest_path, "release.json")
            archive.add(repo / LOCK_NAME, LOCK_NAME)
            for name in files:
                archive.add(wheel_dir / Path(name).name, name)
    return release


def unpack_release(release: Path, into: Path) -> dict:
    """Check a release file and unpack it into ``into``; return its manifest.

    Refuses (``ReleaseError``, with the reason) anything that is not a tar, has no
    ``release.json``, holds a path outside ``wheels/``, or a file whose hash differs.
    """
    try:
        archive = tarfile.open(release)  # noqa: SIM115 (closed by the with below)
    except (OSError, tarfile.TarError) as exc:
        raise ReleaseError(f"{release.name} is not a release file ({exc})") from exc
    with archive:
        members = {member.name: member for member in archive.getmembers()}
        if "release.json" not in members:
            raise ReleaseError(f"{release.name} has no release.json: not a release file")
        try:
            manifest = json.load(archive.extractfile(members["release.json"]))
            files = dict(manifest["files"])
            version = str(manifest["version"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ReleaseError(f"{release.name}: release.json is damaged ({exc})") from exc
        if manifest.get("format") != FORMAT:
            raise ReleaseError(f"{release.name}: release format {manifest.get('format')!r}, "
                               f"this box reads format {FORMAT}")
        wanted = {"release.json", LOCK_NAME, *files}
        for name, member in members.items():
            if name not in wanted or not member.isfile():
                raise ReleaseError(f"{release.name}: unexpected entry {name!r}")
        for name in files:
            if not re.fullmatch(r"wheels/[A-Za-z0-9_.+-]+\.(whl|tar\.gz)", name) or name not in members:
                raise ReleaseError(f"{release.name}: missing or badly named file {name!r}")
        # Each checked file is written out by name: nothing of the archive's owners, modes or
        # links applies (Debian 12's Python 3.11.2 has no extraction filter to say so).
        for name in wanted:
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.extractfile(members[name]) as source, open(target, "wb") as out:
                shutil.copyfileobj(source, out)
    for name, digest in files.items():
        if sha256(into / name) != digest:
            raise ReleaseError(f"{release.name}: {name} is damaged (its hash differs)")
    manifest["version"] = version
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.appliance.release", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("lock", help=f"refresh {LOCK_NAME} (network)")
    for name, text in (("wheels", "a wheel directory for install.sh --wheels"),
                       ("build", "a release file for companion update")):
        sub = actions.add_parser(name, help=text)
        sub.add_argument("output", type=Path, help="the directory to write into")
        sub.add_argument("--machine", choices=sorted(PLATFORMS), default="aarch64")
    args = parser.parse_args(argv)
    if args.action == "lock":
        print(refresh_lock())
    elif args.action == "wheels":
        print("\n".join(str(path) for path in build_wheels(args.output, args.machine)))
    else:
        print(build_release(args.output, args.machine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
