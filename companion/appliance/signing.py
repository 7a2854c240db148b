"""Who made a release: Ed25519 keys and the signature over a release's ``release.json``.

A release lists the SHA-256 and size of every file it carries in ``release.json``; the
signature (``release.sig``, the archive's second member) covers those exact bytes, so once it
checks, every file is checked against a list only the key's holder could have written. The
box trusts the public keys in ``/etc/companion/update-keys/`` (put there by
``image/build.sh --update-key``); the private key stays with whoever builds releases.

Key files (``companion update --make-key DIR``):

- ``NAME.key``: the private key, PKCS#8 PEM, mode 0600;
- ``NAME.pub``: one line, ``table-companion-update-key ed25519 BASE64 NAME``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .slots import UPDATE_KEYS_DIR

KEYS_DIR = UPDATE_KEYS_DIR
PUBLIC_TAG = "table-companion-update-key"
# What is signed: this line, then release.json's bytes (a signature made for anything else
# with the same key never passes as a release's).
CONTEXT = b"table-companion release signature 1\n"
SIGNATURE_MAX_BYTES = 4096


class SignatureError(Exception):
    """A release whose maker the box cannot vouch for; the message says why."""


@dataclass(frozen=True)
class PublicKey:
    name: str
    key_id: str  # the first 16 hex digits of the SHA-256 of the raw key
    key: Ed25519PublicKey


def key_id(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def make_key(directory: Path, name: str) -> tuple[Path, Path]:
    """A new key pair in ``directory``: (``NAME.key``, ``NAME.pub``). Refuses to overwrite."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
        raise SignatureError(f"key name {name!r}: use letters, digits, '.', '_' or '-'")
    directory.mkdir(parents=True, exist_ok=True)
    private_path, public_path = directory / f"{name}.key", directory / f"{name}.pub"
    for path in (private_path, public_path):
        if path.exists():
            raise SignatureError(f"{path} exists: choose another name (a key is never replaced)")
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    descriptor = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(pem)
    public_path.write_text(public_line(private.public_key(), name))
    return private_path, public_path


def public_line(key: Ed25519PublicKey, name: str) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return f"{PUBLIC_TAG} ed25519 {base64.b64encode(raw).decode()} {name}\n"


def read_private(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SignatureError(f"{path}: not a private key made by --make-key ({exc})") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 key")
    return key


def read_public(path: Path) -> PublicKey:
    words = path.read_text(errors="replace").split()
    if len(words) < 3 or words[0] != PUBLIC_TAG or words[1] != "ed25519":
        raise SignatureError(f"{path.name}: not a public key made by companion update --make-key")
    try:
        raw = base64.b64decode(words[2], validate=True)
        key = Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError) as exc:
        raise SignatureError(f"{path.name}: the key is damaged ({exc})") from exc
    return PublicKey(words[3] if len(words) > 3 else path.stem, key_id(raw), key)


def trusted_keys(directory: Path = KEYS_DIR) -> list[PublicKey]:
    """The keys in ``directory`` (``*.pub``); a damaged file is skipped, never trusted."""
    keys = []
    for path in sorted(directory.glob("*.pub")) if directory.is_dir() else []:
        try:
            keys.append(read_public(path))
        except (OSError, SignatureError):
            continue
    return keys


def sign(manifest: bytes, private: Ed25519PrivateKey) -> bytes:
    """``release.sig``: the key's id and the signature, as JSON."""
    raw = private.public_key().public_bytes(serialization.Encoding.Raw,
                                            serialization.PublicFormat.Raw)
    signature = private.sign(CONTEXT + manifest)
    return json.dumps({"key": key_id(raw),
                       "ed25519": base64.b64encode(signature).decode()}).encode() + b"\n"


def check(manifest: bytes, signature_file: bytes, keys: list[PublicKey]) -> PublicKey:
    """The trusted key that signed ``manifest``, or :class:`SignatureError` with the reason."""
    try:
        found = json.loads(signature_file)
        signer, signature = str(found["key"]), base64.b64decode(found["ed25519"], validate=True)
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise SignatureError(f"its signature is damaged ({exc})") from exc
    if not keys:
        raise SignatureError(f"this box trusts no update key ({KEYS_DIR} is empty): see "
                             "docs/update.md, 'Keys'")
    key = next((key for key in keys if key.key_id == signer), None)
    if key is None:
        raise SignatureError(f"it is signed by key {signer}, which this box does not trust "
                             f"(trusted: {', '.join(f'{k.name} {k.key_id}' for k in keys)})")
    try:
        key.key.verify(signature, CONTEXT + manifest)
    except InvalidSignature:
        raise SignatureError(f"its release.json was changed after {key.name} signed it "
                             "(the signature does not match)") from None
    return key
