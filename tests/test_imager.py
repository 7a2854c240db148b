"""Raspberry Pi Imager's customisation (init_format "cloudinit"): the user-data and
network-config it writes beside companion.txt, applied by the staged first boot as the box
applies them, the Wi-Fi key blanked after use, companion.txt brought up to date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import imager, network
from companion.appliance.settings_file import Settings, parse, set_values
from tests.test_firstboot import APPLIED, SETTINGS, make_root, public_key

REPO = Path(__file__).resolve().parent.parent
PSK = network.wpa_psk("Home Net", "correct horse battery")


def user_data(key: str) -> str:
    """As Imager's customisation writes it for a hostname, a time zone and an SSH key (its
    keyboard, avahi and apt lines included: the box leaves them)."""
    return ("#cloud-config\nhostname: tavolo\nmanage_etc_hosts: true\npackages:\n- avahi-daemon\n"
            "\napt:\n  conf: |\n    Acquire {\n      Check-Date \"false\";\n    };\n\n"
            "timezone: Europe/London\nkeyboard:\n  model: pc105\n  layout: \"gb\"\n"
            "enable_ssh: true\nusers:\n- name: owner\n  groups: users,adm,dialout,gpio,i2c,sudo\n"
            f"  shell: /bin/bash\n  lock_passwd: true\n  ssh_authorized_keys:\n    - {key}\n"
            "  sudo: ALL=(ALL) NOPASSWD:ALL\n")


NETWORK = ("network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n"
           "      regulatory-domain: \"GB\"\n      access-points:\n        \"Home Net\":\n"
           f"          password: \"{PSK}\"\n      optional: true\n")


@pytest.fixture
def card(tmp_path):
    """A staging root as the box's first boot sees it: the zoneinfo it checks against, the
    ssh unit, and the shipped companion.txt on the boot partition."""
    root = make_root(tmp_path)
    (root / "lib/systemd/system").mkdir(parents=True)
    for unit in ("companion-web.service", "companion-web.socket"):
        (root / "lib/systemd/system" / unit).write_text((REPO / "systemd" / unit).read_text())
    (root / "lib/systemd/system/ssh.service").write_text(
        "[Service]\nExecStart=/usr/sbin/sshd -D\n[Install]\nWantedBy=multi-user.target\n")
    (root / "lib/systemd/system/wpa_supplicant@.service").write_text(
        "[Service]\nExecStart=/sbin/wpa_supplicant -i%I\n[Install]\nWantedBy=multi-user.target\n")
    (root / "etc/ssh").mkdir(parents=True)
    (root / "boot/firmware/companion.txt").write_text((REPO / "systemd/companion.txt").read_text())
    return root


def first_boot(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.appliance.firstboot", str(SETTINGS), "--root", str(root),
         "--applied", str(APPLIED)], capture_output=True, text=True, cwd=REPO)


def test_imagers_hostname_wifi_country_time_zone_and_key_are_applied(card, tmp_path):
    """Issue 37: "hostname, Wi-Fi, country, time zone, SSH public key, user name ignored with a
    notice", from the files Imager writes for init_format "cloudinit"."""
    key = public_key(tmp_path)
    boot = card / "boot/firmware"
    (boot / "user-data").write_text(user_data(key))
    (boot / "network-config").write_text(NETWORK)
    result = first_boot(card)
    assert result.returncode == 0, result.stderr
    assert (card / "etc/hostname").read_text() == "tavolo\n"
    assert (card / "etc/localtime").readlink() == Path("/usr/share/zoneinfo/Europe/London")
    wpa = (card / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf").read_text()
    assert "country=GB" in wpa and f"psk={PSK}" in wpa and f"ssid={b'Home Net'.hex()}" in wpa
    assert (card / "root/.ssh/authorized_keys").read_text() == key + "\n"
    assert "notice: user-data: user 'owner' is not made" in result.stdout
    # The key is gone from the boot partition; companion.txt now says what the box has.
    assert PSK not in (boot / "network-config").read_text()
    told = parse((boot / "companion.txt").read_text())
    assert (told.hostname, told.wifi_ssid, told.wifi_country, told.timezone, told.ssh_key) == (
        "tavolo", "Home Net", "GB", "Europe/London", key)
    assert told.wifi_password is None
    # Once applied, the same card boots without applying anything again.
    again = first_boot(card)
    assert again.stdout.strip() == f"{SETTINGS} is unchanged since it was applied"
    # An edit of companion.txt afterwards wins: Imager's files are not applied again.
    text = (boot / "companion.txt").read_text().replace("timezone = Europe/London",
                                                        "timezone = Europe/Paris")
    (boot / "companion.txt").write_text(text)
    edited = first_boot(card)
    assert "applied: time zone Europe/Paris" in edited.stdout
    assert "hostname" not in edited.stdout and "Wi-Fi" not in edited.stdout
    assert f"psk={PSK}" in (card / "etc/wpa_supplicant/wpa_supplicant-wlan0.conf").read_text()


def test_broken_imager_files_are_named_and_the_rest_applies(card):
    boot = card / "boot/firmware"
    (boot / "user-data").write_text("#cloud-config\nhostname: [tavolo\n")
    (boot / "network-config").write_text("network:\n  wifis:\n    wlan0:\n      regulatory-domain: XX\n")
    result = first_boot(card)
    assert result.returncode == 0, result.stderr
    problems = (boot / "companion-problems.txt").read_text()
    assert "user-data is not valid YAML (line 3)" in problems       # where the reader stopped
    assert "network-config: wifi_country = 'XX' is refused: it is not a country's ISO" in problems
    assert (card / "etc/hostname").read_text() == "companion\n"   # companion.txt's, still


def test_yaml_is_read_in_safe_mode():
    """A tag that would build a Python object is refused as not valid YAML, never run."""
    settings = Settings()
    imager.read_user_data("hostname: !!python/object/apply:os.system ['true']\n", settings)
    assert settings.hostname is None and "not valid YAML" in settings.problems[0]


def test_companion_txt_takes_values_keeping_every_other_line_and_its_line_ends():
    text = "# mine\r\nhostname = companion\r\nssh_key =\r\nssh_key = old\r\nphone_page = on"
    assert set_values(text, {"hostname": ["tavolo"], "ssh_key": ["a", "b"], "timezone": ["UTC"]}) == (
        "# mine\r\nhostname = tavolo\r\nssh_key = a\r\nssh_key = b\r\nphone_page = on\r\n"
        "timezone = UTC\r\n")


# ----- the image's entry for Imager -----------------------------------------------------------

# The fields Imager's os_list schema requires of an image entry (its doc/json-schema/
# os-list-schema.json, os_list items, first form).
REQUIRED = {"name", "description", "icon", "url", "extract_size", "extract_sha256",
            "image_download_size", "release_date", "devices"}


def test_the_manifest_lists_the_image_with_its_sizes_hashes_and_cloud_init(tmp_path):
    import hashlib
    import json
    import lzma

    from companion.appliance import imager_list

    image = tmp_path / "companion.img"
    image.write_bytes(b"\0" * 65536 + b"table companion" * 1000)
    compressed = tmp_path / "companion.img.xz"
    compressed.write_bytes(lzma.compress(image.read_bytes()))
    out = tmp_path / "companion.rpi-imager-manifest"
    assert imager_list.main([str(image), str(compressed), "--out", str(out), "--date", "2026-12-06"]) == 0
    (found,) = json.loads(out.read_text())["os_list"]
    assert set(found) >= REQUIRED
    assert found["extract_size"] == image.stat().st_size
    assert found["extract_sha256"] == hashlib.sha256(image.read_bytes()).hexdigest()
    assert found["image_download_size"] == compressed.stat().st_size
    assert found["image_download_sha256"] == hashlib.sha256(compressed.read_bytes()).hexdigest()
    assert found["url"] == compressed.resolve().as_uri() and found["release_date"] == "2026-12-06"
    assert found["init_format"] == "cloudinit"          # Imager then writes user-data
    assert (tmp_path / "companion.svg").read_text().startswith("<svg")
    published = tmp_path / "web.rpi-imager-manifest"
    imager_list.main([str(image), str(compressed), "--out", str(published),
                      "--url", "https://example.org/box/"])
    (entry,) = json.loads(published.read_text())["os_list"]
    assert entry["url"] == "https://example.org/box/companion.img.xz"
    assert entry["icon"] == "https://example.org/box/companion.svg"
