"""Raspberry Pi Imager's settings for this image, read as ``companion.txt``'s.

The image's entry in an Imager repository (``image/build.sh`` writes it) declares
``"init_format": "cloudinit"``: Imager's customisation dialog then writes cloud-init's NoCloud
files on the boot partition beside ``companion.txt``. The box has no cloud-init; first boot reads
the two files itself, in YAML's safe mode, and takes what the box can use:

- ``user-data`` (``#cloud-config``): ``hostname``, ``timezone``, and the SSH public keys of
  ``users[].ssh_authorized_keys`` (the box logs in as root with them: the user name, a password
  and ``ssh_pwauth`` are left out, each with a notice);
- ``network-config`` (netplan version 2): the first Wi-Fi network of ``wifis.wlan0``, its
  ``access-points`` name and ``password`` (Imager writes the 64-digit key WPA derives from the
  passphrase, which the box uses as it is) and ``regulatory-domain`` (the Wi-Fi country).

A value ``companion.txt`` sets itself wins. After use the Wi-Fi key is blanked in
``network-config`` (as the passphrase is in ``companion.txt``): the box keeps it. Pure: text in,
settings out, but for reading the files; :mod:`.firstboot` applies them and writes back.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from . import firstboot_report
from .settings_file import MAX_BYTES, Settings, check

USER_DATA = "user-data"
NETWORK_CONFIG = "network-config"
FILES = (USER_DATA, NETWORK_CONFIG)
# The key Imager writes for a Wi-Fi network: WPA's 256-bit key in hex (what wpa_passphrase prints).
PSK = re.compile(r"[0-9a-fA-F]{64}")
# The password's line as Imager writes it (quoted), for blanking it in place.
PASSWORD_LINE = re.compile(r'(?m)^(?P<lead>\s*password:\s*)"[^"\n]*"\s*$')


def _load(name: str, text: str, settings: Settings) -> dict[str, Any]:
    """The file as a YAML mapping, or {} with a problem naming it."""
    import yaml  # only when Imager's files are there: the rest of first boot runs without it

    if len(text.encode()) > MAX_BYTES:
        settings.problem(f"{name} is over {MAX_BYTES // 1024} KiB: nothing in it was used")
        return {}
    try:
        found = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        settings.problem(f"{name} is not valid YAML{where}: write it again with Raspberry Pi Imager")
        return {}
    if found is None:
        return {}
    if not isinstance(found, dict):
        settings.problem(f"{name} holds no settings (a YAML mapping): write it again with "
                         "Raspberry Pi Imager")
        return {}
    return found


def _take(settings: Settings, name: str, key: str, value: Any) -> None:
    """One value into ``settings``, checked as companion.txt's would be."""
    if not isinstance(value, str) or not value.strip():
        settings.problem(f"{name}: {key} is not a text value: it was left out")
        return
    parsed, why = check(key, value.strip())
    if why:
        settings.problem(f"{name}: {key} = {value.strip()[:40]!r} is refused: {why}")
    else:
        setattr(settings, key, parsed)
        settings.sources[key] = name


def _keys(settings: Settings, users: Any) -> Iterator[str]:
    """The SSH public keys of every user, checked; notices for what the box leaves out."""
    for user in users if isinstance(users, list) else []:
        if not isinstance(user, dict):
            continue
        if user.get("name"):
            settings.notices.append(f"{USER_DATA}: user {str(user['name'])[:32]!r} is not made: "
                                    "the box has no login but root's, with your SSH key")
        if user.get("passwd") or user.get("plain_text_passwd"):
            settings.notices.append(f"{USER_DATA}: the password is not used: SSH takes keys only")
        keys = user.get("ssh_authorized_keys")
        for key in keys if isinstance(keys, list) else []:
            parsed, why = check("ssh_key", str(key).strip())
            if why:
                settings.problem(f"{USER_DATA}: an SSH key is refused: {why}")
            elif isinstance(parsed, str):
                yield parsed


def files_beside(directory: Path, limit: int) -> dict[str, bytes]:
    """Imager's files in ``directory`` (the boot partition), by name, each read up to
    ``limit`` + 1 bytes (a bigger one is then refused by its size)."""
    found = {}
    for name in FILES:
        with contextlib.suppress(OSError), open(directory / name, "rb") as file:
            found[name] = file.read(limit + 1)
    return found


def digest(files: dict[str, bytes]) -> str | None:
    """One digest of the files (None without any): first boot applies them again only when
    it changes."""
    if not files:
        return None
    return firstboot_report.digest(b"".join(name.encode() + b"\0" + data + b"\0"
                                            for name, data in sorted(files.items())))


def read_files(files: dict[str, bytes]) -> Settings:
    """What Imager's files set (UTF-8: Imager writes them so)."""
    settings = Settings()
    readers = {USER_DATA: read_user_data, NETWORK_CONFIG: read_network_config}
    for name, data in files.items():
        try:
            readers[name](data.decode("utf-8-sig"), settings)
        except UnicodeDecodeError:
            settings.problem(f"{name} is not UTF-8 text: write it again with Raspberry Pi Imager")
    return settings


def read_user_data(text: str, settings: Settings) -> None:
    """Hostname, time zone and SSH keys from Imager's ``user-data``."""
    found = _load(USER_DATA, text, settings)
    for key in ("hostname", "timezone"):
        if key in found:
            _take(settings, USER_DATA, key, found[key])
    keys = list(_keys(settings, found.get("users")))
    if keys:
        settings.ssh_key = "\n".join(keys)
        settings.sources["ssh_key"] = USER_DATA
    if found.get("ssh_pwauth"):
        settings.notices.append(f"{USER_DATA}: password login stays off: SSH takes keys only")


def read_network_config(text: str, settings: Settings) -> None:
    """The Wi-Fi network, its key and country from Imager's ``network-config``."""
    found = _load(NETWORK_CONFIG, text, settings)
    network = found.get("network")
    wifis = network.get("wifis") if isinstance(network, dict) else None
    wlan = wifis.get("wlan0") if isinstance(wifis, dict) else None
    if not isinstance(wlan, dict):
        return
    if "regulatory-domain" in wlan:
        _take(settings, NETWORK_CONFIG, "wifi_country", wlan["regulatory-domain"])
    points = wlan.get("access-points")
    if not isinstance(points, dict) or not points:
        return
    (ssid, point), *others = points.items()
    if others:
        settings.notices.append(f"{NETWORK_CONFIG}: only the first network, {str(ssid)!r}, is used")
    _take(settings, NETWORK_CONFIG, "wifi_ssid", str(ssid))
    password = point.get("password") if isinstance(point, dict) else None
    if isinstance(password, str) and PSK.fullmatch(password):
        settings.wifi_psk = password.lower()
        settings.sources["wifi_psk"] = NETWORK_CONFIG
    elif isinstance(password, str) and password:
        _take(settings, NETWORK_CONFIG, "wifi_password", password)
    if isinstance(point, dict) and point.get("hidden"):
        settings.notices.append(f"{NETWORK_CONFIG}: {str(ssid)!r} is hidden: the box finds it "
                                "only while it is in reach")


# What Imager sets, in the order companion.txt's template lists them. The Wi-Fi goes as one:
# a network's key belongs to that network.
TAKEN = ("hostname", "wifi_country", "wifi_ssid", "timezone", "ssh_key")
WIFI = ("wifi_ssid", "wifi_password", "wifi_psk")


def override(own: Settings, imager: Settings) -> Settings:
    """``own`` (companion.txt's) with what Imager set put over it: Imager's files are new when
    this runs (the owner has just written the card with them), so what they say wins."""
    wifi = imager.wifi_ssid is not None
    for item in fields(Settings):
        name = item.name
        if name in ("cleared", "lines", "sources", "problems", "notices", "unlisted"):
            continue
        if (wifi if name in WIFI else getattr(imager, name) is not None):
            setattr(own, name, getattr(imager, name))
            own.cleared.discard(name)
            own.lines.pop(name, None)
            own.sources[name] = imager.sources.get(name, "Raspberry Pi Imager")
    own.problems += imager.problems
    own.notices += imager.notices
    return own


def values_for_companion_txt(imager: Settings) -> dict[str, list[str]]:
    """What Imager set, as companion.txt's lines would say it (no secret: the box keeps the
    Wi-Fi key, and companion.txt's passphrase line stays blank)."""
    found: dict[str, list[str]] = {}
    for key in TAKEN:
        value = getattr(imager, key)
        if value is not None:
            found[key] = str(value).splitlines()
    return found


def blank_key(text: str) -> str:
    """``network-config`` with the Wi-Fi key's value emptied (every other byte kept)."""
    return PASSWORD_LINE.sub(lambda found: f'{found["lead"]}""', text)
