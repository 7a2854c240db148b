"""Hostile release files made from a good one, each with the words the box must refuse it with.

Used by the emulated box's update campaign (``bench/appliance.py``) and by the host's tests
(``tests/test_release_signing.py``): the same files, tried against ``companion update``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import lzma
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from companion.appliance import signing

Part = tuple[tarfile.TarInfo, bytes]


@dataclass(frozen=True)
class Attack:
    name: str
    path: Path
    refusal: str  # words the box's message must hold


def members(path: Path) -> list[Part]:
    """Every entry of a release file with its bytes, in order."""
    with tarfile.open(path) as archive:
        parts = []
        for member in archive.getmembers():
            source = archive.extractfile(member)
            parts.append((member, source.read() if source else b""))
        return parts


def rewrite(into: Path, parts: list[Part]) -> Path:
    """A release file of ``parts`` (each entry's size set to its bytes)."""
    with tarfile.open(into, "w") as archive:
        for member, data in parts:
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return into


def resigned(parts: list[Part], manifest: dict, key: Path) -> list[Part]:
    """The entries with ``manifest`` as release.json, signed again with the private ``key``."""
    data = json.dumps(manifest, indent=1, sort_keys=True).encode() + b"\n"
    return [(parts[0][0], data), (parts[1][0], signing.sign(data, signing.read_private(key))),
            *parts[2:]]


def hostile_releases(good: Path, work: Path, key: Path, older: str) -> list[Attack]:
    """From the signed release ``good`` (signed with the trusted private ``key``): unsigned,
    signed by an unknown key, a wheel changed, a .pth slipped in, a source archive listed, a
    version ``older`` than the one running, a compressed bomb, and a size over the limits."""
    work.mkdir(parents=True, exist_ok=True)
    parts = members(good)
    manifest = json.loads(parts[0][1])
    stranger = signing.make_key(work / "stranger", "stranger")[0] if not (
        work / "stranger" / "stranger.key").exists() else work / "stranger" / "stranger.key"
    wheel = bytearray(parts[-1][1])
    wheel[len(wheel) // 2] ^= 0xFF
    payload = tarfile.TarInfo("wheels/payload.pth")
    source = tarfile.TarInfo("wheels/evil-1.0.tar.gz")
    with_source = {**manifest, "files": {**manifest["files"], source.name: {
        "sha256": "0" * 64, "size": 9}}}
    huge = {**manifest, "files": {**manifest["files"], parts[-1][0].name: {
        "sha256": "0" * 64, "size": 2**40}}}
    bomb = work / "bomb.release"
    with lzma.open(bomb, "wb") as out:
        out.write(b"\0" * (256 * 2**20))  # 256 MB of zeros: about 40 KB compressed
    # Those refused at the signature or the list carry only the entries read before then.
    head = parts[:3]
    attacks = [
        ("unsigned", [part for part in head if part[0].name != "release.sig"], "it is unsigned"),
        ("unknown key", resigned(head, manifest, stranger), "which this box does not trust"),
        ("wheel changed", [*parts[:-1], (parts[-1][0], bytes(wheel))], "was changed"),
        (".pth payload", [*parts, (payload, b"import os; os.system('id > /tmp/pwned')\n")],
         "unexpected entry 'wheels/payload.pth'"),
        ("sdist", resigned(head, with_source, key), "a release carries wheels only"),
        ("downgrade", resigned(head, {**manifest, "version": older}, key),
         "a downgrade needs --allow-downgrade"),
        ("size over the limits", resigned(head, huge, key), "is over 67108864 bytes"),
    ]
    made = [Attack(name, rewrite(work / f"{name.replace(' ', '-')}.release", entries), words)
            for name, entries, words in attacks]
    return [*made, Attack("xz bomb", bomb, "is not a release file: a plain tar")]


def payload(marks: str) -> bytes:
    """A ``.pth`` file that, at every start of a Python that loads it, leaves a file named
    after its uid in the folder ``marks``: where a release's code ran, and as whom."""
    return (f"import os, pathlib; marks = pathlib.Path({marks!r}); marks.mkdir(exist_ok=True); "
            "(marks / f'uid-{os.getuid()}-{os.getpid()}').write_text('ran')\n").encode()


def carry_payload(wheel: Path, marks: str) -> None:
    """Put the :func:`payload` in ``wheel``, listed in its RECORD as a wheel built with one
    would list it."""
    line = payload(marks)
    digest = base64.urlsafe_b64encode(hashlib.sha256(line).digest()).rstrip(b"=").decode()
    with zipfile.ZipFile(wheel) as source:
        entries = [(info, source.read(info)) for info in source.infolist()]
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("zz_release_code.pth", line)
        for info, data in entries:
            if info.filename.endswith(".dist-info/RECORD"):
                data += f"zz_release_code.pth,sha256={digest},{len(line)}\n".encode()
            out.writestr(info, data)
