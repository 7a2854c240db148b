"""Release files: the program and every pinned dependency as wheels, checked by their hashes.

A release file (``table-companion-VERSION-MACHINE.release``) is a plain tar archive read in
one pass, in this order:

- ``release.json``: ``{"format": 2, "version": ..., "machine": ..., "python": "3.11",
  "files": {NAME: {"sha256": ..., "size": ...}, ...}}``;
- ``release.sig``: the Ed25519 signature over ``release.json`` (:mod:`.signing`);
- ``requirements.lock``: the pinned dependencies it was built from, then ``wheels/``: the
  project's wheel and one wheel per locked dependency for that machine (sorted by name).

The box checks the signature against the keys it trusts, then the declared sizes against its
limits and free room, before it writes a byte; each file is hashed as it is written.

``systemd/install.sh --wheels DIR`` and ``companion update FILE`` install from such a wheel
directory with pip offline (``--no-index --find-links``, ``--require-hashes``), so the box
never needs the network to install or update.

``python -m companion.appliance.release lock`` refreshes ``requirements.lock`` from ``pyproject.toml``
(network needed); ``python -m companion.appliance.release build`` (or ``companion update
--build-release``) builds a release file from the checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import signing
from .lockfile import LOCK_NAME, SOURCE_ONLY, Pin, pins_for, read_lock, write_lock
from .slots import MANIFEST_MAX_BYTES, MANIFEST_NAME

FORMAT = 2  # 2: signed (release.sig), every file with its size, wheels only
SIGNATURE_NAME = "release.sig"
# Bounds, checked on the signed list before anything is written: a release is about 15 MB.
MAX_FILES = 200
MAX_FILE_BYTES = 64 * 2**20
MAX_TOTAL_BYTES = 256 * 2**20
JOURNAL_RESERVE_BYTES = 64 * 2**20  # room the journal keeps on the data partition
# The venv built from a release, beside the two versions the box keeps: up to 6 times the
# release's files (86 MB from 16.6 MB on x86_64, pip and the .pyc files included).
SLOT_BYTES_PER_RELEASE_BYTE = 6
CHUNK = 1 << 20
PYTHON = "3.11"  # Debian bookworm's python3
REPO = Path(__file__).resolve().parents[2]
# The wheel tags bookworm's glibc 2.36 accepts, newest first, per machine.
PLATFORMS = {
    machine: [f"manylinux_2_{minor}_{machine}" for minor in (36, 35, 34, 31, 28, 17)]
    + [f"manylinux2014_{machine}", f"linux_{machine}"]
    for machine in ("aarch64", "x86_64")
}
# What building lgpio's source (SOURCE_ONLY) needs on the box's machine, pinned with it and with what they
# need in turn (pip runs offline there).
BUILD_TOOLS = {"setuptools": "aarch64", "wheel": "aarch64"}


class ReleaseError(Exception):
    """A release file or wheel directory that cannot be installed; the message says why."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    return write_lock(repo / LOCK_NAME, pins)


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
                  wheels: Path | None = None, *, key: Path) -> Path:
    """A release file for ``machine`` in ``output_dir``, signed with the private ``key``
    (``companion update --make-key``); ``wheels`` reuses a wheel directory."""
    private = signing.read_private(key)
    version = project_version(repo)
    with tempfile.TemporaryDirectory() as scratch:
        wheel_dir = wheels or build_wheels(Path(scratch, "wheels"), machine, repo,
                                           source_only=False)[0].parent
        sources = {LOCK_NAME: repo / LOCK_NAME}
        sources.update({f"wheels/{path.name}": path for path in sorted(wheel_dir.iterdir())
                        if _name_version(path.name)[0] not in SOURCE_ONLY})
        files = {name: {"sha256": sha256(path), "size": path.stat().st_size}
                 for name, path in sources.items()}
        manifest = {"format": FORMAT, "version": version, "machine": machine,
                    "python": PYTHON, "files": files}
        manifest_bytes = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
        output_dir.mkdir(parents=True, exist_ok=True)
        release = output_dir / f"table-companion-{version}-{machine}.release"
        with tarfile.open(release, "w", format=tarfile.PAX_FORMAT) as archive:
            for name, data in ((MANIFEST_NAME, manifest_bytes),
                               (SIGNATURE_NAME, signing.sign(manifest_bytes, private))):
                member = tarfile.TarInfo(name)
                member.size = len(data)
                archive.addfile(member, io.BytesIO(data))
            for name in sorted(files):  # the order the box reads them in
                archive.add(sources[name], name)
    return release


def version_key(version: str) -> tuple[tuple[int, ...], int]:
    """``1.2.3`` or ``1.2.3.postN`` in order (a release's versions take no other form)."""
    found = re.fullmatch(r"(\d+(?:\.\d+)*)(?:\.post(\d+))?", version)
    if not found:
        raise ReleaseError(f"version {version!r} is not N.N.N or N.N.N.postN")
    numbers = tuple(int(part) for part in found[1].split("."))
    return numbers + (0,) * (8 - len(numbers)), int(found[2] or -1)


@dataclass(frozen=True)
class Expect:
    """What the box holds a release to: its machine, the version running (None: no check)
    and whether an older version may be installed."""

    machine: str
    running: str | None = None
    allow_downgrade: bool = False


def read_release(release: Path, into: Path | None, keys: list[signing.PublicKey],
                 expect: Expect) -> dict[str, Any]:
    """Check a release file as it is read, once, from start to end, and write its files into
    ``into`` (None: only check); return its manifest. Nothing is written before the signature
    and the declared sizes pass, and each file is hashed as it is written.

    Refuses (``ReleaseError``, with the reason): anything but a plain tar (a compressed file
    is never unpacked), a release not signed by a key in ``keys`` or changed since, one for
    another machine, older than the version running (unless allowed), over the limits or the
    room left beside the journal (for its files and the venv built from them), and any file
    that is not exactly the one it declares.
    """
    try:
        with release.open("rb") as raw, tarfile.open(fileobj=raw, mode="r|") as archive:
            members = iter(archive)
            manifest_bytes = _small_member(archive, members, MANIFEST_NAME, MANIFEST_MAX_BYTES)
            signature = _small_member(archive, members, SIGNATURE_NAME,
                                      signing.SIGNATURE_MAX_BYTES)
            signer = signing.check(manifest_bytes, signature, keys)
            manifest, files = _manifest(manifest_bytes, expect, into)
            try:
                for name in sorted(files):
                    _copy_member(archive, next(members, None), name, files[name], into)
                extra = next(members, None)
                if extra is not None:
                    raise ReleaseError(f"unexpected entry {extra.name!r}")
            except BaseException:
                if into is not None:  # what was written before the refusal goes too
                    for name in files:
                        (into / name).unlink(missing_ok=True)
                raise
        if into is not None:  # the slot keeps the list it was installed from
            (into / MANIFEST_NAME).write_bytes(manifest_bytes)
    except signing.SignatureError as exc:
        raise ReleaseError(f"{release.name} is refused: {exc}") from exc
    except ReleaseError as exc:
        raise ReleaseError(f"{release.name}: {exc}") from exc
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ReleaseError(f"{release.name} is not a release file: a plain tar made by "
                           f"companion update --build-release is expected ({exc})") from exc
    manifest["signed_by"] = f"{signer.name} {signer.key_id}"
    return manifest


def _small_member(archive: tarfile.TarFile, members: Iterator[tarfile.TarInfo], name: str,
                  limit: int) -> bytes:
    member = next(members, None)
    if member is None or member.name != name or not member.isfile():
        raise ReleaseError(f"no {name} where a release has it: it is unsigned or not a release")
    if member.size > limit:
        raise ReleaseError(f"its {name} is {member.size} bytes, over {limit}")
    source = archive.extractfile(member)
    assert source is not None  # a regular file, checked above
    return source.read()


def _manifest(data: bytes, expect: Expect, into: Path | None
              ) -> tuple[dict[str, Any], dict[str, tuple[str, int]]]:
    """The signed manifest's files (name -> (sha256, size)), checked against the box."""
    try:
        manifest = json.loads(data)
        files = {str(name): (str(entry["sha256"]), int(entry["size"]))
                 for name, entry in dict(manifest["files"]).items()}
        version = str(manifest["version"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ReleaseError(f"release.json is damaged ({exc})") from exc
    if manifest.get("format") != FORMAT:
        raise ReleaseError(f"release format {manifest.get('format')!r}, this box reads format "
                           f"{FORMAT}")
    if manifest.get("machine") != expect.machine:
        raise ReleaseError(f"it is for {manifest.get('machine')}, this box is {expect.machine}: "
                           f"build it with --machine {expect.machine}")
    if expect.running is not None and not expect.allow_downgrade \
            and version_key(version) < version_key(expect.running):
        raise ReleaseError(f"it holds {version}, older than the {expect.running} running: a "
                           "downgrade needs --allow-downgrade")
    for name, (digest, size) in files.items():
        if name != LOCK_NAME and not re.fullmatch(r"wheels/[A-Za-z0-9_.+-]+\.whl", name):
            raise ReleaseError(f"{name!r}: a release carries wheels only (no sources, nothing "
                               "outside wheels/)")
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or not 0 <= size <= MAX_FILE_BYTES:
            raise ReleaseError(f"{name}: declared size {size} is over {MAX_FILE_BYTES} bytes, "
                               "or its hash is not SHA-256")
    total = sum(size for _, size in files.values())
    if LOCK_NAME not in files or len(files) > MAX_FILES or total > MAX_TOTAL_BYTES:
        raise ReleaseError(f"{len(files)} files of {total} bytes in all: a release has a lock "
                           f"and at most {MAX_FILES} files, {MAX_TOTAL_BYTES} bytes")
    if into is not None:
        into.mkdir(parents=True, exist_ok=True)
        room = shutil.disk_usage(into).free - JOURNAL_RESERVE_BYTES
        needed = total * (1 + SLOT_BYTES_PER_RELEASE_BYTE)
        if needed > room:
            raise ReleaseError(f"it needs {needed // 2**20} MB (its files and the version built "
                               f"from them, beside the two kept); {max(room, 0) // 2**20} MB "
                               f"are free beside the {JOURNAL_RESERVE_BYTES // 2**20} MB kept "
                               "for the journal: nothing was written")
    manifest["version"] = version
    return manifest, files


def _copy_member(archive: tarfile.TarFile, member: tarfile.TarInfo | None, name: str,
                 declared: tuple[str, int], into: Path | None) -> None:
    if member is None or member.name != name:
        found = "the end" if member is None else repr(member.name)
        raise ReleaseError(f"{name} was expected next, found {found}")
    digest, size = declared
    if not member.isfile() or member.size != size:
        raise ReleaseError(f"{name} is not the {size}-byte file release.json declares")
    source = archive.extractfile(member)
    assert source is not None
    hashed = hashlib.sha256()
    # Each checked file is written out by name: nothing of the archive's owners, modes or
    # links applies (Debian 12's Python 3.11.2 has no extraction filter to say so).
    with contextlib.ExitStack() as stack:
        out = None
        if into is not None:
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            out = stack.enter_context(open(into / name, "wb"))
        for block in iter(lambda: source.read(CHUNK), b""):
            hashed.update(block)
            if out is not None:
                out.write(block)
    if hashed.hexdigest() != digest:
        raise ReleaseError(f"{name} is damaged or was changed (its hash differs from the "
                           "signed list)")


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
        if name == "build":
            sub.add_argument("--key", type=Path, required=True,
                             help="the private key to sign it with (companion update --make-key)")
    args = parser.parse_args(argv)
    if args.action == "lock":
        print(refresh_lock())
    elif args.action == "wheels":
        print("\n".join(str(path) for path in build_wheels(args.output, args.machine)))
    else:
        print(build_release(args.output, args.machine, key=args.key))
    return 0


if __name__ == "__main__":
    sys.exit(main())
