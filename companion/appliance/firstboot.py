"""First-boot settings from ``companion.txt`` on the SD card's boot partition.

A person edits the file on any computer; at the next boot ``companion-firstboot.service``
runs ``python -m companion.appliance.firstboot`` (as root, before the network), which applies it
once: hostname, time zone, Wi-Fi (wpa_supplicant, as Debian bookworm ships it), the phone
page on or off. Then the Wi-Fi passphrase is blanked in the file (the box keeps only the
key derived from it), and the file's new hash is noted so an unchanged file is not
applied again. Every bad line gets a message naming its line and the fix, in the log and
in ``companion-problems.txt`` beside the file; the good lines are still applied.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

SETTINGS_FILE = Path("/boot/firmware/companion.txt")
PROBLEMS_NAME = "companion-problems.txt"
# On the data partition: the root filesystem may be read-only.
APPLIED_FILE = Path("/var/lib/companion/firstboot.json")
WIFI_INTERFACE = "wlan0"
WPA_CONF = Path(f"/etc/wpa_supplicant/wpa_supplicant-{WIFI_INTERFACE}.conf")
NETWORK_FILE = Path(f"/etc/systemd/network/50-companion-{WIFI_INTERFACE}.network")
AVAHI_SERVICE = Path("/etc/avahi/services/companion.service")
WEB_UNIT = "companion-web.service"
WIFI_UNIT = f"wpa_supplicant@{WIFI_INTERFACE}.service"
WEB_PORT = 8080
KEYS = ("hostname", "wifi_country", "wifi_ssid", "wifi_password", "timezone", "phone_page")
SWITCH = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
TIMEZONE = re.compile(r"[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+){0,2}")


@dataclass
class Settings:
    """What the file asks for; a key it leaves empty (or gets wrong) changes nothing."""

    hostname: str | None = None
    wifi_country: str | None = None
    wifi_ssid: str | None = None
    wifi_password: str | None = None
    timezone: str | None = None
    phone_page: bool | None = None
    problems: list[str] = field(default_factory=list)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _check(key: str, value: str) -> tuple[object, str | None]:
    """The parsed value, or None and why it is refused."""
    if key == "hostname":
        name = value.lower()
        if HOSTNAME.fullmatch(name):
            return name, None
        return None, "a hostname is 1 to 63 letters, digits and inner hyphens, e.g. companion"
    if key == "wifi_country":
        if re.fullmatch(r"[A-Za-z]{2}", value):
            return value.upper(), None
        return None, "a Wi-Fi country is a two-letter code (ISO 3166), e.g. FR, GB, US, DE"
    if key == "wifi_ssid":
        if len(value.encode()) <= 32:
            return value, None
        return None, "a network name (SSID) is at most 32 bytes"
    if key == "wifi_password":
        if 8 <= len(value) <= 63 and value.isascii() and value.isprintable():
            return value, None
        return None, "a WPA passphrase is 8 to 63 plain characters (letters, digits, signs)"
    if key == "timezone":
        if TIMEZONE.fullmatch(value) and ".." not in value:
            return value, None
        return None, "a time zone is a name like Europe/Paris or America/New_York"
    if value.lower() in SWITCH:
        return SWITCH[value.lower()], None
    return None, "phone_page is on or off"


def parse(text: str) -> Settings:
    """Read ``key = value`` lines; ``#`` starts a comment line (values may hold a ``#``)."""
    settings = Settings()
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        key = key.strip().lower()
        if not equals:
            settings.problems.append(f"line {number}: {line!r} is not a setting: write name = value")
            continue
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f"; the settings are {', '.join(KEYS)}"
            settings.problems.append(f"line {number}: unknown setting {key!r}{hint}")
            continue
        if key in seen:
            settings.problems.append(f"line {number}: {key} is set again (first on line "
                                     f"{seen[key]}); the first is used")
            continue
        seen[key] = number
        value = _unquote(value.strip())
        if not value:
            continue
        parsed, why = _check(key, value)
        if why:
            shown = "(hidden)" if key == "wifi_password" else repr(value)
            settings.problems.append(f"line {number}: {key} = {shown} is refused: {why}")
        else:
            setattr(settings, key, parsed)
    if settings.wifi_password and not settings.wifi_ssid:
        settings.problems.append("wifi_password is set but wifi_ssid is empty: name the network")
    return settings


def blank_password(text: str) -> str:
    """The file with the passphrase's value removed and every other byte kept."""
    return re.sub(r"(?im)^(\s*wifi_password\s*=)[^\r\n]*", r"\1", text)


def wpa_psk(ssid: str, passphrase: str) -> str:
    """The 256-bit key WPA derives from the passphrase (what wpa_passphrase prints)."""
    return hashlib.pbkdf2_hmac("sha1", passphrase.encode(), ssid.encode(), 4096, 32).hex()


def wpa_config(country: str | None, ssid: str, psk: str) -> str:
    # The SSID in hex: no quoting or escaping of whatever characters the name holds.
    lines = ["# Written by companion-firstboot from /boot/firmware/companion.txt.",
             "ctrl_interface=DIR=/run/wpa_supplicant GROUP=netdev", "update_config=0"]
    if country:
        lines.append(f"country={country}")
    lines += ["network={", f"    ssid={ssid.encode().hex()}", f"    psk={psk}", "}", ""]
    return "\n".join(lines)


def known_network(conf: Path) -> tuple[str, str] | None:
    """The SSID and key the box already has, if any."""
    try:
        text = conf.read_text()
    except OSError:
        return None
    ssid = re.search(r"^\s*ssid=([0-9a-f]+)\s*$", text, re.M)
    psk = re.search(r"^\s*psk=([0-9a-f]{64})\s*$", text, re.M)
    if ssid and psk:
        return bytes.fromhex(ssid[1]).decode(errors="replace"), psk[1]
    return None


AVAHI_XML = f"""<?xml version="1.0" standalone='no'?>
<!DOCTYPE service-group SYSTEM "avahi-service.dtd">
<!-- Table Companion's phone page, found by phones as http://%h.local:{WEB_PORT}/ -->
<service-group>
  <name replace-wildcards="yes">Table Companion on %h</name>
  <service>
    <type>_http._tcp</type>
    <port>{WEB_PORT}</port>
    <txt-record>path=/</txt-record>
  </service>
</service-group>
"""

NETWORK_UNIT = f"""# Written by companion-firstboot: an address for the Wi-Fi by DHCP.
[Match]
Name={WIFI_INTERFACE}

[Network]
DHCP=yes
"""


Run = Callable[[list[str]], None]


def run_command(command: list[str]) -> None:
    subprocess.run(command, check=True, timeout=60)


@dataclass
class Box:
    """Where the settings go: ``root`` "/" on the box, a directory in tests and image builds."""

    root: Path = Path("/")
    run: Run = run_command

    def path(self, absolute: Path) -> Path:
        return self.root / absolute.relative_to("/")

    def write(self, absolute: Path, text: str, mode: int = 0o644) -> None:
        target = self.path(absolute)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        partial.write_text(text)
        partial.chmod(mode)
        os.replace(partial, target)

    def systemctl(self, *words: str) -> None:
        where = [] if self.root == Path("/") else [f"--root={self.root}"]
        self.run(["systemctl", *where, *words])

    @property
    def booted(self) -> bool:
        """A running system under systemd (not an image build's chroot): changes take effect now."""
        return self.root == Path("/") and Path("/run/systemd/system").is_dir()

    def switch(self, unit: str, on: bool) -> None:
        """Enable or disable ``unit`` and, on a running box, start or stop it without waiting."""
        self.systemctl("enable" if on else "disable", "--quiet", unit)
        if self.booted:
            self.systemctl("start" if on else "stop", "--no-block", unit)


def apply(settings: Settings, box: Box) -> list[str]:
    """Apply what ``settings`` asks; return one line per change made."""
    done: list[str] = []
    if settings.hostname:
        box.write(Path("/etc/hostname"), settings.hostname + "\n")
        hosts = box.path(Path("/etc/hosts"))
        text = hosts.read_text() if hosts.exists() else "127.0.0.1\tlocalhost\n"
        text = re.sub(r"(?m)^127\.0\.1\.1\s.*\n?", "", text)
        box.write(Path("/etc/hosts"), text.rstrip("\n") + f"\n127.0.1.1\t{settings.hostname}\n")
        if box.booted:
            box.run(["hostname", settings.hostname])
        done.append(f"hostname {settings.hostname} (the box answers at {settings.hostname}.local)")
    if settings.timezone:
        zone = Path("/usr/share/zoneinfo") / settings.timezone
        if box.path(zone).is_file():
            link = box.path(Path("/etc/localtime"))
            link.unlink(missing_ok=True)
            link.symlink_to(zone)
            box.write(Path("/etc/timezone"), settings.timezone + "\n")
            done.append(f"time zone {settings.timezone}")
        else:
            settings.problems.append(f"timezone {settings.timezone!r} is not a known time zone "
                                     "(a name like Europe/Paris)")
    if settings.wifi_ssid:
        known = known_network(box.path(WPA_CONF))
        if settings.wifi_password:
            psk = wpa_psk(settings.wifi_ssid, settings.wifi_password)
        elif known and known[0] == settings.wifi_ssid:
            psk = known[1]  # blanked after an earlier boot: the box keeps its key
        else:
            psk = None
            settings.problems.append(f"wifi_password is empty: type the passphrase of "
                                     f"{settings.wifi_ssid!r} (it is blanked again after use)")
        if psk:
            box.write(WPA_CONF, wpa_config(settings.wifi_country, settings.wifi_ssid, psk), 0o600)
            box.write(NETWORK_FILE, NETWORK_UNIT)
            box.switch(WIFI_UNIT, True)
            done.append(f"Wi-Fi {settings.wifi_ssid!r}"
                        + (f" in {settings.wifi_country}" if settings.wifi_country else ""))
    if settings.phone_page is not None:
        if settings.phone_page:
            box.write(AVAHI_SERVICE, AVAHI_XML)
        else:
            box.path(AVAHI_SERVICE).unlink(missing_ok=True)
        box.switch(WEB_UNIT, settings.phone_page)
        done.append("phone page " + ("on" if settings.phone_page else "off"))
    return done


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@contextlib.contextmanager
def writable(path: Path, box: Box) -> Iterator[None]:
    """The filesystem holding ``path`` mounted read-write for the block, if it was read-only
    (the image keeps its root read-only): remounted read-only after, whatever happens."""
    target = box.path(path)
    read_only = box.root == Path("/") and bool(os.statvfs(target).f_flag & os.ST_RDONLY)
    if read_only:
        box.run(["mount", "-o", "remount,rw", str(path)])
    try:
        yield
    finally:
        if read_only:
            box.run(["mount", "-o", "remount,ro", str(path)])


def first_boot(settings_file: Path, applied_file: Path, box: Box) -> list[str]:
    """Apply the file if it changed since it was last applied; return the lines to log."""
    source = box.path(settings_file)
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        return [f"{settings_file} is absent: nothing to apply"]
    marker = box.path(applied_file)
    try:
        if json.loads(marker.read_text()).get("sha256") == _digest(data):
            return [f"{settings_file} is unchanged since it was applied"]
    except (OSError, ValueError, AttributeError):
        pass
    text = data.decode("utf-8", errors="replace")
    settings = parse(text)
    with writable(Path("/"), box):
        done = apply(settings, box)
    problems_file = source.with_name(PROBLEMS_NAME)
    blanked = blank_password(text)
    if blanked != text:
        source.write_text(blanked)  # the boot partition is FAT, writable
    if settings.problems:
        problems_file.write_text(
            "Table Companion could not use these lines of companion.txt; fix them and boot again:\n"
            + "".join(f"- {problem}\n" for problem in settings.problems))
    else:
        problems_file.unlink(missing_ok=True)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"sha256": _digest(blanked.encode())}) + "\n")
    return [f"applied: {line}" for line in done] + [f"problem: {p}" for p in settings.problems]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.appliance.firstboot",
                                     description="Apply companion.txt once (run by "
                                     "companion-firstboot.service at boot).")
    parser.add_argument("settings", nargs="?", type=Path, default=SETTINGS_FILE)
    parser.add_argument("--applied", type=Path, default=APPLIED_FILE,
                        help=f"where the applied file's hash is noted (default {APPLIED_FILE})")
    parser.add_argument("--root", type=Path, default=Path("/"),
                        help="apply into this root directory instead of the running system")
    args = parser.parse_args(argv)
    try:
        lines = first_boot(args.settings, args.applied, Box(args.root))
    except (OSError, subprocess.SubprocessError) as exc:
        # The box starts anyway (its unit does not wait for this one); the log says why.
        print(f"companion.txt not applied: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
