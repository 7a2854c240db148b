"""The box's own Wi-Fi network when no other works: what it is called, what it decides, what a
phone may ask of it. Pure: no file, clock or radio (``companion.appliance.hotspot_service``
does those; what it tells the box and the page is ``companion.appliance.hotspot_state``).

With no network configured, or one not joined within :data:`JOIN_WAIT_S`, the box opens an
access point "Companion-XXXX" (WPA2; the passphrase is shown on the OLED, so joining it proves
someone is at the table). A phone on it opens http://10.42.0.1/wifi, names a network and its
passphrase; the box writes them into companion.txt, first boot applies them, the access point
closes and the box joins that network (and opens the access point again if it cannot). An
access point opened because the box's own network was not joined tries that network again
every :data:`RETRY_AFTER_S` while no phone is on it: after a power cut the router may come up
later than the box.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import secrets
from dataclasses import dataclass
from enum import Enum

from .hotspot_state import ADDRESS, PREFIX
from .settings_file import check, control_character

JOIN_WAIT_S = 90.0  # a configured network not joined by then: the access point opens
RETRY_AFTER_S = 300.0  # the access point open this long with no phone: the box's network again
DHCP_RANGE = ("10.42.0.10", "10.42.0.99")
NAME_PREFIX = "Companion-"
# Passphrase letters that cannot be misread on the OLED (no 0/O, 1/l/I, 5/S, 2/Z).
PASS_LETTERS = "abcdefghjkmnpqrstuvwxyz346789"
PASS_LENGTH = 10  # 29**10 ≈ 4e14 guesses, each a WPA handshake: plenty for one evening
REQUEST_MAX_BYTES = 1024


def hotspot_name(serial: str) -> str:
    """"Companion-" and four characters of the board's serial (or machine id): boxes in one
    room differ, and the OLED and About say the same name."""
    cleaned = "".join(c for c in serial.strip().upper() if c.isalnum())
    tail = cleaned[-4:] if len(cleaned) >= 4 else hashlib.sha1(serial.encode()).hexdigest()[:4].upper()
    return NAME_PREFIX + tail


def new_passphrase() -> str:
    """A fresh WPA2 passphrase each time the access point opens."""
    return "".join(secrets.choice(PASS_LETTERS) for _ in range(PASS_LENGTH))


@dataclass(frozen=True)
class WifiRequest:
    """A network a phone asked the box to join."""

    ssid: str
    passphrase: str


def read_request(data: bytes) -> WifiRequest:
    """The request the page handed over, checked; ValueError with the reason to show."""
    if len(data) > REQUEST_MAX_BYTES:
        raise ValueError(f"the request is over {REQUEST_MAX_BYTES} bytes")
    try:
        fields = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the request is not readable") from None
    if not isinstance(fields, dict) or not all(
            isinstance(fields.get(key), str) for key in ("ssid", "passphrase")):
        raise ValueError("the request must name a network and its passphrase")
    return checked(fields["ssid"], fields["passphrase"])


def checked(ssid: str, passphrase: str) -> WifiRequest:
    """A network name and passphrase as WPA2 and companion.txt take them, or ValueError."""
    if not ssid:
        raise ValueError("name the network (its SSID)")
    for what, value in (("the network name", ssid), ("the passphrase", passphrase)):
        bad = control_character(value)
        if bad:
            raise ValueError(f"{what} has {bad.split(' is not plain text')[0]}: type it again")
    for key, value in (("wifi_ssid", ssid), ("wifi_password", passphrase)):
        _, why = check(key, value)
        if why:
            raise ValueError(why)
    return WifiRequest(ssid, passphrase)


def quoted(value: str) -> str:
    """A companion.txt value that keeps its spaces at either end (the file strips them
    from a bare value and removes one pair of double quotes)."""
    return f'"{value}"'


# ----- what the service decides ------------------------------------------------------------
class Step(Enum):
    WAIT = "wait"  # nothing to do now: look again soon
    OPEN = "open"  # open the access point
    JOIN = "join"  # take the request: write it, close the access point, join the network
    RETRY = "retry"  # close the access point and try the box's own network again


@dataclass(frozen=True)
class Seen:
    """What the service sees of the Wi-Fi: the radio, the network the box has, the access
    point, a phone's request; ``trying_s`` is how long the box has tried its network,
    ``open_s`` how long the access point has been open, ``phones`` whether one is on it."""

    radio: bool
    configured: bool
    joined: bool
    trying_s: float
    open: bool
    request: bool = False
    open_s: float = 0.0
    phones: bool = False


def next_step(seen: Seen) -> Step:
    if not seen.radio:
        return Step.WAIT  # no Wi-Fi on this board (or not yet): nothing to open
    if seen.request:
        return Step.JOIN
    if seen.open:
        if seen.configured and not seen.phones and seen.open_s >= RETRY_AFTER_S:
            return Step.RETRY
        return Step.WAIT  # the access point stays while a phone may name a network
    if seen.joined:
        return Step.WAIT
    if not seen.configured or seen.trying_s >= JOIN_WAIT_S:
        return Step.OPEN
    return Step.WAIT


def on_hotspot(address: str) -> bool:
    """Whether a client address is on the box's own network (as the page's dual-stack socket
    gives it, ``::ffff:10.42.0.31``, too)."""
    try:
        client = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(client, ipaddress.IPv6Address) and client.ipv4_mapped is not None:
        client = client.ipv4_mapped
    return client in ipaddress.ip_network(f"{ADDRESS}/{PREFIX}", strict=False)
