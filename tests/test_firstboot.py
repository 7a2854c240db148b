"""companion.txt: parsed with a message for every bad line, applied once, passphrase blanked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import firstboot
from companion.appliance.firstboot import Box, first_boot, parse

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
        "inner hyphens, e.g. companion",
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
        "wifi_password, timezone, phone_page",
    ]
    assert settings.wifi_ssid == "Home" and settings.hostname is None


def test_the_wpa_key_is_the_one_wpa_passphrase_derives():
    # IEEE 802.11i test vector: passphrase "password", SSID "IEEE".
    assert firstboot.wpa_psk("IEEE", "password") == (
        "f42c6fc52df0ebef9ebb4b90b38a5f902e83fe1b135a70e23aed762e9710a12e")


class Recorder:
    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command: list[str]) -> None:
        self.commands.append(command)


@pytest.fixture
def root(tmp_path):
    zone = tmp_path / "usr/share/zoneinfo/Europe/Paris"
    zone.parent.mkdir(parents=True)
    zone.write_bytes(b"TZif2")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\tdebian\n")
    boot = tmp_path / "boot/firmware"
    boot.mkdir(parents=True)
    (boot / "companion.txt").write_text(GOOD)
    return tmp_path


def test_applied_once_then_the_passphrase_is_blanked_and_a_new_edit_applies_again(root):
    run = Recorder()
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
    psk = firstboot.wpa_psk("Café #2", "s3cret#pass word")
    assert wpa.read_text().splitlines()[3:7] == [
        "country=FR", "network={", f"    ssid={'Café #2'.encode().hex()}", f"    psk={psk}"]
    assert wpa.stat().st_mode & 0o777 == 0o600
    assert "_http._tcp" in (root / "etc/avahi/services/companion.service").read_text()
    assert run.commands == [
        ["systemctl", f"--root={root}", "enable", "--quiet", "wpa_supplicant@wlan0.service"],
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
                     "timezone 'Mars/Olympus' is not a known time zone"):
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
