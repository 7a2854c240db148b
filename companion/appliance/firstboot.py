"""First-boot settings from ``companion.txt`` on the SD card's boot partition.

A person edits the file on any computer, in any editor (``settings_file`` reads it); at the
next boot ``companion-firstboot.service`` runs ``python -m companion.appliance.firstboot`` (as
root, before the network), which applies it: hostname, time zone, Wi-Fi (wpa_supplicant, as
Debian bookworm ships it), the phone page on or off, SSH for the owner's public key. The root
filesystem is touched (and remounted read-write) only for a setting that differs from what the
box already has. The
Wi-Fi passphrase is then blanked in the file (the box keeps only the key derived from it) by
writing a new file and renaming it over the old. What was applied and every problem are
noted on the data partition (``firstboot_report``: the OLED, ``companion doctor`` and the
phone page show them) and in ``companion-problems.txt`` beside the file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import firstboot_report, imager, settings_file
from .durable import recover, write_durably
from .network import (
    AVAHI_SERVICE,
    AVAHI_XML,
    NETWORK_FILE,
    NETWORK_UNIT,
    WIFI_UNIT,
    WPA_CONF,
    known_network,
    wpa_config,
    wpa_psk,
)
from .settings_file import Settings, Unreadable
from .slots import UPDATE_KEYS_DIR

SETTINGS_FILE = Path("/boot/firmware/companion.txt")
PROBLEMS_NAME = "companion-problems.txt"
# On the data partition: the root filesystem may be read-only.
APPLIED_FILE = firstboot_report.DEFAULT
UNITS_DIR = Path("/etc/systemd/system")
ZONEINFO = Path("/usr/share/zoneinfo")
SSH_UNIT = "ssh.service"
# The key's holder logs in as root (the box has no other login); sshd is told, in the image's
# /etc/ssh/sshd_config.d/companion.conf, to take keys only.
AUTHORIZED_KEYS = Path("/root/.ssh/authorized_keys")
# The box's own host key, made on it (the image ships none: every card would share it). One
# ed25519 key, made in a moment on any Pi (RSA's took most of a minute on a slow one); the
# image's sshd drop-in names it as the only HostKey.
HOST_KEY = Path("/etc/ssh/ssh_host_ed25519_key")
WEB_UNIT = "companion-web.service"
WEB_SOCKET = "companion-web.socket"  # the page's ports, 80 and 8080
# The target that wants a unit when it is enabled (its [Install] WantedBy=).
WANTED_BY = {WEB_SOCKET: "sockets.target"}
# A file this big is not read at all (a boot partition's file is never so long by mistake
# of an editor); up to it, an oversized file is still searched for its passphrase.
MAX_READ = 4 * 1024 * 1024


Run = Callable[[list[str]], None]


def run_command(command: list[str]) -> None:
    subprocess.run(command, check=True, timeout=60)


@dataclass(frozen=True)
class Wanted:
    """A file as the settings want it on the box: ``text`` None means absent; ``link`` a
    symbolic link instead of a file."""

    path: Path
    text: str | None
    mode: int = 0o644
    link: Path | None = None


@dataclass
class Change:
    """One setting's files and units, and what to log once it is done."""

    said: str
    files: list[Wanted] = field(default_factory=list)
    units: dict[str, bool] = field(default_factory=dict)
    now: list[list[str]] = field(default_factory=list)  # commands for a running box
    setup: list[list[str]] = field(default_factory=list)  # commands before its units start


@dataclass
class Box:
    """Where the settings go: ``root`` "/" on the box, a directory in tests and image builds."""

    root: Path = Path("/")
    run: Run = run_command

    def path(self, absolute: Path) -> Path:
        return self.root / absolute.relative_to("/")

    def read(self, absolute: Path) -> str | None:
        try:
            return self.path(absolute).read_text()
        except (OSError, UnicodeDecodeError):
            return None

    def differs(self, wanted: Wanted) -> bool:
        target = self.path(wanted.path)
        if wanted.link is not None:
            return not target.is_symlink() or target.readlink() != wanted.link
        if wanted.text is None:
            return target.exists() or target.is_symlink()
        return target.is_symlink() or self.read(wanted.path) != wanted.text

    def put(self, wanted: Wanted) -> None:
        target = self.path(wanted.path)
        if wanted.text is None or wanted.link is not None or target.is_symlink():
            target.unlink(missing_ok=True)
        if wanted.link is not None:
            target.symlink_to(wanted.link)
        elif wanted.text is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_durably(target, wanted.text.encode(), wanted.mode)

    def enabled(self, unit: str) -> bool:
        target = WANTED_BY.get(unit, "multi-user.target")
        return self.path(UNITS_DIR / f"{target}.wants" / unit).is_symlink()

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

    def pending(self, change: Change) -> bool:
        return (any(map(self.differs, change.files))
                or any(self.enabled(unit) != on for unit, on in change.units.items()))

    def make(self, change: Change) -> None:
        for wanted in change.files:
            if self.differs(wanted):
                self.put(wanted)
        for command in change.setup:
            self.run(command)
        for unit, on in change.units.items():
            if self.enabled(unit) != on:
                self.switch(unit, on)
        if self.booted:
            for command in change.now:
                self.run(command)


def known_zones(box: Box) -> set[str]:
    """The zoneinfo database's zone and link names (its ``tzdata.zi``), without ``Factory``
    (a placeholder, not a place); a name whose file is missing is left out when used."""
    text = box.read(ZONEINFO / "tzdata.zi") or ""
    names = {m[1] for m in re.finditer(r"(?m)^Z (\S+)", text)}
    names |= {m[1] for m in re.finditer(r"(?m)^L \S+ (\S+)", text)}
    return names - {"Factory"}


def known_countries(box: Box) -> set[str]:
    """ISO 3166 alpha-2 codes, from the zoneinfo database's ``iso3166.tab``."""
    text = box.read(ZONEINFO / "iso3166.tab") or ""
    return set(re.findall(r"(?m)^([A-Z]{2})\t", text))


def _zone_file_ok(box: Box, zone: str) -> bool:
    try:
        with open(box.path(ZONEINFO / zone), "rb") as tz:
            return tz.read(4) == b"TZif"
    except OSError:
        return False


def changes(settings: Settings, box: Box) -> list[Change]:
    """What the settings ask of the box, each as the files and units it wants."""
    wanted: list[Change] = []
    if settings.hostname:
        hosts = box.read(Path("/etc/hosts")) or "127.0.0.1\tlocalhost\n"
        hosts = re.sub(r"(?m)^127\.0\.1\.1\s.*\n?", "", hosts).rstrip("\n")
        wanted.append(Change(
            f"hostname {settings.hostname} (the box answers at {settings.hostname}.local)",
            [Wanted(Path("/etc/hostname"), settings.hostname + "\n"),
             Wanted(Path("/etc/hosts"), hosts + f"\n127.0.1.1\t{settings.hostname}\n")],
            now=[["hostname", settings.hostname]]))
    if settings.timezone:
        if _zone_file_ok(box, settings.timezone):
            wanted.append(Change(f"time zone {settings.timezone}", [
                Wanted(Path("/etc/localtime"), "", link=ZONEINFO / settings.timezone),
                Wanted(Path("/etc/timezone"), settings.timezone + "\n")]))
        else:
            settings.refuse("timezone", "the box has no file for this time zone: write a name "
                            "like Europe/Paris")
    wanted += _wifi(settings, box)
    wanted += _ssh(settings, box)
    wanted += _update_keys(settings, box)
    if settings.phone_page is not None:
        wanted.append(Change("phone page " + ("on" if settings.phone_page else "off"),
                             [Wanted(AVAHI_SERVICE, AVAHI_XML if settings.phone_page else None)],
                             {WEB_SOCKET: settings.phone_page, WEB_UNIT: settings.phone_page}))
    return wanted


def _wifi(settings: Settings, box: Box) -> list[Change]:
    if "wifi_ssid" in settings.cleared:
        return [Change("Wi-Fi removed (wifi_ssid is empty)",
                       [Wanted(WPA_CONF, None), Wanted(NETWORK_FILE, None)], {WIFI_UNIT: False})]
    if not settings.wifi_ssid:
        return []
    known = known_network(box.path(WPA_CONF))
    if settings.wifi_psk:
        psk = settings.wifi_psk  # Raspberry Pi Imager's, already derived from the passphrase
    elif settings.wifi_password:
        psk = wpa_psk(settings.wifi_ssid, settings.wifi_password)
    elif known and known[0] == settings.wifi_ssid:
        psk = known[1]  # blanked after an earlier boot: the box keeps its key
    else:
        settings.problem(f"wifi_password is empty: type the passphrase of "
                         f"{settings.wifi_ssid!r} (it is blanked again after use)")
        return []
    country = f" in {settings.wifi_country}" if settings.wifi_country else ""
    return [Change(f"Wi-Fi {settings.wifi_ssid!r}{country}",
                   [Wanted(WPA_CONF, wpa_config(settings.wifi_country, settings.wifi_ssid, psk),
                           0o600),
                    Wanted(NETWORK_FILE, NETWORK_UNIT)], {WIFI_UNIT: True})]


def _ssh(settings: Settings, box: Box) -> list[Change]:
    """SSH is off until a public key is given; the server then runs, for that key only, with
    its host key made on the box the first time (:data:`HOST_KEY`)."""
    if "ssh_key" in settings.cleared:
        return [Change("SSH off (ssh_key is empty)", [Wanted(AUTHORIZED_KEYS, None)],
                       {SSH_UNIT: False})]
    if not settings.ssh_key:
        return []
    host_key = box.path(HOST_KEY)
    make_key = [] if host_key.exists() else [
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(host_key)]]
    keys = settings.ssh_key.splitlines()
    return [Change(f"SSH on for {'the key' if len(keys) == 1 else f'{len(keys)} keys'} given "
                   "(as root, no password)",
                   [Wanted(AUTHORIZED_KEYS, "".join(f"{key}\n" for key in keys), 0o600)],
                   {SSH_UNIT: True}, setup=make_key)]


def _update_keys(settings: Settings, box: Box) -> list[Change]:
    """The keys updates may be signed with, taken once: once the box trusts keys from this
    file, a card edited later cannot make it trust others (write the image again for that)."""
    if not settings.update_keys:
        return []
    keys = settings.update_keys.splitlines()
    wanted = [Wanted(UPDATE_KEYS_DIR / f"companion-txt-{number}.pub", f"{key}\n")
              for number, key in enumerate(keys, 1)]
    folder = box.path(UPDATE_KEYS_DIR)
    given = sorted(folder.glob("companion-txt-*.pub")) if folder.is_dir() else []
    if (given and any(map(box.differs, wanted))) or len(given) > len(keys):
        settings.problem("update_keys is taken once: the box keeps trusting the keys it was "
                         "given first (to change them, write the image again)")
        return []
    return [Change(f"updates signed by {'the key' if len(keys) == 1 else f'{len(keys)} keys'} "
                   "given trusted", wanted)]


def apply(settings: Settings, box: Box) -> list[str]:
    """Make what differs from what ``settings`` asks (the root remounted read-write only then);
    return one line per setting changed."""
    settings_file.validate(settings, known_zones(box), known_countries(box))
    pending = [change for change in changes(settings, box) if box.pending(change)]
    if pending:
        with writable(Path("/"), box):
            for change in pending:
                box.make(change)
    return [change.said for change in pending]


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


def read_settings(data: bytes) -> tuple[Settings, settings_file.Decoded | None]:
    """The settings the bytes ask for, and how they were encoded (None: unreadable)."""
    try:
        decoded = settings_file.decode(data)
    except Unreadable as exc:
        settings = Settings()
        settings.problem(f"companion.txt cannot be read: {exc}")
        return settings, None
    if len(data) > settings_file.MAX_BYTES:
        settings = Settings()
        settings.problem(f"companion.txt is {len(data) // 1024} KiB; the box reads at most "
                         f"{settings_file.MAX_BYTES // 1024} KiB: nothing in it was applied. "
                         "Write it again from the template (about 1 KiB)")
        return settings, decoded
    settings = settings_file.parse(decoded.text)
    if decoded.encoding == "cp1252":
        settings.notices.append("companion.txt is not UTF-8: it was read as Windows-1252 "
                                "(Western European); save it as UTF-8 to be sure of accents")
    return settings, decoded


def take_imager(source: Path, files: dict[str, bytes], settings: Settings,
                decoded: settings_file.Decoded | None, box: Box) -> Settings:
    """Imager's settings over companion.txt's, written into companion.txt too (so a later
    edit there starts from them), and the Wi-Fi key blanked in ``network-config``."""
    found = imager.read_files(files)
    settings_file.validate(found, known_zones(box), known_countries(box))
    if decoded is not None:
        text = settings_file.set_values(decoded.text, imager.values_for_companion_txt(found))
        try:
            write_durably(source, decoded.encode(text))
        except UnicodeEncodeError:
            found.notices.append("companion.txt's encoding cannot hold Imager's settings: they "
                                 "were applied, but save companion.txt as UTF-8 to keep them there")
    network = files.get(imager.NETWORK_CONFIG)
    if network is not None:
        blanked = imager.blank_key(network.decode("utf-8", "replace"))
        if blanked.encode() != network:
            write_durably(source.with_name(imager.NETWORK_CONFIG), blanked.encode())
            files[imager.NETWORK_CONFIG] = blanked.encode()
    return imager.override(settings, found)


def first_boot(settings_file_path: Path, applied_file: Path, box: Box) -> list[str]:
    """Apply the file, and Raspberry Pi Imager's beside it, if they changed since they were
    last applied; return the lines to log."""
    source = box.path(settings_file_path)
    recovered = recover(source)
    said = [f"recovered: {recovered}"] if recovered else []
    files = imager.files_beside(source.parent, MAX_READ)
    try:
        size = source.stat().st_size
    except FileNotFoundError:
        return [*said, f"{settings_file_path} is absent: nothing to apply"]
    previous = firstboot_report.read(box.path(applied_file))
    fresh_imager = files and (previous is None or previous.imager != imager.digest(files))
    if size > MAX_READ:
        data = b""
        settings, decoded = Settings(), None
        settings.problem(f"companion.txt is {size // 2**20} MiB, far beyond the 64 KiB the box "
                         "reads: delete it and write it again from the template")
    else:
        data = source.read_bytes()
        if previous and previous.sha256 == firstboot_report.digest(data) and not fresh_imager:
            firstboot_report.write_stamp(settings_file_path, applied_file, imager.FILES, box.root)
            return [*said, f"{settings_file_path} is unchanged since it was applied"]
        settings, decoded = read_settings(data)
    if fresh_imager:
        settings = take_imager(source, files, settings, decoded, box)
        data = source.read_bytes() if decoded is not None else data
        decoded = settings_file.decode(data) if decoded is not None else None
    done = apply(settings, box)
    if decoded is not None:
        blanked = decoded.encode(settings_file.blank_secret(decoded.text))
        if blanked != data:
            write_durably(source, blanked)
            data = blanked
    problems = settings.all_problems()
    report_problems(source.with_name(PROBLEMS_NAME), problems + settings.notices)
    firstboot_report.write(box.path(applied_file), firstboot_report.Report(
        firstboot_report.digest(data), problems, settings.notices, imager.digest(files)),
        write_durably)
    if size <= MAX_READ:  # a file too big to read is reported again at every boot
        firstboot_report.write_stamp(settings_file_path, applied_file, imager.FILES, box.root)
    return ([*said] + [f"applied: {line}" for line in done] + [f"problem: {p}" for p in problems]
            + [f"notice: {n}" for n in settings.notices])


def report_problems(path: Path, lines: list[str]) -> None:
    """``companion-problems.txt`` beside the settings: there while something is to fix."""
    if lines:
        write_durably(path, (
            "Table Companion could not use all of companion.txt; fix it and boot again:\r\n"
            + "".join(f"- {line}\r\n" for line in lines)).encode())
    else:
        path.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.appliance.firstboot", description="Apply "
                                     "companion.txt when it changed (companion-firstboot.service).")
    parser.add_argument("settings", nargs="?", type=Path, default=SETTINGS_FILE)
    parser.add_argument("--applied", type=Path, default=APPLIED_FILE,
                        help=f"where what was applied is noted (default {APPLIED_FILE})")
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
