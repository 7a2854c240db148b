"""Pairing a phone with the box: what the box's Phone screen and ``companion web`` share.

The box owns ``phone.json`` in its state directory (0600, written whole through a rename): a
secret that signs the phone page's session cookies, and the one PIN and one-time token the
Phone screen shows, valid for :data:`OFFER_S`. The web process only reads the file (its unit
sees the state directory read-only), so a phone pairs with what the OLED shows, and "Forget
phones" on the box, which writes a new secret, ends every session at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from companion.files import textfiles

FILENAME = "phone.json"
OFFER_S = 300.0          # how long the PIN and the QR code on the OLED pair a phone
PIN_DIGITS = 6


@dataclass(frozen=True)
class Offer:
    """The box's pairing secret and the PIN and token it shows (empty when none is shown)."""

    secret: str
    pin: str = ""
    token: str = ""
    expires: float = 0.0

    def open(self, now: float) -> bool:
        return bool(self.pin) and now < self.expires


def path_in(state_dir: str | Path) -> Path:
    return Path(state_dir) / FILENAME


def read(state_dir: str | Path) -> Offer | None:
    """The box's pairing file, or None when there is none (or it cannot be read)."""
    try:
        raw = json.loads(textfiles.read_text(path_in(state_dir)))
        return Offer(str(raw["secret"]), str(raw.get("pin", "")), str(raw.get("token", "")),
                     float(raw.get("expires", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write(state_dir: str | Path, offer: Offer) -> None:
    path = path_in(state_dir)
    part = path.with_name(path.name + ".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(offer.__dict__, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(part, path)


def offer(state_dir: str | Path, now: float | None = None) -> Offer:
    """A new PIN and token for the Phone screen (the secret kept, or made the first time);
    OSError if the state directory refuses."""
    now = time.time() if now is None else now
    known = read(state_dir)
    made = Offer(known.secret if known else secrets.token_hex(32),
                 f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}",
                 secrets.token_urlsafe(12), now + OFFER_S)
    _write(state_dir, made)
    return made


def withdraw(state_dir: str | Path) -> None:
    """The Phone screen closed: its PIN and token no longer pair."""
    known = read(state_dir)
    if known is not None and known.pin:
        with contextlib.suppress(OSError):
            _write(state_dir, Offer(known.secret))


def forget_phones(state_dir: str | Path) -> None:
    """A new secret: every phone's session ends (OSError if the state directory refuses)."""
    _write(state_dir, Offer(secrets.token_hex(32)))


def sign(secret: str, text: str) -> str:
    return hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()


def local_address() -> str:
    """The address the README and the About screen give: the box's mDNS name (avahi announces
    it) on port 80, where companion-web.socket opens the page."""
    return f"http://{socket.gethostname()}.local/"


def page_address(port: int, host: str = "") -> str:
    """The page's address as a phone on the same network reaches it: the box's LAN address
    (the one its default route uses; no packet is sent), else its host name."""
    if host and host not in ("0.0.0.0", "::"):
        name = host
    else:
        name = socket.gethostname() + ".local"
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))     # TEST-NET-1: never routed, only picks a source
            name = s.getsockname()[0]
    return f"http://{name}/" if port == 80 else f"http://{name}:{port}/"
