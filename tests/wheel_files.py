"""Small wheels made at run time, as pip builds them: a module or two and a dist-info folder."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path


def make_wheel(into: Path, name: str, version: str, files: dict[str, str], *,
               requires: tuple[str, ...] = (), entry_points: str = "") -> Path:
    """``NAME-VERSION-py3-none-any.whl`` in ``into`` holding ``files`` (path -> text)."""
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    contents = dict(files)
    contents[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                    + "".join(f"Requires-Dist: {req}\n" for req in requires))
    contents[f"{info}/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                                 "Tag: py3-none-any\n")
    if entry_points:
        contents[f"{info}/entry_points.txt"] = entry_points
    record = []
    for path, text in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    contents[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    into.mkdir(parents=True, exist_ok=True)
    wheel = into / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in contents.items():
            archive.writestr(path, text)
    return wheel
