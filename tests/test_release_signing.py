"""Signed releases: the box installs only what a key it trusts signed, checks every file as it
reads it, and refuses the rest before it writes a byte, with the reason the owner sees.

Each release here is built by `build_release` from a small project (a pyproject, a lock and a
wheel directory) with a key made for the test run; none is installed (tests/test_update.py
installs real ones)."""

from __future__ import annotations

import json
import lzma
import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from companion.appliance import release, signing
from companion.appliance.release import Expect, ReleaseError, read_release
from companion.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from release_attacks import hostile_releases, members, rewrite

MACHINE = "aarch64"
WHEEL = "wheels/table_companion-0.2.0-py3-none-any.whl"


def project(root: Path, version: str) -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "table-companion"\nversion = "{version}"\n')
    (root / release.LOCK_NAME).write_text("pyserial==3.5 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    wheels = root / "wheels"
    wheels.mkdir()
    (wheels / Path(WHEEL).name).write_bytes(b"PK\x03\x04 the program" * 100)
    return root


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> tuple[Path, list[signing.PublicKey], Path]:
    """This run's key: the private file, the box's trusted keys, the folder they are in."""
    folder = tmp_path_factory.mktemp("keys")
    private, public = signing.make_key(folder, "maker")
    return private, [signing.read_public(public)], folder


def build(tmp_path: Path, key: Path, version: str = "0.2.0", machine: str = MACHINE) -> Path:
    root = project(tmp_path / f"project-{version}-{machine}", version)
    return release.build_release(tmp_path / "out", machine, root, root / "wheels", key=key)


def refused(path: Path, keys: list[signing.PublicKey], into: Path, expect: Expect | None = None
            ) -> str:
    """The reason, and proof that nothing of the release was written."""
    with pytest.raises(ReleaseError) as caught:
        read_release(path, into, keys, expect or Expect(MACHINE))
    written = [p for p in into.rglob("*") if p.is_file()] if into.exists() else []
    assert not written, written
    return str(caught.value)


def test_a_signed_release_is_read_whole_and_names_its_signer(keys, tmp_path):
    private, trusted, _ = keys
    made = build(tmp_path, private)
    assert [member.name for member, _ in members(made)][:3] == [
        "release.json", "release.sig", release.LOCK_NAME]
    manifest = read_release(made, tmp_path / "into", trusted, Expect(MACHINE, "0.1.0"))
    assert manifest["version"] == "0.2.0" and manifest["signed_by"] == f"maker {trusted[0].key_id}"
    assert (tmp_path / "into" / WHEEL).read_bytes() == b"PK\x03\x04 the program" * 100


def test_an_unsigned_release_is_refused(keys, tmp_path):
    made = build(tmp_path, keys[0])
    unsigned = rewrite(tmp_path / "unsigned.release",
                       [part for part in members(made) if part[0].name != "release.sig"])
    assert "no release.sig where a release has it: it is unsigned" in refused(
        unsigned, keys[1], tmp_path / "into")


def test_a_release_signed_by_a_key_the_box_does_not_trust_is_refused(keys, tmp_path):
    stranger, _ = signing.make_key(tmp_path / "stranger", "stranger")
    foreign = build(tmp_path, stranger)
    said = refused(foreign, keys[1], tmp_path / "into")
    assert "which this box does not trust" in said and f"maker {keys[1][0].key_id}" in said
    assert "this box trusts no update key" in refused(foreign, [], tmp_path / "into")


def test_a_changed_release_json_or_wheel_is_refused(keys, tmp_path):
    made = build(tmp_path, keys[0])
    parts = members(made)
    manifest = json.loads(parts[0][1])
    manifest["files"][WHEEL]["sha256"] = "f" * 64  # a new wheel's hash, the old signature
    changed = rewrite(tmp_path / "changed.release",
                      [(parts[0][0], json.dumps(manifest).encode()), *parts[1:]])
    assert "its release.json was changed after maker signed it" in refused(
        changed, keys[1], tmp_path / "into")
    wheel = bytearray(parts[-1][1])
    wheel[10] ^= 0xFF
    tampered = rewrite(tmp_path / "tampered.release", [*parts[:-1], (parts[-1][0], bytes(wheel))])
    with pytest.raises(ReleaseError, match="is damaged or was changed"):
        read_release(tampered, tmp_path / "into", keys[1], Expect(MACHINE))


def test_a_release_for_another_machine_or_an_older_version_is_refused(keys, tmp_path):
    assert "it is for x86_64, this box is aarch64: build it with --machine aarch64" in refused(
        build(tmp_path, keys[0], machine="x86_64"), keys[1], tmp_path / "into")
    older = build(tmp_path, keys[0], version="0.1.0")
    assert "it holds 0.1.0, older than the 0.1.0.post1 running: a downgrade needs " \
        "--allow-downgrade" in refused(older, keys[1], tmp_path / "into",
                                       Expect(MACHINE, "0.1.0.post1"))
    allowed = read_release(older, None, keys[1], Expect(MACHINE, "0.1.0.post1", True))
    assert allowed["version"] == "0.1.0"


def test_every_hostile_release_of_the_emulated_boxs_campaign_is_refused_with_its_words(
        keys, tmp_path):
    attacks = hostile_releases(build(tmp_path, keys[0], version="0.1.0.post1"),
                               tmp_path / "attacks", keys[0], older="0.1.0")
    assert len(attacks) == 8
    for attack in attacks:
        said = refused(attack.path, keys[1], tmp_path / attack.name,
                       Expect(MACHINE, "0.1.0.post1"))
        assert attack.refusal in said, (attack.name, said)


def test_a_compressed_release_is_never_unpacked(keys, tmp_path):
    """An xz bomb: a few KB that would unpack to gigabytes is refused at its first bytes."""
    bomb = tmp_path / "bomb.release"
    with lzma.open(bomb, "wb") as out:
        out.write(b"\0" * (64 * 2**20))
    assert bomb.stat().st_size < 64 * 1024
    assert "is not a release file: a plain tar" in refused(bomb, keys[1], tmp_path / "into")


def test_declared_sizes_over_the_limits_or_the_room_are_refused_before_a_byte_is_written(
        keys, tmp_path, monkeypatch):
    private = signing.read_private(keys[0])
    made = build(tmp_path, keys[0])
    parts = members(made)

    def signed_with(files: dict) -> Path:
        manifest = json.loads(parts[0][1])
        manifest["files"] = files
        data = json.dumps(manifest).encode()
        return rewrite(tmp_path / "re-signed.release",
                       [(parts[0][0], data), (parts[1][0], signing.sign(data, private)), *parts[2:]])

    lock = {release.LOCK_NAME: json.loads(parts[0][1])["files"][release.LOCK_NAME]}
    huge = {**lock, WHEEL: {"sha256": "0" * 64, "size": 2**40}}
    assert "over 67108864 bytes" in refused(signed_with(huge), keys[1], tmp_path / "into")
    many = {**lock, **{f"wheels/w{n}-1-py3-none-any.whl": {"sha256": "0" * 64, "size": 0}
                       for n in range(release.MAX_FILES + 1)}}
    assert "at most 200 files" in refused(signed_with(many), keys[1], tmp_path / "into")
    source = {**lock, "wheels/evil-1.0.tar.gz": {"sha256": "0" * 64, "size": 10}}
    assert "a release carries wheels only" in refused(signed_with(source), keys[1],
                                                      tmp_path / "into")
    monkeypatch.setattr(release.shutil, "disk_usage",
                        lambda path: shutil._ntuple_diskusage(2**30, 2**30 - 2**26, 2**26))
    assert "MB are free beside the 64 MB kept for the journal: nothing was written" in refused(
        made, keys[1], tmp_path / "into")


def test_the_room_counts_the_venv_built_beside_the_two_versions_kept(keys, tmp_path, monkeypatch):
    """While an update builds, the card holds a third version: room for the release's files
    alone is not enough."""
    made = build(tmp_path, keys[0])
    files = json.loads(members(made)[0][1])["files"]
    total = sum(entry["size"] for entry in files.values())
    needed = total * (1 + release.SLOT_BYTES_PER_RELEASE_BYTE)

    def free(room: int) -> None:
        free_bytes = release.JOURNAL_RESERVE_BYTES + room
        monkeypatch.setattr(release.shutil, "disk_usage",
                            lambda path: shutil._ntuple_diskusage(2**40, 2**40 - free_bytes, free_bytes))

    free(needed - 1)  # the files fit, their venv not
    assert f"it needs {needed // 2**20} MB (its files and the version built from them, beside " \
        "the two kept)" in refused(made, keys[1], tmp_path / "into")
    free(needed)
    assert read_release(made, tmp_path / "into", keys[1], Expect(MACHINE))["version"] == "0.2.0"


def test_a_file_longer_than_declared_or_an_extra_entry_is_refused(keys, tmp_path):
    made = build(tmp_path, keys[0])
    parts = members(made)
    longer = rewrite(tmp_path / "longer.release",
                     [*parts[:-1], (parts[-1][0], parts[-1][1] + b"\0" * 4096)])
    with pytest.raises(ReleaseError, match=r"is not the 1600-byte file release\.json declares"):
        read_release(longer, None, keys[1], Expect(MACHINE))
    extra = tarfile.TarInfo("wheels/payload.pth")
    padded = rewrite(tmp_path / "extra.release", [*parts, (extra, b"import os")])
    with pytest.raises(ReleaseError, match=r"unexpected entry 'wheels/payload\.pth'"):
        read_release(padded, None, keys[1], Expect(MACHINE))


def test_the_command_verifies_without_installing_and_exits_2_with_the_reason(keys, tmp_path,
                                                                             capsys):
    private, _, folder = keys
    made = build(tmp_path, private, version="99.0.0")
    assert main(["update", "--verify", str(made), "--keys", str(folder),
                 "--machine", MACHINE]) == 0
    assert "99.0.0 for aarch64, signed by maker" in capsys.readouterr().out
    assert main(["update", "--verify", str(made), "--keys", str(tmp_path / "none"),
                 "--machine", MACHINE]) == 2
    assert "this box trusts no update key" in capsys.readouterr().err
    assert main(["update", "--build-release", str(tmp_path / "x")]) == 2
    assert "--build-release needs --key FILE" in capsys.readouterr().err


def test_a_key_pair_is_made_private_and_never_replaced(tmp_path, capsys):
    assert main(["update", "--make-key", str(tmp_path), "--name", "shop"]) == 0
    private, public = (tmp_path / "shop.key"), (tmp_path / "shop.pub")
    assert os.stat(private).st_mode & 0o777 == 0o600
    assert public.read_text().startswith("table-companion-update-key ed25519 ")
    assert main(["update", "--make-key", str(tmp_path), "--name", "shop"]) == 1
    assert "exists: choose another name" in capsys.readouterr().err
