"""The SD-card image's files and the emulated box's harness, checked without QEMU.

The build itself and the boot are bench/appliance.py's (they take minutes); here: what the
image's boot partition and fstab say, the guest agent's protocol over a real pty, the unit's
sandbox copied for the GPIO check, and the partition and fsck helpers on small real images.
Quotes are from issue 22.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import tty
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
IMAGE = REPO / "image"
sys.path.insert(0, str(IMAGE / "test-agent"))
sys.path.insert(0, str(REPO / "bench"))

import agent  # noqa: E402
import appliance  # noqa: E402
import unit_run  # noqa: E402

needs = pytest.mark.skipif(not (shutil.which("mkfs.ext4") and shutil.which("sfdisk")),
                           reason="e2fsprogs and fdisk are not installed")


def listed(name: str) -> set[str]:
    """The names in one of image/'s list files (one a line, # comments)."""
    return {line.split("#", 1)[0].strip() for line in (IMAGE / name).read_text().splitlines()} - {""}


def fstab() -> dict[str, list[str]]:
    rows = [line.split() for line in (IMAGE / "rootfs/etc/fstab").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return {row[1]: row for row in rows}


def test_the_root_is_read_only_and_the_journal_has_its_own_partition():
    """"the root filesystem; a separate data partition for the journal (so the root can be
    kept read-only and SD-card wear stays on one small partition)"."""
    mounts = fstab()
    assert "ro" in mounts["/"][3].split(",")
    assert mounts["/data"][:3] == ["LABEL=companion-data", "/data", "ext4"]
    # The journal, and the program whose second venv an update writes, live there.
    assert mounts["/var/lib/companion"][:3] == ["/data/state", "/var/lib/companion", "none"]
    assert mounts["/opt/companion"][:3] == ["/data/opt", "/opt/companion", "none"]
    assert "bind" in mounts["/opt/companion"][3].split(",")
    # BlueZ keeps the adapter's settings and the dice it knows there, not on the read-only root
    assert mounts["/var/lib/bluetooth"][:3] == ["/data/bluetooth", "/var/lib/bluetooth", "none"]
    assert {"/tmp", "/var/tmp"} <= {m for m, row in mounts.items() if row[2] == "tmpfs"}
    # The labels the fstab names are the ones build.sh gives the filesystems.
    build = (IMAGE / "build.sh").read_text()
    for label in ("companion-root", "companion-data", "COMPANION"):
        assert f"={label}" in build
        assert any(row[0] == f"LABEL={label}" for row in mounts.values())


def test_a_missing_data_partition_never_stops_the_boot_and_is_told():
    """Issue 37: "the data partition mounts with nofail and the box says what it is missing":
    it and its binds are nofail (the boot goes on, no emergency shell nobody sees), and the
    OLED's stop screen runs after the mount was tried, from the root filesystem."""
    mounts = fstab()
    for where in ("/data", "/var/lib/companion", "/opt/companion", "/var/lib/systemd",
                  "/var/lib/bluetooth"):
        assert "nofail" in mounts[where][3].split(","), where
    unit = (REPO / "systemd/companion-stopped.service").read_text()
    assert "After=local-fs.target systemd-modules-load.service data.mount" in unit
    assert "ExecStart=/usr/bin/python3 -m companion.appliance.stopped" in unit and "--data /data" in unit
    assert "PYTHONPATH=/usr/lib/companion/stopped" in unit
    assert (REPO / "systemd/companion-onfailure.conf").read_text().splitlines()[-1] == (
        "OnFailure=companion-stopped.service")


def test_the_stop_screen_starts_python_at_boot_only_without_the_data_partition():
    """Issue 40: an ordinary boot pays nothing for the stop screen; the OnFailure= unit stays
    unconditional."""
    stopped = (REPO / "systemd/companion-stopped.service").read_text()
    assert "[Install]" not in stopped and "Condition" not in stopped
    at_boot = (REPO / "systemd/companion-stopped-at-boot.service").read_text().splitlines()
    assert "ConditionPathIsMountPoint=!/data" in at_boot
    assert "After=local-fs.target data.mount" in at_boot
    assert "ExecStart=/bin/systemctl --no-block start companion-stopped.service" in at_boot
    assert "WantedBy=multi-user.target" in at_boot


def test_the_shipped_settings_are_applied_while_the_image_is_built():
    """Issue 40: a card whose companion.txt nobody edited starts no Python for it at its first
    boot: the build applies it and leaves first boot's report and digests on the data partition."""
    build = (IMAGE / "build.sh").read_text()
    assert ("-m companion.appliance.firstboot /boot/firmware/companion.txt \\\n"
            '    --root "$ROOT" --applied /var/lib/companion/firstboot.json') in build
    assert 'mv "$ROOT"/var/lib/companion/firstboot.{json,sha256} "$DATA/state/"' in build
    copied = build.index('cp "$ROOT/boot/firmware/companion.txt"')
    assert build.index("companion.appliance.firstboot") < copied


def test_first_boot_comes_before_the_update_check_and_the_box():
    """Issue 37: "first boot is ordered before the update check and the box's start"."""
    unit = (REPO / "systemd/companion-firstboot.service").read_text()
    before = {name for line in unit.splitlines() if line.startswith("Before=")
              for name in line.removeprefix("Before=").split()}
    assert {"companion-update-check.service", "companion.service"} <= before
    assert "Requires=" not in unit.replace("RequiresMountsFor=", "")   # ordered, never required


def test_config_txt_sets_i2c_at_400_khz_for_a_64_bit_kernel():
    """"config.txt (I²C at 400 kHz)"."""
    lines = (IMAGE / "config.txt").read_text().splitlines()
    assert "arm_64bit=1" in lines
    assert "dtparam=i2c_arm=on,i2c_arm_baudrate=400000" in lines
    assert "initramfs initrd.img followkernel" in lines


def test_cmdline_boots_the_read_only_root_by_label():
    words = [w for line in (IMAGE / "cmdline.txt").read_text().splitlines()
             for w in line.split("#", 1)[0].split()]
    assert "root=LABEL=companion-root" in words and "ro" in words and "rootwait" in words
    assert "cryptomgr.notests" in words  # issue 40: half a second of every boot


def test_the_packages_are_debian_bookworm_names_with_the_boot_parts():
    """"made only from Debian's packages (raspi-firmware, linux-image-arm64, firmware for the
    Wi-Fi chip, systemd, avahi, python3)"."""
    names = listed("packages.txt")
    assert {"raspi-firmware", "linux-image-arm64", "firmware-brcm80211", "systemd",
            "avahi-daemon", "python3", "python3-venv"} <= names


def test_the_initramfs_carries_the_sd_and_virtio_disk_drivers_only():
    modules = listed("initramfs-modules")
    assert {"mmc_block", "sdhci_iproc", "bcm2835", "ext4", "virtio_blk"} <= modules
    assert not {"dwc2", "usb_storage", "uas", "virtio_mmio"} & modules  # issue 40: the root only
    assert "MODULES=list" in (IMAGE / "initramfs.conf").read_text()


def test_the_initramfs_udev_replays_the_disks_only():
    """Issue 40: "keep the initramfs to what mounts the root": its udev replays the block
    devices, not every device (the root's udev does that), and the base is rebuilt with it."""
    script = (IMAGE / "initramfs-udev").read_text()
    assert "udevadm trigger --type=devices --subsystem-match=block --action=add" in script
    assert "--type=subsystems" not in script
    assert "/etc/initramfs-tools/scripts/init-top/udev" in (IMAGE / "base-rootfs.sh").read_text()
    assert '"$HERE/initramfs-udev"' in (IMAGE / "build.sh").read_text()


# ----- the guest agent ----------------------------------------------------------------------
@pytest.fixture
def agent_on_pty():
    """The agent serving one end of a pty, as it serves the emulated Pi's UART."""
    host, guest = os.openpty()
    tty.setraw(guest)
    served = agent.Agent(os.ttyname(guest))
    threading.Thread(target=served.serve, daemon=True).start()
    reader = os.fdopen(host, "r+b", buffering=0)
    yield reader
    reader.close()
    os.close(guest)


def read_message(reader) -> dict:
    line = b""
    while not line.endswith(b"\n"):
        line += reader.read(1)
    return json.loads(line)


def test_the_agent_says_hello_then_runs_commands_and_streams_lines(agent_on_pty):
    assert read_message(agent_on_pty)["hello"] > 0
    agent_on_pty.write(b"line noise before the host spoke\n")
    agent_on_pty.write(json.dumps({"id": 1, "sh": "echo out; echo err >&2; exit 3"}).encode() + b"\n")
    assert read_message(agent_on_pty) == {"id": 1, "rc": 3, "out": "out\n", "err": "err\n"}
    agent_on_pty.write(json.dumps({"id": 3, "sh": "wc -c", "stdin": "AAEC"}).encode() + b"\n")
    assert read_message(agent_on_pty) == {"id": 3, "rc": 0, "out": "3\n", "err": ""}
    agent_on_pty.write(json.dumps({"id": 2, "sh": "echo a; echo b", "stream": True}).encode() + b"\n")
    assert [read_message(agent_on_pty) for _ in range(3)] == [
        {"id": 2, "line": "a"}, {"id": 2, "line": "b"}, {"id": 2, "rc": 0}]


def test_the_gpio_check_runs_under_the_units_sandbox_not_its_start_settings():
    """"the real gpiozero pin factory opening the five button lines and the buzzer ... under
    the unit's DeviceAllow rules"."""
    properties = unit_run.sandbox(str(REPO / "systemd" / "companion.service"))
    settings = properties[1::2]
    assert set(properties[::2]) == {"-p"}
    for kept in ("User=companion", "DevicePolicy=closed", "DeviceAllow=char-gpiochip rw",
                 "ProtectSystem=strict", "PrivateNetwork=yes",
                 "SupplementaryGroups=gpio i2c spi dialout bluetooth"):
        assert kept in settings
    assert not [s for s in settings if s.split("=", 1)[0] in unit_run.NOT_SANDBOX]


# ----- partitions and fsck, on real small images --------------------------------------------
@needs
def test_partitions_are_read_from_the_image_and_fsck_finds_damage(tmp_path):
    disk = tmp_path / "disk.img"
    disk.write_bytes(b"")
    os.truncate(disk, 16 << 20)
    subprocess.run(["sfdisk", "--quiet", str(disk)], check=True, text=True,
                   input="label: dos\nstart=2048, size=8192, type=83\nstart=10240, size=20480, type=83\n")
    assert appliance.partitions(disk) == [(2048 * 512, 8192 * 512), (10240 * 512, 20480 * 512)]
    fs = tmp_path / "fs.ext4"
    subprocess.run(["mkfs.ext4", "-q", "-F", str(fs), "10M"], check=True)
    subprocess.run(["dd", f"if={fs}", f"of={disk}", "bs=512", "seek=10240", "conv=notrunc",
                    "status=none"], check=True)
    assert appliance.fsck_errors(disk, 1, tmp_path) == 0
    with disk.open("r+b") as f:  # the root directory's inode table overwritten
        f.seek(10240 * 512 + 1024 * 5 + 4096 * 3)
        f.write(os.urandom(64 * 1024))
    assert appliance.fsck_errors(disk, 1, tmp_path) == 1


def test_the_guests_first_boot_probe_is_python_the_guest_can_run():
    """The emulated box runs CASE_PROBE with the guest's Python: it must at least compile
    (a byte string once held non-ASCII characters and every case failed in the guest)."""
    compile(appliance.CASE_PROBE, "firstboot probe", "exec")
    assert appliance.CASE_PROBE.isascii()


def test_the_aims_missed_are_only_those_of_the_checks_that_ran():
    figures = {"unit_ready": True, "verify_errors": 0, "critical_chain_network": False,
               "boot_to_ready_s": 30.0, "watchdog_restart_s": 14.0,
               "usb_replugs": 3, "usb_reconnected": 2, "page_port_80": True, "page_port_8080": True}
    assert appliance.missed_aims(figures, {"unit"}, 3, 6) == []
    assert appliance.missed_aims({**figures, "page_port_80": False}, {"unit"}, 3, 6) == [
        "page_port_80"]
    assert appliance.missed_aims(figures, {"unit", "usb"}, 3, 6) == ["usb_replugs"]
    assert appliance.missed_aims({**figures, "verify_errors": 2}, {"unit"}, 3, 6) == ["verify_errors"]
    assert appliance.missed_aims({"release_ok": False}, {"release"}, 3, 6) == ["release_ok"]
    assert appliance.missed_aims(figures, {"powercut"}, 3, 6) == [
        "acknowledged_lost", "resume_mismatches", "fsck_errors", "powercut_kills"]


def test_the_update_check_misses_its_aims_when_a_cut_loses_a_play_or_a_kill_was_not_made():
    """"update_kills ... with plays_lost_by_update 0 and journal_owner_ok true after each"
    (issue 36)."""
    figures = {"update_ok": True, "rollback_ok": True, "root_owned_files_from_release": 0,
               "update_attacks": 8, "update_attacks_refused": 8, "update_security_score": 1.6,
               "update_kills": 2, "plays_lost_by_update": 0, "journal_owner_ok": True,
               "update_kills_box_ok": True, "kept_version_ok": True, "update_set_aside_said": True}
    cuts = {"update", "updatecuts"}
    assert appliance.missed_aims(figures, cuts, 3, 6, quick=True) == []
    # The install cut off twice must be set aside and said, not tried a third time.
    tried_again = {**figures, "update_set_aside_said": None}
    assert appliance.missed_aims(tried_again, cuts, 3, 6, quick=True) == ["update_set_aside_said"]
    assert appliance.missed_aims(figures, cuts, 3, 6) == ["update_kills"]  # the full run
    lossy = {**figures, "plays_lost_by_update": 3, "journal_owner_ok": False}
    assert appliance.missed_aims(lossy, cuts, 3, 6, quick=True) == [
        "plays_lost_by_update", "journal_owner_ok"]
    # The update check without its cuts (--skip updatecuts) has no cut to miss.
    uncut = {key: value for key, value in figures.items()
             if key not in ("update_kills", "update_set_aside_said")}
    assert appliance.missed_aims(uncut, {"update"}, 3, 6, quick=True) == []


def masked_units() -> set[str]:
    """The units image/stage-system.sh masks (its `systemctl --root=... mask` lines)."""
    script = (IMAGE / "stage-system.sh").read_text().replace("\\\n", " ")
    return {word for line in script.splitlines() if " mask " in line
            for word in line.split(" mask ", 1)[1].split() if word.endswith((".service", ".timer",
                                                                             ".mount", ".automount"))}


def test_the_image_masks_what_an_appliance_does_not_use_but_keeps_the_network_wait():
    """"mask units an appliance does not need (apt timers, man-db, what blame shows)" (issue 40)."""
    assert {"apt-daily.timer", "apt-daily-upgrade.timer", "man-db.timer", "systemd-binfmt.service",
            "proc-sys-fs-binfmt_misc.automount", "systemd-pstore.service",
            "dpkg-db-backup.timer", "modprobe@drm.service", "systemd-repart.service",
            "sys-fs-fuse-connections.mount", "sys-kernel-config.mount"} <= masked_units()
    # The phone page is ordered after network-online.target, which this unit reaches.
    assert "systemd-networkd-wait-online.service" not in masked_units()
