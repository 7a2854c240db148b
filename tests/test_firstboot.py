"""companion.txt: parsed with a message for every bad line, applied once, passphrase blanked."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import firstboot, firstboot_report, imager, network
from companion.appliance.firstboot import Box, first_boot
from companion.appliance.settings_file import parse

REPO = Path(__file__).resolve().parent.parent
GOOD = """\ufeff# made on Windows: a byte-order mark and CRLF line ends\r
hostname = Tavolo\r
wifi_country = fr\r
wifi_ssid = "Café #2"\r
wifi_password = s3cret#pass word\r
timezone = Europe/Paris\r
phone_page = on\r
"""


def test_the_shipped_template_parses_without_a_problem():
    settings = parse((REPO / "systemd" / "companion.txt").read_text())
    assert settings.problems == []
    assert (settings.hostname, settings.wifi_country, settings.timezone, settings.phone_page) == (
        "companion", "FR", "Europe/Paris", True)
    assert settings.wifi_ssid is None and settings.wifi_password is None


def test_quotes_hashes_and_windows_line_ends_are_read_as_meant():
    settings = parse(GOOD)
    assert settings.problems == []
    assert settings.hostname == "tavolo" and settings.wifi_country == "FR"
    assert settings.wifi_ssid == "Café #2" and settings.wifi_password == "s3cret#pass word"


def test_every_bad_line_is_named_with_its_fix_and_the_good_ones_still_count():
    settings = parse("hostname = my_box!\n"
                     "wifi_contry = FR\n"
                     "wifi_country = France\n"
                     "just some words\n"
                     "wifi_ssid = Home\n"
                     "wifi_password = short\n"
                     "timezone = ../../etc/passwd\n"
                     "phone_page = maybe\n"
                     "wifi_ssid = Other\n"
                     "colour = blue\n")
    assert settings.problems == [
        "line 1: hostname = 'my_box!' is refused: a hostname is 1 to 63 letters, digits and "
        "inner hyphens, not localhost, e.g. companion",
        "line 2: unknown setting 'wifi_contry' (did you mean wifi_country?)",
        "line 3: wifi_country = 'France' is refused: a Wi-Fi country is a two-letter code "
        "(ISO 3166), e.g. FR, GB, US, DE",
        "line 4: 'just some words' is not a setting: write name = value",
        "line 6: wifi_password = (hidden) is refused: a WPA passphrase is 8 to 63 plain "
        "characters (letters, digits, signs)",
        "line 7: timezone = '../../etc/passwd' is refused: a time zone is a name like "
        "Europe/Paris or America/New_York",
        "line 8: phone_page = 'maybe' is refused: phone_page is on or off",
        "line 9: wifi_ssid is set again (first on line 5); the first is used",
        "line 10: unknown setting 'colour'; the settings are hostname, wifi_country, wifi_ssid, "
        "wifi_password, timezone, phone_page, ssh_key, update_keys",
    ]
    assert settings.wifi_ssid == "Home" and settings.hostname is None


def test_the_wpa_key_is_the_one_wpa_passphrase_derives():
    # IEEE 802.11i test vector: passphrase "password", SSID "IEEE".
    assert network.wpa_psk("IEEE", "password") == (
        "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e")


class Recorder:
    """The commands run, with systemctl's enable and disable done as it does them in a root."""

    def __init__(self, root: Path | None = None) -> None:
        self.commands: list[list[str]] = []
        self.root = root

    def __call__(self, command: list[str]) -> None:
        self.commands.append(command)
        if self.root and command[0] == "systemctl" and command[2] in ("enable", "disable"):
            target = "sockets" if command[-1].endswith(".socket") else "multi-user"
            link = self.root / f"etc/systemd/system/{target}.target.wants" / command[-1]
            link.unlink(missing_ok=True)
            if command[2] == "enable":
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(f"/lib/systemd/system/{command[-1]}")


@pytest.fixture
def root(tmp_path):
    return make_root(tmp_path)


def make_root(tmp_path: Path) -> Path:
    """A staging root as first boot sees it: the zoneinfo it checks against, /etc/hosts and
    the boot partition's companion.txt."""
    zoneinfo = tmp_path / "usr/share/zoneinfo"
    for name in ("Europe/Paris", "Europe/London", "Factory"):
        (zoneinfo / name).parent.mkdir(parents=True, exist_ok=True)
        (zoneinfo / name).write_bytes(b"TZif2")
    # The lines of Debian's tzdata this box reads: zones, links, countries.
    (zoneinfo / "tzdata.zi").write_text("Z Europe/Paris 0:9:21 - LMT 1891 Mar 16\n"
                                        "Z Factory 0 - -00\nL Europe/London GB\n"
                                        "Z Europe/London -0:1:15 - LMT 1847 D\n")
    (zoneinfo / "iso3166.tab").write_text("# ISO 3166 alpha-2 country codes\nFR\tFrance\n"
                                          "GB\tBritain (UK)\n")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\tdebian\n")
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "companion.txt").write_text(GOOD)
    return tmp_path


def test_applied_once_then_the_passphrase_is_blanked_and_a_new_edit_applies_again(root):
    run = Recorder(root)
    box = Box(root, run)
    applied = Path("/var/lib/companion/firstboot.json")
    lines = first_boot(Path("/boot/firmware/companion.txt"), applied, box)
    assert lines == ["applied: hostname tavolo (the box answers at tavolo.local)",
                     "applied: time zone Europe/Paris", "applied: Wi-Fi 'Café #2' in FR",
                     "applied: phone page on"]
    assert (root / "etc/hostname").read_text() == "tavolo\n"
    assert (root / "etc/hosts").read_text() == "127.0.0.1\tlocalhost\n127.0.1.1\ttavolo\n"
    assert (root / "etc/localtime").readlink() == Path("/usr/share/zoneinfo/Europe/Paris")
    wpa = root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    psk = network.wpa_psk("Café #2", "s3cret#pass word")
    assert wpa.read_text().splitlines()[3:7] == [
        "country=FR", "network={", f"    ssid={'Café #2'.encode().hex()}", f"    psk={psk}"]
    assert wpa.stat().st_mode & 0o777 == 0o600
    avahi = (root / "etc/avahi/services/companion.service").read_text()
    assert "_http._tcp" in avahi and "<port>80</port>" in avahi   # http://tavolo.local/
    assert run.commands == [
        ["systemctl", f"--root={root}", "enable", "--quiet", "wpa_supplicant@wlan0.service"],
        ["systemctl", f"--root={root}", "enable", "--quiet", "companion-web.socket"],
        ["systemctl", f"--root={root}", "enable", "--quiet", "companion-web.service"]]
    text = (root / "boot/firmware/companion.txt").read_text()
    assert "s3cret" not in text and "wifi_password =\n" in text  # read_text folds the CRLF
    assert (root / "boot/firmware/companion.txt").read_bytes().count(b"\r\n") == 7  # kept
    assert not (root / "boot/firmware/companion-problems.txt").exists()
    # The same file again: nothing to do.
    assert first_boot(Path("/boot/firmware/companion.txt"), applied, box) == [
        "/boot/firmware/companion.txt is unchanged since it was applied"]
    # An edit (phone page off) with the passphrase left blank keeps the Wi-Fi key.
    (root / "boot/firmware/companion.txt").write_text(text.replace("phone_page = on", "phone_page = off"))
    again = first_boot(Path("/boot/firmware/companion.txt"), applied, box)
    assert "applied: phone page off" in again and f"    psk={psk}" in wpa.read_text()
    assert not (root / "etc/avahi/services/companion.service").exists()
    assert run.commands[-1] == ["systemctl", f"--root={root}", "disable", "--quiet",
                                "companion-web.service"]


def test_problems_are_written_beside_the_file_and_the_box_is_left_as_it_was(root):
    (root / "boot/firmware/companion.txt").write_text(
        "hostname = -bad-\nwifi_ssid = Home\ntimezone = Mars/Olympus\n")
    lines = first_boot(Path("/boot/firmware/companion.txt"), Path("/var/lib/c/firstboot.json"),
                       Box(root, Recorder()))
    problems = (root / "boot/firmware/companion-problems.txt").read_text()
    for expected in ("line 1: hostname = '-bad-' is refused",
                     "wifi_password is empty: type the passphrase of 'Home'",
                     "line 3: timezone = 'Mars/Olympus' is refused: it is not in the time zone "
                     "database"):
        assert expected in problems and any(expected in line for line in lines)
    assert not (root / "etc/hostname").exists() and not (root / "etc/localtime").exists()
    assert not (root / "etc/wpa_supplicant").exists()


def test_the_module_never_fails_the_boot_with_a_traceback(tmp_path):
    unreadable = tmp_path / "companion.txt"
    unreadable.mkdir()  # a directory where the file should be: reading it fails
    result = subprocess.run(
        [sys.executable, "-m", "companion.appliance.firstboot", str(unreadable),
         "--root", "/", "--applied", str(tmp_path / "applied.json")],
        capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("companion.txt not applied: ")


SETTINGS = Path("/boot/firmware/companion.txt")
APPLIED = Path("/var/lib/companion/firstboot.json")


def boot(root: Path, run: Recorder | None = None) -> list[str]:
    return first_boot(SETTINGS, APPLIED, Box(root, run or Recorder(root)))


def root_files(root: Path) -> dict[str, int]:
    """Every file of the box's root (not the boot or data partitions) and when it changed."""
    return {str(path): path.lstat().st_mtime_ns for path in (root / "etc").rglob("*")}


@pytest.mark.parametrize("encoding", ["utf-16", "cp1252", "utf-8-sig"])
def test_a_file_in_any_encoding_is_applied_once_and_blanked_in_its_own_encoding(root, encoding):
    source = root / "boot/firmware/companion.txt"
    text = GOOD.removeprefix("\ufeff")
    source.write_bytes(text.encode(encoding))
    assert "applied: Wi-Fi 'Café #2' in FR" in boot(root)
    assert source.read_bytes() == text.replace(" s3cret#pass word", "").encode(encoding)
    run = Recorder(root)
    assert boot(root, run) == [f"{SETTINGS} is unchanged since it was applied"]
    assert run.commands == []


def test_an_edit_that_changes_nothing_on_the_box_leaves_its_root_alone(root):
    run = Recorder(root)
    boot(root, run)
    before, commands = root_files(root), len(run.commands)
    source = root / "boot/firmware/companion.txt"
    source.write_bytes(source.read_bytes() + b"# a comment added\r\n")
    assert boot(root, run) == []  # nothing applied, nothing to say
    assert root_files(root) == before and len(run.commands) == commands


def test_emptying_the_network_name_removes_the_wifi(root):
    boot(root)
    wpa = root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
    assert wpa.exists()
    (root / "boot/firmware/companion.txt").write_text("wifi_ssid =\n")
    run = Recorder(root)
    assert boot(root, run) == ["applied: Wi-Fi removed (wifi_ssid is empty)"]
    assert not wpa.exists() and not (root / "etc/systemd/network/50-companion-wlan0.network").exists()
    assert run.commands == [["systemctl", f"--root={root}", "disable", "--quiet",
                             "wpa_supplicant@wlan0.service"]]


class PowerCut(Exception):
    pass


@pytest.mark.parametrize("moment", ["writing the new file", "before the rename",
                                    "inside the rename (FAT)"])
def test_a_cut_while_blanking_leaves_a_whole_file_and_the_next_boot_finishes(root, monkeypatch, moment):
    source = root / "boot/firmware/companion.txt"
    replace = os.replace

    def cut(src: object, dst: object) -> None:
        if Path(str(dst)) != source:
            return replace(src, dst)  # type: ignore[arg-type]  # the paths os.replace was given
        if moment == "writing the new file":
            Path(str(src)).write_bytes(source.read_bytes()[:40])  # flushed only in part
        elif moment == "inside the rename (FAT)":
            source.unlink()  # the old entry gone, the new one not yet named
        raise PowerCut

    monkeypatch.setattr(firstboot.os, "replace", cut)
    with pytest.raises(PowerCut):
        boot(root)
    monkeypatch.setattr(firstboot.os, "replace", replace)
    assert not (root / APPLIED.relative_to("/")).exists()  # nothing noted as applied
    lines = boot(root)
    assert lines[0].startswith("recovered: ")
    text = source.read_text()
    assert "s3cret" not in text and "wifi_ssid = \"Café #2\"" in text
    assert not source.with_name("companion.txt.new").exists()
    psk = network.wpa_psk("Café #2", "s3cret#pass word")
    assert f"psk={psk}" in (root / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf").read_text()
    assert boot(root) == [f"{SETTINGS} is unchanged since it was applied"]


def unit_condition() -> list[str]:
    """The first-boot unit's ExecCondition= shell script, split into its words."""
    unit = (REPO / "systemd/companion-firstboot.service").read_text()
    command = shlex.split(re.search(r"(?m)^ExecCondition=(.*)$", unit)[1])
    assert command[:2] == ["/bin/sh", "-c"]
    return command[2].split()


def condition_in(root: Path) -> int:
    """The unit's condition run in the staged root: 0 starts first boot's Python, 1 skips it."""
    words = unit_condition()
    assert words[:3] == ["cd", "/", "&&"]
    script = " ".join(["cd", shlex.quote(str(root)), *words[2:]])
    return subprocess.run(["/bin/sh", "-c", script], timeout=30).returncode


def test_the_unit_hashes_the_files_first_boot_notes_in_its_order():
    words = unit_condition()
    hashed = words[words.index("sha256sum") + 1:words.index("2>/dev/null")]
    watched = firstboot_report.watched(SETTINGS, APPLIED, imager.FILES)
    assert hashed == [str(path.relative_to("/")) for path in watched]
    assert words[-1] == str(firstboot_report.stamp_path(APPLIED).relative_to("/"))


def test_the_unit_starts_python_only_when_a_file_it_reads_or_writes_changed(root):
    """Issue 40: first boot costs no Python at a boot where nothing changed."""
    source = root / "boot/firmware/companion.txt"
    report = root / APPLIED.relative_to("/")
    assert condition_in(root) == 0  # never applied
    boot(root)
    assert condition_in(root) == 1
    changes = {
        "an edit": lambda: source.write_bytes(source.read_bytes() + b"# a comment\r\n"),
        "a replacement a power cut left": lambda: source.with_name("companion.txt.new").write_text(GOOD),
        "Imager's file": lambda: (source.parent / "user-data").write_text("#cloud-config\n"),
        "the report lost": lambda: report.unlink(),
        "the report damaged": lambda: report.write_text("{not json"),
    }
    for change, make in changes.items():
        make()
        assert condition_in(root) == 0, change
        boot(root)
        assert condition_in(root) == 1, change


def test_a_file_too_big_to_read_is_reported_at_every_boot(root):
    (root / "boot/firmware/companion.txt").write_bytes(b"x = y\n" * (firstboot.MAX_READ // 5))
    boot(root)
    assert condition_in(root) == 0


def test_problems_are_kept_on_the_data_partition_for_the_box_doctor_and_page(root):
    (root / "boot/firmware/companion.txt").write_bytes(
        b"hostname = localhost\r\nwifi_country = XX\r\ntimezone = localtime\r\nssid = Caf\xe9\r\n")
    boot(root)
    report = firstboot_report.in_state_dir(root / "var/lib/companion")
    assert report is not None and report.problems == [
        "line 1: hostname = 'localhost' is refused: a hostname is 1 to 63 letters, digits and "
        "inner hyphens, not localhost, e.g. companion",
        "line 4: unknown setting 'ssid' (did you mean wifi_ssid?)",
        "line 3: timezone = 'localtime' is refused: it is not in the time zone database: write a "
        "name like Europe/Paris, America/New_York or UTC",
        "line 2: wifi_country = 'XX' is refused: it is not a country's ISO 3166 code: e.g. FR, "
        "GB, US, DE"]
    assert report.notices == ["companion.txt is not UTF-8: it was read as Windows-1252 (Western "
                              "European); save it as UTF-8 to be sure of accents"]
    assert not (root / "etc/localtime").exists() and not (root / "etc/hostname").exists()
    written = (root / "boot/firmware/companion-problems.txt").read_text()
    assert all(line in written for line in report.problems + report.notices)


def test_ten_megabytes_of_lines_are_refused_quickly_with_a_small_report(root):
    source = root / "boot/firmware/companion.txt"
    source.write_bytes(b"wifi_password = s3cret-pass\n" + b"x = y\n" * (10 * 2**20 // 6))
    assert boot(root) == ["problem: companion.txt is 10 MiB, far beyond the 64 KiB the box reads: "
                          "delete it and write it again from the template"]
    assert (root / "boot/firmware/companion-problems.txt").stat().st_size < 1024


def test_an_oversized_file_within_reach_still_loses_its_passphrase(root):
    source = root / "boot/firmware/companion.txt"
    source.write_bytes(b"wifi_password = s3cret-pass\r" + b"x = y\r" * 20000)
    lines = boot(root)
    assert lines[0].startswith("problem: companion.txt is 117 KiB; the box reads at most 64 KiB")
    assert b"s3cret" not in source.read_bytes() and source.read_bytes().startswith(b"wifi_password =\r")


def test_the_staged_mode_applies_a_notepad_unicode_file(tmp_path, root):
    (root / "boot/firmware/companion.txt").write_bytes(
        "hostname = Tavolo\r\nwifi_pasword = s3cret-pass\r\n".encode("utf-16"))
    result = subprocess.run(
        [sys.executable, "-m", "companion.appliance.firstboot", str(SETTINGS), "--root", str(root),
         "--applied", str(APPLIED)], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert (root / "etc/hostname").read_text() == "tavolo\n"
    assert "s3cret" not in (root / "boot/firmware/companion.txt").read_bytes().decode("utf-16")


# ----- SSH: off until a public key is given ---------------------------------------------------

@pytest.fixture
def ssh_root(root):
    """The staging root with what Debian's openssh-server brings: its unit and /etc/ssh."""
    (root / "lib/systemd/system").mkdir(parents=True)
    (root / "lib/systemd/system/ssh.service").write_text(
        "[Unit]\nDescription=OpenBSD Secure Shell server\n[Service]\nExecStart=/usr/sbin/sshd -D\n"
        "[Install]\nWantedBy=multi-user.target\nAlias=sshd.service\n")
    (root / "etc/ssh").mkdir(parents=True)
    return root


def public_key(tmp_path: Path) -> str:
    """A key pair made for the test (none is kept in the repository); its public line."""
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "owner@laptop",
                    "-f", str(tmp_path / "owner")], check=True)
    return (tmp_path / "owner.pub").read_text().strip()


def staged(root: Path, text: str) -> subprocess.CompletedProcess[str]:
    """The staged first boot, as the issue runs it: the module on a file inside ``root``."""
    (root / "boot/firmware/companion.txt").write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "companion.appliance.firstboot", str(SETTINGS), "--root", str(root),
         "--applied", str(APPLIED)], capture_output=True, text=True, cwd=REPO)


def test_a_public_key_turns_ssh_on_for_that_key_and_emptying_it_turns_it_off(ssh_root, tmp_path):
    """Issue 37: "openssh-server on the image, disabled until an SSH public key is given";
    "Empty a setting to remove it (Wi-Fi network, SSH key)"."""
    key = public_key(tmp_path)
    wants = ssh_root / "etc/systemd/system/multi-user.target.wants/ssh.service"
    result = staged(ssh_root, "hostname = tavolo\n")           # no key: SSH stays off
    assert result.returncode == 0, result.stderr
    assert not wants.exists() and not (ssh_root / "root/.ssh/authorized_keys").exists()
    result = staged(ssh_root, f"hostname = tavolo\nssh_key = {key}\n")
    assert result.returncode == 0, result.stderr
    assert "applied: SSH on for the key given (as root, no password)" in result.stdout
    authorized = ssh_root / "root/.ssh/authorized_keys"
    assert authorized.read_text() == key + "\n" and authorized.stat().st_mode & 0o777 == 0o600
    assert wants.is_symlink()
    # The box's own host keys, made on it: the image ships none.
    assert (ssh_root / "etc/ssh/ssh_host_ed25519_key").stat().st_mode & 0o777 == 0o600
    result = staged(ssh_root, "hostname = tavolo\nssh_key =\n")
    assert result.returncode == 0, result.stderr
    assert "applied: SSH off (ssh_key is empty)" in result.stdout
    assert not authorized.exists() and not wants.exists()


@pytest.mark.parametrize(("given", "why"), [
    ("-----BEGIN OPENSSH PRIVATE KEY-----", "this is a private key"),
    ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAA", "the key's text is damaged"),
    ("my laptop's key", "an SSH public key is one line like"),
])
def test_anything_but_a_whole_public_key_is_refused_and_ssh_stays_off(ssh_root, given, why):
    result = staged(ssh_root, f"ssh_key = {given}\n")
    assert result.returncode == 0, result.stderr
    problems = (ssh_root / "boot/firmware/companion-problems.txt").read_text()
    assert "line 1: ssh_key = " in problems and why in problems
    assert not (ssh_root / "etc/systemd/system/multi-user.target.wants/ssh.service").exists()


# ----- update keys: taken once -------------------------------------------------------------

def test_update_keys_are_trusted_once_and_a_later_card_cannot_add_others(root, tmp_path):
    """Issue 36: "the builder of an image can put their own key in (... and a `update_keys`
    line in `companion.txt` read at first boot only)"."""
    from companion.appliance import signing

    first = signing.make_key(tmp_path / "keys", "owner")[1].read_text().strip()
    other = signing.make_key(tmp_path / "keys", "stranger")[1].read_text().strip()
    result = staged(root, f"update_keys = {first}\n")
    assert result.returncode == 0, result.stderr
    assert "applied: updates signed by the key given trusted" in result.stdout
    trusted = signing.trusted_keys(root / "etc/companion/update-keys")
    assert [key.name for key in trusted] == ["owner"]
    result = staged(root, f"update_keys = {first}\nupdate_keys = {other}\n")
    assert result.returncode == 0, result.stderr
    problems = (root / "boot/firmware/companion-problems.txt").read_text()
    assert "update_keys is taken once: the box keeps trusting the keys it was given first" in problems
    assert [key.name for key in signing.trusted_keys(root / "etc/companion/update-keys")] == ["owner"]


def test_anything_but_an_update_key_line_is_refused_with_the_reason(root):
    result = staged(root, "update_keys = ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA me\n")
    assert result.returncode == 0, result.stderr
    problems = (root / "boot/firmware/companion-problems.txt").read_text()
    assert "line 1: update_keys = " in problems
    assert "an update key is the line of the .pub file companion update --make-key made" in problems
    assert not (root / "etc/companion/update-keys").exists()
