"""The emulated box: the SD-card image built by image/build.sh, booted in QEMU (TCG), checked
as an appliance. Prints one JSON object.

Machines: QEMU's ``virt`` (cortex-a53, virtio disk, xHCI USB) for the unit, the USB sensor,
the power cuts, the watchdog and the updates; ``raspi3b`` (the BCM2835's GPIO, which virt
lacks) for the pins. Both boot the image's own kernel, initramfs and command line (QEMU loads
them where a Pi's firmware would) from a copy of the test image: the flashed image plus the
benchmark's agent (image/test-agent/), which talks to this script over a virtio-serial port
(virt) or the Pi's UART (raspi3b).

Figures (aims in brackets): ``boot_to_ready_s``; ``unit_ready`` (true); ``verify_errors`` (0);
``critical_chain_network`` (false); ``page_port_80`` and ``page_port_8080`` (true: the phone
page answers on both, from companion-web.socket); ``ssh_closed_without_key``, ``ssh_ok``,
``ssh_password_off``, ``ssh_off_again`` and ``firstboot_unit_applies`` (true: the hardened
first boot's unit sets the hostname and time zone), ``firstboot_security_score`` (≤ 5.0);
``firstboot_cases`` and ``firstboot_cases_ok`` (equal); ``image_xz_mb`` and ``release_ok``
(true); ``gpio_lines_opened`` (6: five buttons and the buzzer);
``usb_replugs`` (≥ 10, 3 with --quick) and ``usb_reconnected`` (equal); ``usb_reconnect_s_max``;
``powercut_kills`` (≥ 50, 6 with --quick), ``acknowledged_lost`` (0), ``resume_mismatches``
(0), ``fsck_errors`` (0); ``watchdog_restart_s``; ``update_kills`` (the check updatecuts,
bench/update_cuts_guest.py: the power cut during the build and during the switch of an update
through the spool, 2 with --quick, and in the full run also the updater's unit SIGKILLed at
each of its messages) with
``plays_lost_by_update`` (0), ``journal_owner_ok``, ``update_kills_box_ok`` and
``kept_version_ok`` (true) after each, and ``update_cuts_s``; ``update_set_aside_said``
(true: the install cut off twice is set aside, not tried a third time, and doctor in the box
says so with the cut install's messages); ``update_ok`` (that signed release, installed again
at the boot after each cut, set aside after the second and handed back as doctor says,
finished) and ``rollback_ok`` (true); ``update_attacks`` (the
hostile releases of bench/release_attacks.py tried) and ``update_attacks_refused`` (equal);
``root_owned_files_from_release`` (0: what the good release's .pth file wrote as root, see
docs/update.md) and ``release_code_runs``;
``update_security_score`` (≤ 5.0: systemd-analyze security of companion-update.service and
companion-update-check.service in the box, the higher) and ``firstboot_security_score``;
``hotspot_ok`` (true: with mac80211_hwsim's radios in the guest and no network known, the
box's access point opens, a phone joins it, takes an address, names a network on the page,
and the box joins that network and closes its access point; ``hotspot_s`` its seconds);
``usb_spill_ok`` (true: a hot-plugged USB stick is mounted, the data partition fails under a
playing box, and the held play is a file on the stick that the About screen names);
smart dice through the box's real radio path (bench/ble_guest.py: bleak, BlueZ, the guest
kernel's hci_uart on a USB-serial line whose host end is a bumble controller, linked to bumble
peripherals advertising and speaking as Pixels and GoDice do): ``ble_pair_s`` (the box's own
Settings → Dice, Find dice then OK and a colour on each die: its search's start → every die
paired and connected; aim < 60 s), ``ble_state_writable`` (true: BlueZ's folder on the data
partition holds a folder for each die, and bluetoothd logged no error writing there),
``ble_dice_connected`` (4), ``ble_rolls`` and
``ble_rolls_read`` (equal; 20, 5 with --quick), ``ble_roll_to_state_ms_p99`` (the last
notification received in the guest → the box's state), ``ble_reconnects`` (3, 1 with --quick)
and ``ble_reconnected`` (equal), ``ble_reconnect_s_max`` (advertising again → every die
connected), ``ble_malformed_sent`` and ``ble_false_faces`` (0).
Exits 1 when an aim is missed.

    python bench/appliance.py [--quick] [--json] [--seed N] [--image-dir DIR]
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import contextlib
import json
import os
import queue
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import ble_guest  # noqa: E402  (bench/ is not a package)
import release_attacks  # noqa: E402
import reliability  # noqa: E402
import update_cuts_guest  # noqa: E402

from companion.appliance import signing  # noqa: E402
from companion.appliance.release import sha256  # noqa: E402
from companion.appliance.slots import SET_ASIDE  # noqa: E402

CACHE = Path(os.environ.get("COMPANION_IMAGE_CACHE", "/var/cache/table-companion"))
CONSOLES = CACHE / "consoles"  # each machine's last console log
GUEST_LIB = "/usr/local/lib/companion-test"
GUEST_PYTHON = "/opt/companion/venv/bin/python"
GUEST_STATE = "/var/lib/companion"
GUEST_UPDATER = "/usr/local/sbin/companion-update"  # the updater as root runs it (docs/update.md)
# Where the good release's .pth file notes each start of a Python that loaded it, and its uid.
RELEASE_CODE_MARKS = f"{GUEST_STATE}/release-code-ran"
BOOT_TIMEOUT_S = 900  # TCG on a busy 2-core machine: a boot can take minutes
PUT_CHUNK = 1 << 20  # bytes of a file one agent request carries
UNIT_EXPOSURE_AIM = 5.0  # systemd-analyze security's exposure, at most, of the updater's units
PI3B_REVISION = 0xA02082  # a Raspberry Pi 3 Model B (1 GB, Sony UK), as its firmware writes it


BEGAN = time.monotonic()


def log(message: str) -> None:
    print(f"appliance [{time.monotonic() - BEGAN:.0f} s]: {message}", file=sys.stderr, flush=True)


# ----- the image ----------------------------------------------------------------------------
def update_key() -> tuple[Path, Path]:
    """The key this machine's emulated boxes trust for updates (private, public): made at the
    first run and kept with the image cache, so the cached image keeps trusting it."""
    folder = CACHE / "update-key"
    private, public = folder / "emulated-box.key", folder / "emulated-box.pub"
    if not public.exists():
        partial = folder.with_name("update-key.partial")
        for stale in (partial, folder):
            shutil.rmtree(stale, ignore_errors=True)
        signing.make_key(partial, "emulated-box")
        partial.rename(folder)
    return private, public


def build_image(out: Path) -> float:
    """image/build.sh with the test agent; seconds it took (a few when everything is cached)."""
    began = time.monotonic()
    subprocess.run(["bash", str(ROOT / "image" / "build.sh"), "--out", str(out / "image"),
                    "--test-agent", str(out / "test"), "--no-release",
                    "--update-key", str(update_key()[1])], check=True, stdout=sys.stderr)
    return time.monotonic() - began


def release_check(out: Path) -> dict[str, Any]:
    """image/build.sh's release artefacts: companion.img.xz, its checksum file, and Raspberry
    Pi Imager's manifest, whose sizes and hashes must be the files'."""
    began = time.monotonic()
    subprocess.run(["bash", str(ROOT / "image" / "build.sh"), "--out", str(out / "release")],
                   check=True, stdout=sys.stderr)
    release = out / "release"
    image, compressed = release / "companion.img", release / "companion.img.xz"
    listed = json.loads((release / "companion.rpi-imager-manifest").read_text())["os_list"][0]
    checked = subprocess.run(["sha256sum", "--check", "--quiet", "companion.img.xz.sha256"],
                             cwd=release, capture_output=True).returncode == 0
    return {"image_xz_mb": round(compressed.stat().st_size / 2**20, 1),
            "image_mb": round(image.stat().st_size / 2**20),
            "release_build_s": round(time.monotonic() - began, 1),
            "release_ok": checked and listed["image_download_size"] == compressed.stat().st_size
            and listed["extract_size"] == image.stat().st_size
            and listed["image_download_sha256"] == sha256(compressed)
            and listed["init_format"] == "cloudinit"}


def partitions(disk: Path) -> list[tuple[int, int]]:
    """(offset, size) in bytes of each partition of an image file."""
    table = json.loads(subprocess.run(["sfdisk", "--json", str(disk)], check=True,
                                      capture_output=True, text=True).stdout)["partitiontable"]
    unit = table.get("sectorsize", 512)
    return [(p["start"] * unit, p["size"] * unit) for p in table["partitions"]]


def extract(disk: Path, index: int, out: Path) -> Path:
    offset, size = partitions(disk)[index]
    subprocess.run(["dd", f"if={disk}", f"of={out}", "bs=1M", f"skip={offset}", f"count={size}",
                    "iflag=skip_bytes,count_bytes", "conv=sparse", "status=none"], check=True)
    return out


def fsck_errors(disk: Path, index: int, work: Path) -> int:
    """1 when the ext4 partition has errors once its journal is replayed (as at boot), else 0."""
    part = extract(disk, index, work / "fsck.ext4")
    try:
        subprocess.run(["e2fsck", "-E", "journal_only", "-y", str(part)], capture_output=True)
        return int(subprocess.run(["e2fsck", "-f", "-n", str(part)], capture_output=True).returncode != 0)
    finally:
        part.unlink()


# ----- a guest ------------------------------------------------------------------------------
class Guest:
    """One QEMU process booting a copy of the test image, and its agent."""

    def __init__(self, images: Path, disk: Path, work: Path, machine: str = "virt",
                 sensor_tty: str | None = None) -> None:
        self.images, self.disk, self.work, self.machine = images, disk, work, machine
        self.sensor_tty = sensor_tty
        self.replies: dict[int, queue.Queue] = {}
        self.hello = threading.Event()
        self.next_id = 0
        self.lock = threading.Lock()
        self.proc: subprocess.Popen | None = None
        self.agent: socket.socket | None = None
        self.qmp_file: Any = None
        self.qmp_replies: queue.Queue = queue.Queue()
        self.qmp_events: queue.Queue = queue.Queue()
        self.started = 0.0
        self.ssh_port = free_port()  # the host's loopback port QEMU forwards to the guest's 22

    def command(self) -> list[str]:
        cmdline = (self.images / "cmdline.txt").read_text().split()
        cmdline = [w for w in cmdline if not w.startswith("console=") and w != "quiet"]
        # Under TCG on a busy machine a unit can take minutes to start: systemd waits that
        # long before it gives up (the image's fstab gives its disks their own waits).
        cmdline += [f"systemd.default_timeout_start_sec={BOOT_TIMEOUT_S}"]
        agent_sock, qmp_sock = self.work / "agent.sock", self.work / "qmp.sock"
        cmd = ["qemu-system-aarch64", "-display", "none", "-no-reboot",
               "-kernel", str(self.images / "vmlinuz"), "-initrd", str(self.images / "initrd.img"),
               "-qmp", f"unix:{qmp_sock},server=on,wait=off"]
        if self.machine == "virt":
            cmd += ["-M", "virt", "-cpu", "cortex-a53", "-smp", "2", "-m", "1024",
                    "-append", " ".join(["console=ttyAMA0", *cmdline]),
                    "-serial", f"file:{self.work / 'console.log'}",
                    "-drive", f"file={self.disk},format=raw,if=none,id=disk,cache=writethrough",
                    "-device", "virtio-blk-pci,drive=disk",
                    "-device", "virtio-serial-pci",
                    "-chardev", f"socket,id=agent,path={agent_sock},server=on,wait=off",
                    "-device", "virtserialport,chardev=agent,name=companion.agent",
                    # no boot ROM for the network card: the kernel is booted directly, and
                    # Debian's QEMU has the ROM only in a recommended package (ipxe-qemu)
                    "-netdev", f"user,id=net,hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22",
                    "-device", "virtio-net-pci,netdev=net,romfile=",
                    "-device", "qemu-xhci,id=xhci"]
            if self.sensor_tty:
                cmd += ["-chardev", f"serial,id=sensor,path={self.sensor_tty}",
                        "-device", "usb-serial,chardev=sensor,id=dice,bus=xhci.0"]
        else:  # raspi3b: the console on the mini UART (ttyS1), the agent on the PL011
            cmd += ["-M", "raspi3b", "-dtb", str(self.work / "raspi3b.dtb"),
                    "-append", " ".join(["console=ttyS1,115200", "companion_test.port=ttyAMA0",
                                         *cmdline]),
                    "-serial", f"unix:{agent_sock},server=on,wait=off",
                    "-serial", f"file:{self.work / 'console.log'}",
                    "-drive", f"file={self.disk},format=raw,if=sd,cache=writethrough"]
        return cmd

    def start(self) -> None:
        for sock in ("agent.sock", "qmp.sock"):
            with contextlib.suppress(FileNotFoundError):
                (self.work / sock).unlink()
        self.started = time.monotonic()
        with open(self.work / "qemu.log", "w") as errors:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=errors)
        self.agent = self._connect(self.work / "agent.sock")
        threading.Thread(target=self._read_agent, daemon=True).start()
        qmp = self._connect(self.work / "qmp.sock")
        self.qmp_file = qmp.makefile("rw")
        self.qmp_file.readline()  # the greeting
        threading.Thread(target=self._read_qmp, daemon=True).start()
        self.qmp("qmp_capabilities")

    def _connect(self, path: Path) -> socket.socket:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(str(path))
                return sock
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    errors = (self.work / "qemu.log").read_text()
                    raise RuntimeError(f"QEMU did not start: {errors}") from None
                time.sleep(0.05)

    def _read_agent(self) -> None:
        waiting = self.replies  # this boot's waiters (boot_again gives the next boot its own)
        for line in self.agent.makefile("r", errors="replace"):
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "hello" in message:
                self.hello.set()
            elif message.get("id") in waiting:
                waiting[message["id"]].put(message)
        for replies in waiting.values():  # QEMU is gone: every waiter hears the end
            replies.put(None)

    def wait_hello(self, timeout: float = BOOT_TIMEOUT_S) -> float:
        if not self.hello.wait(timeout):
            raise RuntimeError(f"no agent after {timeout} s; console: {self.console_tail()}")
        return time.monotonic() - self.started

    def console_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.work / "console.log").read_text(errors="replace")[-2000:]
        return ""

    def _request(self, command: str, stream: bool = False, timeout: float = 600,
                 stdin: bytes = b"") -> queue.Queue:
        with self.lock:
            self.next_id += 1
            ident = self.next_id
            self.replies[ident] = queue.Queue()
            data = json.dumps({"id": ident, "sh": command, "stream": stream, "timeout": timeout,
                               "stdin": base64.b64encode(stdin).decode()})
            self.agent.sendall(data.encode() + b"\n")
        return self.replies[ident]

    def sh(self, command: str, timeout: float = 600, stdin: bytes = b"") -> tuple[int, str, str]:
        """Run a shell command in the guest (as root); its exit status, stdout and stderr."""
        try:
            reply = self._request(command, timeout=timeout, stdin=stdin).get(timeout=timeout + 30)
        except queue.Empty:
            reply = None
        if reply is None:
            return -1, "", "no answer from the guest"
        return reply["rc"], reply.get("out", ""), reply.get("err", "")

    def stream(self, command: str, timeout: float = 300) -> Iterator[str]:
        """The guest command's output lines as they come; ends with the command or the guest."""
        replies = self._request(command, stream=True)
        while True:
            try:
                message = replies.get(timeout=timeout)
            except queue.Empty:
                return
            if message is None or "line" not in message:
                return
            yield message["line"] + "\n"

    def put(self, source: Path, dest: str) -> bool:
        """Copy a host file into the guest through the agent, in pieces."""
        data = source.read_bytes()
        self.sh(f": > {shlex.quote(dest)}")
        for at in range(0, len(data), PUT_CHUNK):
            if self.sh(f"cat >> {shlex.quote(dest)}", stdin=data[at:at + PUT_CHUNK])[0] != 0:
                return False
        _, size, _ = self.sh(f"stat -c %s {shlex.quote(dest)}")
        return size.strip() == str(len(data))

    def _read_qmp(self) -> None:
        for line in self.qmp_file:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                (self.qmp_events if "event" in message else self.qmp_replies).put(message)

    def qmp(self, execute: str, **arguments: Any) -> dict[str, Any]:
        request = {"execute": execute, **({"arguments": arguments} if arguments else {})}
        self.qmp_file.write(json.dumps(request) + "\n")
        self.qmp_file.flush()
        return self.qmp_replies.get(timeout=60)

    def qmp_event(self, event: str, device: str, timeout: float = 60) -> bool:
        """Whether QEMU announced ``event`` for ``device`` within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.qmp_events.get(timeout=left)
            except queue.Empty:
                return False
            if message["event"] == event and message.get("data", {}).get("device") == device:
                return True
        return False

    def wait_active(self, unit: str = "companion.service", timeout: float = BOOT_TIMEOUT_S) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _rc, out, _ = self.sh(f"systemctl is-active {unit}", timeout=30)
            if out.strip() == "active":
                return True
            if out.strip() == "failed":
                return False
            time.sleep(1)
        return False

    def kill(self) -> None:
        """The power cut: QEMU killed at once, so whatever the guest had not written is gone."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        if self.proc:
            self.proc.wait()
        with contextlib.suppress(OSError):
            self.agent.close()
        with contextlib.suppress(OSError):  # the last boot's console, kept for a failed check
            shutil.copy(self.work / "console.log", CONSOLES / f"{self.machine}-console.log")

    def boot_again(self) -> float:
        """The power back after :meth:`kill`: the same disk boots; seconds to its agent."""
        self.hello = threading.Event()
        self.replies, self.qmp_replies, self.qmp_events = {}, queue.Queue(), queue.Queue()
        self.start()
        return self.wait_hello()

    def shutdown(self) -> None:
        """A clean power-off (the disk is in a state to boot again)."""
        if self.proc and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.agent.sendall(json.dumps({"id": 0, "sh": "systemctl poweroff"}).encode() + b"\n")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(120)
        self.kill()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ----- SSH: off until companion.txt gives a key ---------------------------------------------
GUEST_SETTINGS = "/boot/firmware/companion.txt"


def ssh_login(guest: Guest, key: Path) -> bool:
    """A login through QEMU's forwarded loopback port with ``key``, as the owner would."""
    result = subprocess.run(
        ["ssh", "-i", str(key), "-p", str(guest.ssh_port), "-o", "BatchMode=yes",
         "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "ConnectTimeout=30", "root@127.0.0.1", "echo logged-in"],
        capture_output=True, text=True, timeout=120)
    return result.stdout.strip() == "logged-in"


def give_ssh_key(guest: Guest, key_line: str) -> bool:
    """companion.txt's ssh_key set (empty: none), then first boot run again."""
    return give_settings(guest, {"ssh_key": [key_line]})


def give_settings(guest: Guest, values: dict[str, list[str]]) -> bool:
    """Those settings of companion.txt set, then first boot run again, as at a boot (once the
    boot's own run has finished: a restart would cut it short)."""
    from companion.appliance import settings_file

    until = time.monotonic() + BOOT_TIMEOUT_S
    while guest.sh("systemctl show -p ActiveState --value companion-firstboot")[1].strip() \
            == "activating" and time.monotonic() < until:
        time.sleep(3)
    _, text, _ = guest.sh(f"cat {GUEST_SETTINGS}")
    text = settings_file.set_values(text, values)
    rc, _, _ = guest.sh(f"cat > {GUEST_SETTINGS} && systemctl restart companion-firstboot.service",
                        stdin=text.encode())
    return rc == 0


def wait_ssh(guest: Guest, active: bool, timeout: float = 300) -> bool:
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        _, state, _ = guest.sh("systemctl is-active ssh.service")
        if (state.strip() == "active") == active:
            return True
        time.sleep(3)
    return False


def ssh_check(guest: Guest, work: Path) -> dict[str, Any]:
    """No key, no SSH (nothing answers the forwarded port); a key from companion.txt, made at
    run time, logs in as root; passwords are off; an empty ssh_key turns it off again."""
    key = work / "owner"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "owner@bench", "-f",
                    str(key)], check=True)
    figures: dict[str, Any] = {"ssh_closed_without_key": wait_ssh(guest, False, 5)
                               and not ssh_login(guest, key)}
    given = give_ssh_key(guest, key.with_suffix(".pub").read_text().strip())
    figures["ssh_ok"] = given and wait_ssh(guest, True) and ssh_login(guest, key)
    if not figures["ssh_ok"]:
        _, said, _ = guest.sh("journalctl -b --no-pager -u companion-firstboot -u ssh | tail -15")
        figures["ssh_log"] = said.splitlines()
    _, config, _ = guest.sh("sshd -T 2>/dev/null")
    said = dict(line.split(" ", 1) for line in config.splitlines() if " " in line)
    figures["ssh_password_off"] = (said.get("passwordauthentication"),
                                   said.get("kbdinteractiveauthentication")) == ("no", "no")
    # The hardened first boot's unit did each of those (a remount, /root/.ssh, ssh enabled),
    # and sets the hostname and the time zone; then they are put back.
    _, kept, _ = guest.sh("hostname; readlink /etc/localtime")
    applied = give_settings(guest, {"hostname": ["tavolo"], "timezone": ["Europe/London"]})
    _, now, _ = guest.sh("hostname; cat /etc/hostname; readlink /etc/localtime")
    figures["firstboot_unit_applies"] = applied and now.split() == [
        "tavolo", "tavolo", "/usr/share/zoneinfo/Europe/London"]
    old_name, old_zone = kept.split()
    give_settings(guest, {"hostname": [old_name],
                          "timezone": [old_zone.removeprefix("/usr/share/zoneinfo/")]})
    figures["firstboot_security_score"] = exposure(guest, "companion-firstboot")
    figures["ssh_off_again"] = give_ssh_key(guest, "") and wait_ssh(guest, False) \
        and not ssh_login(guest, key)
    return figures


# ----- companion.txt as people write it, applied in the guest ------------------------------
SECRET = "s3cret passphrase"
IMAGER_PSK = "0f" * 32  # a WPA key as Imager writes it
GOOD = {"hostname": "tavolo", "ssid": "Café", "zone": "Europe/London"}
TEXT = (f"hostname = tavolo\nwifi_country = GB\nwifi_ssid = Café\nwifi_password = {SECRET}\n"
        "timezone = Europe/London\n")
USER_DATA = "#cloud-config\nhostname: tavolo\ntimezone: Europe/London\nusers:\n- name: owner\n"
NETWORK = ("network:\n  version: 2\n  wifis:\n    wlan0:\n      regulatory-domain: \"GB\"\n"
           f"      access-points:\n        \"Café\":\n          password: \"{IMAGER_PSK}\"\n")
# name: (the boot partition's files, what must follow: the settings, or a problem's words)
FIRSTBOOT_CASES: dict[str, tuple[dict[str, bytes], str | None]] = {
    "utf-8": ({"companion.txt": TEXT.encode()}, None),
    "utf-8 BOM, CRLF": ({"companion.txt": "\ufeff".encode() + TEXT.replace("\n", "\r\n").encode()}, None),
    "utf-16 (Notepad)": ({"companion.txt": TEXT.replace("\n", "\r\n").encode("utf-16")}, None),
    "Windows-1252": ({"companion.txt": TEXT.encode("cp1252")}, None),
    "CR (old Mac)": ({"companion.txt": TEXT.replace("\n", "\r").encode()}, None),
    "Raspberry Pi Imager": ({"companion.txt": b"phone_page = on\n", "user-data": USER_DATA.encode(),
                             "network-config": NETWORK.encode()}, None),
    "bad time zone": ({"companion.txt": TEXT.replace("Europe/London", "localtime").encode()},
                      "timezone = 'localtime' is refused"),
    "bad country": ({"companion.txt": TEXT.replace("GB", "XX").encode()},
                    "wifi_country = 'XX' is refused"),
    "oversized": ({"companion.txt": TEXT.encode() + b"x = y\n" * 20000}, "the box reads at most 64 KiB"),
}
# In the guest: a root for the staged first boot (the box's own zoneinfo and units), the
# files put on its boot partition, first boot run, and what it made, as JSON.
CASE_PROBE = """
import codecs, json, os, shutil, subprocess, sys
root, files = sys.argv[1], json.loads(sys.stdin.read())
boot = os.path.join(root, "boot/firmware")
os.makedirs(boot)
os.makedirs(os.path.join(root, "usr/share"))
os.symlink("/usr/share/zoneinfo", os.path.join(root, "usr/share/zoneinfo"))
os.makedirs(os.path.join(root, "etc/systemd/system"))
for unit in ("/lib/systemd/system/wpa_supplicant@.service", "/lib/systemd/system/ssh.service",
             "/etc/systemd/system/companion-web.service", "/etc/systemd/system/companion-web.socket"):
    shutil.copy(unit, os.path.join(root, "etc/systemd/system"))
for name, data in files.items():
    open(os.path.join(boot, name), "wb").write(bytes.fromhex(data))
run = subprocess.run([sys.executable, "-m", "companion.appliance.firstboot", "/boot/firmware/companion.txt",
                      "--root", root, "--applied", "/var/lib/companion/firstboot.json"],
                     capture_output=True, text=True)
def text(path):
    try:
        data = open(os.path.join(root, path), "rb").read()
    except OSError:
        return ""
    return data.decode("utf-16" if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "latin-1")
zone = os.path.join(root, "etc/localtime")
print(json.dumps({"rc": run.returncode, "err": run.stderr[-300:], "hostname": text("etc/hostname").strip(),
                  "wpa": text("etc/wpa_supplicant/wpa_supplicant-wlan0.conf"),
                  "zone": os.readlink(zone) if os.path.islink(zone) else "",
                  "problems": text("boot/firmware/companion-problems.txt"),
                  "boot": "".join(text("boot/firmware/" + n) for n in os.listdir(boot))}))
"""


def firstboot_case(guest: Guest, name: str, files: dict[str, bytes], problem: str | None) -> bool:
    """One way of writing the settings, applied by the guest's own first boot (staged root)."""
    root = f"/tmp/firstboot-{abs(hash(name))}"
    rc, out, err = guest.sh(f"rm -rf {root} && {GUEST_PYTHON} -c {shlex.quote(CASE_PROBE)} {root}",
                            stdin=json.dumps({n: d.hex() for n, d in files.items()}).encode())
    if rc != 0:
        log(f"firstboot case {name}: {err.strip()[-300:]}")
        return False
    made = json.loads(out)
    secret_gone = SECRET not in made["boot"] and IMAGER_PSK not in made["boot"]
    if problem is not None:
        ok = made["rc"] == 0 and problem in made["problems"] and secret_gone
    else:
        ok = (made["rc"] == 0 and made["hostname"] == GOOD["hostname"] and secret_gone
              and "country=GB" in made["wpa"] and GOOD["ssid"].encode().hex() in made["wpa"]
              and made["zone"].endswith(GOOD["zone"]))
    if not ok:
        log(f"firstboot case {name} missed: {json.dumps(made)[:600]}")
    return ok


def firstboot_cases(guest: Guest) -> dict[str, Any]:
    """Every way of writing companion.txt the issue lists, and Imager's files, in the guest."""
    passed = [name for name, (files, problem) in FIRSTBOOT_CASES.items()
              if firstboot_case(guest, name, files, problem)]
    return {"firstboot_cases": len(FIRSTBOOT_CASES), "firstboot_cases_ok": len(passed),
            "firstboot_missed": sorted(set(FIRSTBOOT_CASES) - set(passed))}


def copy_disk(source: Path, dest: Path, size: int | None = None) -> Path:
    subprocess.run(["cp", "--sparse=always", str(source), str(dest)], check=True)
    if size:
        os.truncate(dest, size)
    return dest


# ----- the checks ---------------------------------------------------------------------------
def unit_checks(guest: Guest) -> dict[str, Any]:
    """On a fresh boot: READY under the shipped unit, verify, the critical chain, the watchdog."""
    figures: dict[str, Any] = {}
    figures["unit_ready"] = guest.wait_active()
    _, out, _ = guest.sh("systemctl show companion -p ActiveEnterTimestampMonotonic --value")
    figures["boot_to_ready_s"] = round(int(out.strip() or 0) / 1e6, 1) or None
    _, out, _ = guest.sh("systemctl show companion -p Type -p NotifyAccess -p SubState -p User "
                         "-p ProtectSystem -p PrivateNetwork -p DevicePolicy --value")
    figures["unit_properties"] = out.split()
    _rc, out, err = guest.sh("systemd-analyze verify companion.service 2>&1")
    problems = [line for line in (out + err).splitlines() if line.strip()]
    figures["verify_errors"] = len(problems)
    if problems:
        figures["verify_messages"] = problems[:5]
    _, chain, _ = guest.sh("systemd-analyze critical-chain companion.service --no-pager")
    figures["critical_chain"] = [line.strip() for line in chain.splitlines()[2:]]
    # The chain is only there once the whole boot has finished (the network's wait may still
    # run when the box is READY): the unit's own ordering says it too.
    _, after, _ = guest.sh("systemctl show companion -p After --value")
    figures["unit_after"] = after.split()
    figures["critical_chain_network"] = "network" in chain + after
    _, score, _ = guest.sh("systemd-analyze security companion.service --no-pager | tail -1")
    figures["security_exposure"] = score.strip().split("Overall exposure level for companion.service: ")[-1]
    figures["watchdog_restart_s"] = watchdog(guest)
    figures.update(page_ports(guest))
    return figures


PAGE_PROBE = """
import http.client, sys
for port in (80, 8080):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/pair")
    print(port, conn.getresponse().status)
"""


def page_ports(guest: Guest, timeout: float = BOOT_TIMEOUT_S) -> dict[str, Any]:
    """The phone page where the README says, http://companion.local/ (port 80), and on 8080:
    both answer (companion-web.socket opens them; the page may still be starting). The
    answer is the pairing page's 401, as to any phone not yet paired."""
    until = time.monotonic() + timeout
    while True:
        rc, out, err = guest.sh(f"/usr/bin/python3 -c {shlex.quote(PAGE_PROBE)}")
        answers = dict(line.split() for line in out.splitlines() if len(line.split()) == 2)
        if rc == 0 or time.monotonic() > until:
            break
        time.sleep(5)
    figures: dict[str, Any] = {"page_port_80": answers.get("80") == "401",
                               "page_port_8080": answers.get("8080") == "401"}
    if rc:
        figures["page_error"] = err.strip().splitlines()[-1:] or [out.strip()]
    return figures


def watchdog(guest: Guest) -> float | None:
    """The box's process frozen with SIGSTOP: seconds until systemd has it running again."""
    _, pid, _ = guest.sh("systemctl show companion -p MainPID --value")
    pid = pid.strip()
    if not pid or pid == "0":
        return None
    began = time.monotonic()
    guest.sh(f"kill -STOP {pid}")
    deadline = began + 120
    while time.monotonic() < deadline:
        _, out, _ = guest.sh("systemctl show companion -p MainPID -p ActiveState --value", timeout=30)
        now_pid, state = ([*out.split(), "", ""])[:2]
        if now_pid not in ("", "0", pid) and state == "active":
            return round(time.monotonic() - began, 1)
        time.sleep(0.5)
    return None


def usb_replugs(guest: Guest, sensor: Any, replugs: int) -> dict[str, Any]:
    """A Café round runs with the sensor on USB; the cable is pulled and put back ``replugs``
    times with the monitor's device_del / device_add; seconds from plug to the box seeing it."""
    lines = guest.stream(f"runuser -u companion -- {GUEST_PYTHON} {GUEST_LIB}/usb_watch.py "
                         f"{GUEST_STATE}/usb-watch", timeout=120)
    seen: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [seen.put(json.loads(line)) for line in lines], daemon=True).start()
    figures: dict[str, Any] = {"usb_replugs": 0, "usb_reconnected": 0, "usb_reconnect_s_max": None,
                               "usb_round_running": False}

    def wait_for(online: bool, timeout: float = 90) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = seen.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                return False
            figures["usb_round_running"] = event.get("phase") == "running"
            if event.get("online") is online:
                return True
        return False

    if not wait_for(True, timeout=180):
        figures["usb_first_connect"] = False
        return figures
    worst = 0.0
    for _ in range(replugs):
        unplugged = guest.qmp("device_del", id="dice")
        # The guest lets go of the device first; QEMU frees it (and its chardev) after.
        if not wait_for(False) or not guest.qmp_event("DEVICE_DELETED", "dice"):
            figures["usb_unplug_reply"] = unplugged
            break
        figures["usb_replugs"] += 1
        plugged = time.monotonic()
        reply = guest.qmp("device_add", driver="usb-serial", id="dice", chardev="sensor", bus="xhci.0")
        if not wait_for(True):
            figures["usb_plug_reply"] = reply
            continue
        figures["usb_reconnected"] += 1
        worst = max(worst, time.monotonic() - plugged)
        sensor.throw()  # dice rolled on the table between replugs
    figures["usb_reconnect_s_max"] = round(worst, 2)
    return figures


def gpio_check(images: Path, test_image: Path, work: Path) -> dict[str, Any]:
    """On the emulated Pi 3: the box's pin factory opens its lines under the unit's rules."""
    dtb = work / "raspi3b.dtb"
    shutil.copy(images / "bcm2837-rpi-3-b.dtb", dtb)
    # What the Pi's firmware adds to the tree and QEMU does not: the board's revision (gpiozero
    # reads it to know the board); and the UART the agent uses, freed from the Bluetooth node.
    subprocess.run(["fdtput", "-c", str(dtb), "/system"], check=True)
    subprocess.run(["fdtput", "-t", "x", str(dtb), "/system", "linux,revision",
                    f"{PI3B_REVISION:x}"], check=True)
    uart0 = subprocess.run(["fdtget", "-t", "s", str(dtb), "/aliases", "serial0"],
                           capture_output=True, text=True).stdout.strip()
    for node in subprocess.run(["fdtget", "-l", str(dtb), uart0], capture_output=True,
                               text=True).stdout.split():
        subprocess.run(["fdtput", "-r", str(dtb), f"{uart0}/{node}"], check=True)
    disk = copy_disk(test_image, work / "pi.img", size=4 << 30)  # QEMU's SD: a power of two
    guest = Guest(images, disk, work, machine="raspi3b")
    guest.start()
    figures: dict[str, Any] = {"gpio_machine": "raspi3b"}
    try:
        figures["gpio_boot_s"] = round(guest.wait_hello(), 1)
        # The agent answers before the data partition, which holds the venv, is mounted.
        guest.sh(f"for _ in $(seq 300); do [ -x {GUEST_PYTHON} ] && break; sleep 1; done", timeout=330)
        # Once the venv is there the box starts and holds its lines ("GPIO busy" for anyone
        # else): stop it, so the check opens the very lines the box opens, as the box would.
        guest.sh("systemctl stop companion", timeout=120)
        # The box now starts before D-Bus is up, and systemd-run (unit_run.py) needs the
        # system bus: wait for its socket.
        guest.sh("for _ in $(seq 300); do [ -S /run/dbus/system_bus_socket ] && break; sleep 1; done",
                 timeout=330)
        rc, out, err = guest.sh(f"{GUEST_PYTHON} {GUEST_LIB}/unit_run.py {GUEST_PYTHON} "
                                f"{GUEST_LIB}/gpio_check.py /etc/companion/config.toml")
        report = json.loads(out.strip().splitlines()[-1]) if rc == 0 and out.strip() else {}
        figures["gpio_lines_opened"] = report.get("opened", 0)
        figures["gpio_board"] = report.get("board")
        figures["gpio_factory"] = report.get("factory")
        if report.get("errors") or rc:
            figures["gpio_errors"] = report.get("errors") or [err.strip()[-300:]]
        _, freq, _ = guest.sh("od -An -tx1 /proc/device-tree/soc/i2c@7e804000/clock-frequency")
        figures["i2c_bus_hz"] = int(freq.replace(" ", "").strip() or "0", 16)
    finally:
        guest.kill()
    return figures


# ----- the box's own Wi-Fi network ---------------------------------------------------------
HOTSPOT_STATE = f"{GUEST_STATE}/hotspot/hotspot.json"
TEST_NETWORK = ("Table-Test-Net", "test net passphrase")  # the network a phone names
STATION_CONF = 'ctrl_interface=/run/sta-wpa\nnetwork={{\n ssid="{}"\n psk="{}"\n}}\n'
TEST_AP_CONF = ("interface=wlan2\ndriver=nl80211\nssid={}\nhw_mode=g\nchannel=1\nwpa=2\n"
                "wpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\nwpa_passphrase={}\n")
FORM_PROBE = """
import http.client, sys, urllib.parse
conn = http.client.HTTPConnection("10.42.0.1", 80, timeout=60)
if sys.argv[1] == "get":
    conn.request("GET", "/wifi")
else:
    body = urllib.parse.urlencode({"ssid": sys.argv[2], "passphrase": sys.argv[3]})
    conn.request("POST", "/wifi", body, {"Content-Type": "application/x-www-form-urlencoded"})
answer = conn.getresponse()
print(answer.status, 'id="wifi"' in answer.read().decode(errors="replace"))
"""


def wait_guest(guest: Guest, command: str, timeout: float) -> str | None:
    """The output of ``command`` once it succeeds in the guest, or None after ``timeout`` s."""
    rc, out, _ = guest.sh(f"for _ in $(seq {int(timeout // 2)}); do out=$({command}) && "
                          f"echo \"$out\" && exit 0; sleep 2; done; exit 1", timeout=timeout + 30)
    return out.strip() if rc == 0 else None


def hotspot_check(guest: Guest) -> dict[str, Any]:
    """Three radios of the kernel's mac80211_hwsim in the guest, none configured: the box's
    access point opens on wlan0; a phone (wlan1, in a namespace of its own) joins it with
    wpa_supplicant and the passphrase the box shows, takes an address from the box's dnsmasq,
    opens the Wi-Fi page and names a network the test runs with hostapd on wlan2 (another
    namespace); the box joins it and closes its access point. ``hotspot_ok``: every step seen."""
    began = time.monotonic()
    seen: dict[str, Any] = {}
    ns = "ip netns exec"
    guest.sh("modprobe mac80211_hwsim radios=3 && ip netns add phone && ip netns add other"
             " && iw phy phy1 set netns name phone && iw phy phy2 set netns name other")
    state = wait_guest(guest, f"grep -l '\"mode\": \"open\"' {HOTSPOT_STATE} >/dev/null && "
                       f"cat {HOTSPOT_STATE}", 240)
    opened = json.loads(state) if state else {}
    seen["ap_opened"] = bool(opened) and "type AP" in guest.sh("iw dev wlan0 info")[1]
    if seen["ap_opened"]:
        conf = STATION_CONF.format(opened["name"], opened["passphrase"])
        guest.sh(f"printf '{conf}' > /run/phone-wpa.conf && {ns} phone ip link set wlan1 up && "
                 f"{ns} phone wpa_supplicant -B -i wlan1 -c /run/phone-wpa.conf -P /run/phone-wpa.pid")
        seen["phone_joined"] = wait_guest(  # associated and the WPA handshake done
            guest, f"{ns} phone wpa_cli -p /run/sta-wpa -i wlan1 status | grep -q wpa_state=COMPLETED",
            120) is not None
        # A link-local address first: the kernel then takes the server's broadcast answer.
        _, out, _ = guest.sh(f"{ns} phone ip addr add 169.254.7.7/16 dev wlan1 && "
                              f"{ns} phone {GUEST_PYTHON} {GUEST_LIB}/dhcp_probe.py wlan1", timeout=120)
        leased = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        seen["phone_address"] = leased.get("address", leased.get("error"))
        if leased.get("address"):
            guest.sh(f"{ns} phone ip addr add {leased['address']}/24 dev wlan1")
        _, page, said = guest.sh(f"{ns} phone {GUEST_PYTHON} -c {shlex.quote(FORM_PROBE)} get",
                                 timeout=120)
        seen["page_form"] = page.strip() == "200 True"
        if not seen["page_form"]:
            seen["page_answer"] = (page + said).strip()[-300:]
        # The network the phone names: WPA2 on the third radio, with an address server.
        guest.sh(f"printf '{TEST_AP_CONF.format(*TEST_NETWORK)}' > /run/other-ap.conf && "
                 f"{ns} other ip link set wlan2 up && {ns} other hostapd -B -P /run/other-ap.pid "
                 f"/run/other-ap.conf && {ns} other ip addr add 10.43.0.1/24 dev wlan2 && "
                 f"{ns} other dnsmasq --conf-file=/dev/null --interface=wlan2 --bind-interfaces "
                 f"--dhcp-range=10.43.0.10,10.43.0.50,1h --port=0 --pid-file=/run/other-dnsmasq.pid "
                 "--leasefile-ro --user=nobody --group=nogroup")
        quoted = " ".join(shlex.quote(word) for word in TEST_NETWORK)
        _, posted, said = guest.sh(f"{ns} phone {GUEST_PYTHON} -c {shlex.quote(FORM_PROBE)} post {quoted}",
                                timeout=120)
        seen["page_posted"] = posted.split()[:1] == ["303"]
        if not seen["page_posted"]:
            seen["post_answer"] = (posted + said).strip()[-300:]
        joined = wait_guest(guest, f"iw dev wlan0 link | grep -q 'SSID: {TEST_NETWORK[0]}' && "
                            f"grep -q '\"mode\": \"joined\"' {HOTSPOT_STATE} && echo joined", 300)
        seen["box_joined"] = joined == "joined"
        seen["ap_closed"] = "type managed" in guest.sh("iw dev wlan0 info")[1] \
            and guest.sh("pgrep -x hostapd -a | grep -v other-ap")[0] != 0
        seen["box_address"] = wait_guest(
            guest, "ip -4 -o addr show dev wlan0 | grep -o '10\\.43\\.0\\.[0-9]*'", 60)
    figures: dict[str, Any] = {"hotspot_ok": all(seen.get(step) is True for step in (
        "ap_opened", "phone_joined", "page_form", "page_posted", "box_joined", "ap_closed"))
        and str(seen.get("phone_address")).startswith("10.42.0."),
        "hotspot_s": round(time.monotonic() - began, 1), "hotspot_steps": seen}
    if not figures["hotspot_ok"]:
        figures["hotspot_log"] = guest.sh(
            "ls -ln /var/lib/companion/handed /var/lib/companion/hotspot; journalctl -b --no-pager "
            "-o cat -u companion-hotspot -u companion-firstboot -u companion-web | grep -v 'STA '"
            " | tail -30")[1].splitlines()
    guest.sh("for f in /run/phone-wpa.pid /run/other-ap.pid /run/other-dnsmasq.pid; do "
             "[ -e $f ] && kill $(cat $f); done; sleep 1; ip netns del phone; ip netns del other")
    return figures


# ----- the held play spilled to a USB stick --------------------------------------------------
STICK_MB = 16


def usb_spill(guest: Guest, work: Path) -> dict[str, Any]:
    """A FAT stick made here is plugged into the running box (QEMU's usb-storage, hot-plugged);
    the image mounts it for the box; a box plays while the data partition fails (a forced ext4
    error: read-only, as a failing card); its held play must be a file on the stick, and the
    About screen must name it. The data partition stays failed: the next check boots again."""
    stick = work / "stick.img"
    subprocess.run(["mkfs.vfat", "-n", "STICK", "-C", str(stick), str(STICK_MB * 1024)],
                   check=True, capture_output=True)
    figures: dict[str, Any] = {"usb_spill_ok": False}
    added = guest.qmp("blockdev-add", driver="raw", **{"node-name": "stick"},
                      file={"driver": "file", "filename": str(stick)})
    plugged = guest.qmp("device_add", driver="usb-storage", id="stick-dev", drive="stick",
                        bus="xhci.0", removable=True)
    if "error" in added or "error" in plugged:
        figures["usb_spill_error"] = [added, plugged]
        return figures
    _, mounted, _ = guest.sh("for _ in $(seq 120); do findmnt -rn -o TARGET,OPTIONS "
                             "| grep '^/media/companion/' && break; sleep 1; done", timeout=150)
    figures["usb_stick_mounted"] = mounted.split()[:1]
    if not mounted:
        figures["usb_spill_log"] = guest.sh("journalctl -b --no-pager -o cat | grep -i -e sd[a-z] "
                                            "-e media | tail -12")[1].splitlines()
        return figures
    state = f"{GUEST_STATE}/spill-probe"
    # The probe is a box under the unit's rules: the box itself steps aside (they share its
    # runtime folder).
    guest.sh(f"systemctl stop companion && install -d -o companion -g companion {state}")
    data = guest.sh("findmnt -n -o SOURCE /data")[1].strip().rpartition("/")[2]
    report: dict[str, Any] = {}
    for line in guest.stream(f"{GUEST_PYTHON} {GUEST_LIB}/unit_run.py {GUEST_PYTHON} "
                             f"{GUEST_LIB}/spill_probe.py {state}", timeout=400):
        with contextlib.suppress(ValueError):
            report = json.loads(line)
        if report.get("ready"):
            guest.sh(f"echo 1 > /sys/fs/ext4/{data}/trigger_fs_error")
    kept_in = str(report.get("kept_in", ""))
    about = report.get("about", [])
    shown = about[about.index("Held play in:") + 1:] if "Held play in:" in about else []
    figures["usb_spill_file"] = kept_in
    figures["usb_spill_named"] = bool(kept_in) and "".join(
        line.removeprefix(" ") for line in shown).startswith(kept_in)
    # The stick pulled out, then read here: the held play is in the file, whole.
    guest.sh("sync")
    guest.qmp("device_del", id="stick-dev")
    on_stick = guest.qmp_event("DEVICE_DELETED", "stick-dev") and kept_in.startswith("/media/")
    held = -1
    if on_stick:
        inside = "/".join(kept_in.split("/")[4:])  # /media/companion/sda1/<inside>
        copy = work / "spare-from-stick.db"
        copied = subprocess.run(["mcopy", "-n", "-i", str(stick), f"::{inside}", str(copy)],
                                capture_output=True)
        if copied.returncode == 0:
            import sqlite3

            with contextlib.closing(sqlite3.connect(copy)) as spare:
                held = spare.execute("SELECT count(*) FROM held_ops").fetchone()[0]
    figures["usb_spill_held_on_stick"] = held
    figures["usb_spill_ok"] = report.get("kept_on") == "USB stick" and held >= 2 \
        and figures["usb_spill_named"]  # the two actions played after the failure
    if not figures["usb_spill_ok"]:
        figures["usb_spill_report"] = report
    guest.qmp("blockdev-del", **{"node-name": "stick"})
    return figures


# ----- updates ------------------------------------------------------------------------------
def releases(work: Path, wheels: Path) -> tuple[Path, Path]:
    """Two release files for the Pi made from this checkout: a newer version, whose wheel
    carries a .pth file that notes the uid of every Python that loads it
    (:func:`root_owned_files_from_release`), and a broken one whose box never reports READY
    (it hangs before its first frame)."""
    made = []
    for name, broken in (("good", False), ("broken", True)):
        copy = work / name
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(copy)],
                       check=True)
        try:
            version = "0.1.0.post2" if broken else "0.1.0.post1"
            for path, old in (("pyproject.toml", 'version = "0.1.0"'),
                              ("companion/__init__.py", '__version__ = "0.1.0"')):
                text = (copy / path).read_text()
                (copy / path).write_text(text.replace(old, old.replace("0.1.0", version), 1))
            if broken:
                run = copy / "companion" / "commands" / "run.py"
                run.write_text(run.read_text().replace(
                    "    notifier = Notifier.from_environ()\n",
                    "    notifier = Notifier.from_environ()\n    time.sleep(3600)\n", 1)
                    .replace("import signal\n", "import signal\nimport time\n", 1))
            chosen = work / f"{name}-wheels"
            shutil.copytree(wheels, chosen)
            for old in chosen.glob("table_companion-*.whl"):
                old.unlink()
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--wheel-dir", str(chosen), str(copy)], check=True, stdout=sys.stderr)
            if not broken:  # signed by the trusted key, yet its code must never run as root
                release_attacks.carry_payload(next(chosen.glob("table_companion-*.whl")),
                                              RELEASE_CODE_MARKS)
            made.append(subprocess.run(
                [sys.executable, "-c", "import sys; from pathlib import Path; "
                 "from companion.appliance.release import build_release; "
                 "print(build_release(Path(sys.argv[1]), 'aarch64', Path(sys.argv[2]), Path(sys.argv[3]), "
                 "key=Path(sys.argv[4])))",
                 str(work / "releases"), str(copy), str(chosen), str(update_key()[0])],
                check=True, capture_output=True, text=True, cwd=copy).stdout.strip())
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(copy)],
                           check=False)
    return Path(made[0]), Path(made[1])


# How long a scripted play may take to start (Python's imports and the journal's checks under
# TCG, beside an updater's pip on a busy host): its ``seconds`` of play count from its start.
PLAY_START_S = 300
PLAY_UNIT = "companion-play"
PLAY_STARTED = "/run/companion-play.started"
PLAY_ERR = "/run/companion-play.err"  # its stderr: why it did not start, if it did not
# The play stands for the box: a unit the updater's stop of companion.service stops too (as it
# stops the box before it copies the journal), run as companion, its output piped here.
PLAY_LAUNCH = (f"systemctl stop {PLAY_UNIT} 2>/dev/null; systemd-run --quiet --pipe --collect "
               f"--unit={PLAY_UNIT} -p PartOf=companion.service -p User=companion -- {{child}} "
               f"2> {PLAY_ERR} < /dev/null")
PLAY_KILL = f"systemctl kill -s KILL {PLAY_UNIT}"  # the whole unit, as a power cut takes the box
# The play's lines passed on; the first one (its start report) starts the clock of its play.
# Once it ends (killed, stopped with the box, or its game over) its killer goes too: left
# behind, it would kill the next play.
PLAY_SH = """rm -f {started}
{launch} | {{
  ( i=0; while [ ! -e {started} ] && [ $i -lt {start_s} ]; do sleep 1; i=$((i+1)); done
    [ -e {started} ] && sleep {seconds}; {kill} ) >/dev/null 2>&1 &
  killer=$!
  while IFS= read -r line; do printf '%s\\n' "$line"; : > {started}; done
  kill $killer 2>/dev/null
}}"""


def play_saved_game(guest: Guest, acked: dict[str, Any] | None, seconds: int,
                    state: str = GUEST_STATE) -> dict[str, Any]:
    """With the box stopped, a scripted Makan Mania game plays on the journal in ``state`` for
    ``seconds`` from its start (SIGKILLed then, or stopped with the box by an updater); what it
    acknowledged last, and what it found at its start (None: it did not start within
    PLAY_START_S)."""
    guest.sh("systemctl stop companion")
    child = " ".join(shlex.quote(w) for w in (
        GUEST_PYTHON, f"{GUEST_LIB}/reliability.py", "--child", "makan", state, "7",
        json.dumps(acked), "play"))
    run = {"start": None, "acked": acked}
    script = PLAY_SH.format(started=PLAY_STARTED, launch=PLAY_LAUNCH.format(child=child),
                            kill=PLAY_KILL, start_s=PLAY_START_S, seconds=seconds)
    began = time.monotonic()
    for line in guest.stream(script, timeout=PLAY_START_S + seconds + 60):
        fields = json.loads(line)
        if run["start"] is None and "start" in fields:
            run["start"], run["resumed"] = fields["start"], fields
            log(f"play: started after {time.monotonic() - began:.1f} s: {line.strip()}")
        elif "forgot" in fields:  # the game's setup undone: forgotten on purpose
            run["acked"] = None
        elif "undoing" in fields and run["acked"]:  # an undo the kill may have cut short
            run["acked"] = {**run["acked"], "undoing": True}
        elif "n" in fields:
            run["acked"] = {k: fields[k] for k in ("game", "n", "hash", "prev")}
    # Stopped by a stop of the box (an updater's), not killed: systemd said "Stopping" since
    # it last said "Started".
    run["stopped_with_box"] = guest.sh(
        f"journalctl -u {PLAY_UNIT} -n 20 -o cat | "
        "awk '/^Started /{s=0} /^Stopping /{s=1} END{exit !s}'")[0] == 0
    if run["start"] is None:
        log(f"play: the saved game did not start (it ended or was killed after "
            f"{time.monotonic() - began:.0f} s): {guest.sh(f'tail -5 {PLAY_ERR}')[1]!r}")
    log(f"play: acked {run['acked']}; journal {journal_tail(guest, state, run['acked'])}")
    guest.sh("systemctl start companion")
    return run


def journal_tail(guest: Guest, state: str, acked: dict[str, Any] | None) -> str:
    """How many actions the journal in ``state`` holds for the acknowledged game, the last ones."""
    probe = ("import sqlite3, sys; db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
             "rows = db.execute('SELECT seq, action FROM actions WHERE game_id = ? ORDER BY seq', "
             "(int(sys.argv[2]),)).fetchall(); print(len(rows), rows[-2:])")
    return guest.sh(f"runuser -u companion -- {GUEST_PYTHON} -c {shlex.quote(probe)} "
                    f"{state}/journal.db {(acked or {}).get('game', 0)}")[1].strip()[:400]


def hand_set_aside_again(guest: Guest, figures: dict[str, Any]) -> str:
    """The release whose install the cuts interrupted twice, set aside by the updater rather
    than tried a third time: ``update_set_aside_said`` (doctor in the box names it, with the
    cut install's messages), then renamed back into the spool as doctor says, to finish;
    the outcome of that install."""
    spool = update_cuts_guest.SPOOL
    figures["update_set_aside_said"], said = update_cuts_guest.set_aside_said(guest)
    if not figures["update_set_aside_said"]:
        figures["update_doctor_output"] = said[-1200:]
    update_cuts_guest.hand_back(guest)
    deadline = time.monotonic() + update_cuts_guest.WAIT_S
    while time.monotonic() < deadline and guest.sh(
            f"test -s {spool}/last.txt && ! systemctl -q is-active companion-update")[0]:
        time.sleep(2)
    return guest.sh(f"cat {spool}/last.txt")[1].strip()


def update_checks(guest: Guest, work: Path, wheels: Path, quick: bool,
                  cut: bool) -> dict[str, Any]:
    """A newer release through the spool, with (if ``cut``) the power cut and the updater
    killed amid its install (bench/update_cuts_guest.py), then hostile ones, then a broken one that must roll
    back by itself; the saved game is still there to resume."""
    good, broken = releases(work, wheels)
    saved = play_saved_game(guest, None, 40)
    figures: dict[str, Any] = {"update_saved_actions": (saved["acked"] or {}).get("n", 0)}

    def running() -> str:
        return guest.sh("readlink /opt/companion/venv && cat /opt/companion/venv/release.json")[1].strip()

    before = running()
    # The good release as the box hands it over once someone pressed OK (renamed into the
    # spool, where companion-update.path starts the hardened companion-update.service), with
    # the power cut during its install; installed again at each boot, it is left to finish.
    cuts, saved["acked"], out = update_cuts_guest.update_cuts(
        guest, good, play_saved_game, saved["acked"], "0.1.0.post1", quick, cut)
    figures.update(cuts)
    if f"{update_cuts_guest.NAME}.release{SET_ASIDE}" in out:
        out = hand_set_aside_again(guest, figures)
    after = running()
    figures["update_ok"] = "good.release: running 0.1.0.post1" in out \
        and after != before and "0.1.0.post1" in after and guest.wait_active()
    if not figures["update_ok"]:
        figures["update_output"] = out[-600:]
    figures.update(update_attacks(guest, good, work / "attacks", running))
    began = time.monotonic()
    ok = guest.put(broken, "/var/tmp/broken.release")
    _, out, err = guest.sh(f"{GUEST_UPDATER} /var/tmp/broken.release", timeout=1200)
    figures["rollback_s"] = round(time.monotonic() - began, 1)
    back = running()
    resumed = play_saved_game(guest, saved["acked"], 30)["start"] or {"lost": 1, "mismatch": True}
    # The broken release was installed and tried, and then its box went back by itself.
    tried = "rolled back to" in out + err and "0.1.0.post2" in out + err
    figures["rollback_ok"] = ok and tried and back == after and guest.wait_active() \
        and resumed["lost"] == 0 and not resumed["mismatch"]
    figures["rollback_resume"] = resumed
    if not figures["rollback_ok"]:
        figures["rollback_output"] = (out + err)[-600:]
    figures.update(root_owned_files_from_release(guest))
    return figures


def root_owned_files_from_release(guest: Guest) -> dict[str, Any]:
    """The files the good release's own code wrote as root (docs/update.md): its .pth file's
    marks that are owned by root or were written by uid 0, once it has been installed, run as
    the box, and the next updates (the hostile ones, the broken one and its rollback) have run.
    None when its code never ran at all (the count would prove nothing)."""
    marks = guest.sh(f"find {RELEASE_CODE_MARKS} -type f -printf '%u %f\\n'")[1].split("\n")
    owners = [line.split() for line in marks if line.strip()]
    as_root = sum(owner == "root" or name.startswith("uid-0-") for owner, name in owners)
    return {"root_owned_files_from_release": as_root if owners else None,
            "release_code_runs": len(owners)}


def exposure(guest: Guest, unit: str) -> float | None:
    """systemd-analyze security's exposure of ``unit`` in the box."""
    text = guest.sh(f"systemd-analyze security {unit}.service | tail -1")[1]
    found = re.search(r"exposure level for \S+: ([0-9.]+)", text)
    return float(found[1]) if found else None


def update_attacks(guest: Guest, good: Path, work: Path, running: Any) -> dict[str, Any]:
    """Hostile releases made from the good one (bench/release_attacks.py), each tried with
    ``companion update`` as root: refused with its reason, nothing changed, nothing left;
    then systemd-analyze's exposure of the updater's units and the first boot's, in the box."""
    before = running()
    attacks = release_attacks.hostile_releases(good, work, update_key()[0], older="0.1.0")
    refused, said = 0, {}
    for attack in attacks:
        guest.put(attack.path, "/var/tmp/attack.release")
        rc, out, err = guest.sh(f"{GUEST_UPDATER} /var/tmp/attack.release", timeout=900)
        left = guest.sh("ls -d /opt/companion/incoming-* 2>/dev/null | wc -l")[1].strip()
        if rc == 1 and attack.refusal in err and left == "0" and running() == before:
            refused += 1
        else:
            said[attack.name] = f"rc {rc}, {left} incoming left: {(out + err)[-300:]}"
    guest.sh("rm -f /var/tmp/attack.release")
    scores = {unit: exposure(guest, unit)
              for unit in ("companion-update", "companion-update-check", "companion-firstboot")}
    figures: dict[str, Any] = {
        "update_attacks": len(attacks), "update_attacks_refused": refused,
        "update_security_score": max((scores["companion-update"] or 10.0),
                                     (scores["companion-update-check"] or 10.0)),
        "firstboot_security_score": scores["companion-firstboot"]}
    if said:
        figures["update_attacks_said"] = said
    return figures


# ----- power cuts ---------------------------------------------------------------------------
class PowerCuts:
    """The reliability campaign's three box processes (one per game, each on its own journal
    on the data partition) play in the emulated box, whose power is cut (QEMU SIGKILLed)
    after a random number of one game's acknowledgements; the next boot checks each game
    against what its screen last acknowledged, and e2fsck checks the data partition."""

    def __init__(self, images: Path, disk: Path, work: Path, seed: int) -> None:
        self.images, self.disk, self.work = images, disk, work
        self.rng = random.Random(seed)
        self.campaign = reliability.Campaign(True, seed, work)
        self.figures: dict[str, Any] = {"powercut_kills": 0, "fsck_errors": 0, "powercut_boots": 0}
        self.boot_s: list[float] = []
        self.guest: Guest | None = None

    def boot(self) -> Guest:
        guest = Guest(self.images, self.disk, self.work)
        guest.start()
        self.boot_s.append(guest.wait_hello())
        self.figures["powercut_boots"] += 1
        return guest

    def launch(self, cmd: list[str]) -> GuestProcess:
        """reliability.Run's box process, started in the guest that is up."""
        game, state, seed, acked, mode = cmd[cmd.index("--child") + 1:]
        guest_dir = f"{GUEST_STATE}/{Path(state).name}"
        self.guest.sh(f"install -d -o companion -g companion {guest_dir}")
        child = " ".join(shlex.quote(w) for w in (
            GUEST_PYTHON, f"{GUEST_LIB}/reliability.py", "--child", game, guest_dir, seed, acked, mode))
        return GuestProcess(self.guest, self.guest.stream(f"runuser -u companion -- {child}"))

    def run(self, kills: int, first: Guest | None = None) -> dict[str, Any]:
        """``kills`` power cuts; ``first`` is a guest already up (its boot is the first)."""
        class GuestRun(reliability.Run):
            launch = staticmethod(self.launch)

        before: dict[str, reliability.Run | None] = dict.fromkeys(reliability.PLAYED)
        cafe_midround = 0
        for cut in range(kills + 1):
            self.guest = first if cut == 0 and first else self.boot()
            starts = [(game, self.work / f"powercut-{game}", self.rng.randrange(1 << 30),
                       before[game] and before[game].acked) for game in reliability.PLAYED]
            # The three boxes start at once: each takes seconds under emulation to open its game.
            with concurrent.futures.ThreadPoolExecutor(len(starts)) as pool:
                runs = {game: run for (game, *_), run in
                        zip(starts, pool.map(lambda args: GuestRun(*args), starts), strict=True)}
            for game, run in runs.items():
                self.campaign.check_resume(run, before[game])
            if cut == kills:  # the last boot only checks what the last cut left
                self.guest.kill()
                break
            victim = self.rng.choice(reliability.PLAYED)
            acks = self.rng.choice((0, *range(1, 80)))
            log(f"power cut {cut + 1} of {kills}: after {acks} of {victim}'s acknowledgements")
            runs[victim].play(acks, self.rng)  # the cut
            for run in runs.values():
                run.kill()  # what each game's screen had shown before the cut
            self.figures["fsck_errors"] += fsck_errors(self.disk, 2, self.work)
            self.figures["powercut_kills"] += 1
            cafe_midround += runs["cafe"].left is not None
            before = runs
        campaign = self.campaign.figures
        stages = {}
        for game in reliability.PLAYED:
            state = self.work / f"powercut-{game}"
            self.fetch_state(f"{GUEST_STATE}/{state.name}", state)
            stages[game] = self.campaign.stages(state, game)
        return {**self.figures, "cafe_midround_kills": cafe_midround,
                "acknowledged_lost": campaign["acknowledged_lost"],
                "resume_mismatches": campaign["resume_mismatches"],
                "cafe_time_left_error_s_max": campaign["cafe_time_left_error_s_max"],
                "stages_reached": stages,
                "powercut_boot_s_mean": round(sum(self.boot_s) / max(1, len(self.boot_s)), 1)}

    def fetch_state(self, guest_dir: str, host_dir: Path) -> None:
        """The journal of ``guest_dir`` copied out of the data partition (no mount needed)."""
        part = extract(self.disk, 2, self.work / "data.ext4")
        subprocess.run(["e2fsck", "-E", "journal_only", "-y", str(part)], capture_output=True)
        host_dir.parent.mkdir(parents=True, exist_ok=True)
        inside = "/state" + guest_dir.removeprefix(GUEST_STATE)
        subprocess.run(["debugfs", "-R", f"rdump {inside} {host_dir.parent}", str(part)],
                       capture_output=True, check=True)
        part.unlink()


class Lines:
    """A stream of the guest's lines as a file object's readline and iteration."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines

    def readline(self) -> str:
        return next(self.lines, "")

    def __iter__(self) -> Iterator[str]:
        return self.lines


class GuestProcess:
    """What reliability.Run needs of a process: its output lines, SIGKILL (the power cut:
    the whole guest goes), wait."""

    def __init__(self, guest: Guest, lines: Iterator[str]) -> None:
        self.guest = guest
        self.stdout = Lines(lines)

    def send_signal(self, _signal: int) -> None:
        self.guest.kill()

    def wait(self) -> int:
        return self.guest.proc.wait()


# ----- the whole run ---
def guarded(name: str, step: Any) -> dict[str, Any]:
    """A check's figures, or the reason it could not finish (the others still run)."""
    try:
        figures = step()
        log(f"{name}: {json.dumps(figures)}")
        return figures
    except Exception as exc:
        log(f"{name} check failed: {exc!r}")
        return {f"{name}_error": repr(exc)[:400]}


def power_cuts(guest: Guest, images: Path, disk: Path, work: Path, seed: int, kills: int,
               fresh: bool) -> dict[str, Any]:
    """The power cuts, the first ending the guest that is up; or, when that guest's data
    partition was failed on purpose (the spill), after it is off and the card boots again."""
    if fresh:
        guest.kill()
    return PowerCuts(images, disk, work, seed).run(kills, first=None if fresh else guest)


def virt_checks(images: Path, test_image: Path, work: Path, checks: set[str], replugs: int,
                kills: int, seed: int, quick: bool) -> dict[str, Any]:
    """One emulated box on QEMU's virt machine: the unit, the USB sensor, the updates, then
    the power cuts (the first of which ends this boot)."""
    from firmware_bridge.virtual import VirtualSensor

    figures: dict[str, Any] = {"machine": "virt"}
    sensor = VirtualSensor(("yellow", "yellow", "blue", "blue"), seed=seed)
    (work / "box").mkdir()
    disk = copy_disk(test_image, work / "box.img")
    guest = Guest(images, disk, work / "box", sensor_tty=sensor.plug())
    guest.start()
    try:
        figures["boot_to_agent_s"] = round(guest.wait_hello(), 1)
        steps = {"unit": lambda: unit_checks(guest),
                 "ssh": lambda: ssh_check(guest, work / "box"),
                 "firstboot": lambda: firstboot_cases(guest),
                 "usb": lambda: usb_replugs(guest, sensor, replugs),
                 "ble": lambda: ble_guest.ble_check(
                     guest, work / "box" / "hci.sock", GUEST_PYTHON, GUEST_LIB, GUEST_STATE,
                     rolls=5 if quick else 20, reconnects=1 if quick else 3, seed=seed),
                 "update": lambda: update_checks(guest, work / "box", images / "wheels", quick,
                                                cut="updatecuts" in checks),
                 "hotspot": lambda: hotspot_check(guest),
                 "spill": lambda: usb_spill(guest, work / "box"),
                 "powercut": lambda: power_cuts(guest, images, disk, work / "box", seed, kills,
                                                fresh="spill" in checks)}
        for name, step in steps.items():
            if name in checks:
                figures.update(guarded(name, step))
    finally:
        guest.kill()
        sensor.close()
    return figures


def missed_aims(figures: dict[str, Any], checks: set[str], replugs: int, kills: int,
                quick: bool = False) -> list[str]:
    """The keys whose aims the checks that ran have missed."""
    aims: dict[str, Any] = {}
    if "unit" in checks:
        aims.update(unit_ready=True, verify_errors=0, critical_chain_network=False,
                    page_port_80=True, page_port_8080=True)
    if "gpio" in checks:
        aims.update(gpio_lines_opened=6)
    if "powercut" in checks:
        aims.update(acknowledged_lost=0, resume_mismatches=0, fsck_errors=0)
    if "update" in checks:
        aims.update(update_ok=True, rollback_ok=True, root_owned_files_from_release=0,
                    update_attacks_refused=figures.get("update_attacks", -1))
    if {"update", "updatecuts"} <= checks:
        aims.update(plays_lost_by_update=0, journal_owner_ok=True, update_kills_box_ok=True,
                    kept_version_ok=True, update_set_aside_said=True)
    if "release" in checks:
        aims.update(release_ok=True)
    if "firstboot" in checks:
        aims.update(firstboot_cases=len(FIRSTBOOT_CASES), firstboot_cases_ok=len(FIRSTBOOT_CASES))
    if "spill" in checks:
        aims.update(usb_spill_ok=True)
    if "hotspot" in checks:
        aims.update(hotspot_ok=True)
    if "ble" in checks:
        aims.update(ble_state_writable=True, ble_dice_connected=len(ble_guest.AIR_DICE),
                    ble_false_faces=0,
                    ble_rolls_read=figures.get("ble_rolls", -1),
                    ble_reconnected=figures.get("ble_reconnects", -1))
    if "ssh" in checks:
        aims.update(ssh_closed_without_key=True, ssh_ok=True, ssh_password_off=True,
                    ssh_off_again=True, firstboot_unit_applies=True)
    missed = [key for key, aim in aims.items() if figures.get(key) != aim]
    for check, score in (("update", "update_security_score"), ("ssh", "firstboot_security_score")):
        if check in checks and not (figures.get(score) or 10.0) <= UNIT_EXPOSURE_AIM:
            missed.append(score)
    if "unit" in checks:
        missed += [key for key in ("boot_to_ready_s", "watchdog_restart_s") if figures.get(key) is None]
    if "usb" in checks and (figures.get("usb_replugs", 0) < replugs
                            or figures.get("usb_reconnected") != figures.get("usb_replugs")):
        missed.append("usb_replugs")
    if "ble" in checks and not (figures.get("ble_rolls") and figures.get("ble_reconnects")):
        missed.append("ble_rolls")
    if "ble" in checks and not (figures.get("ble_pair_s") or float("inf")) < ble_guest.PAIR_AIM_S:
        missed.append("ble_pair_s")
    if {"update", "updatecuts"} <= checks \
            and figures.get("update_kills", 0) < update_cuts_guest.kills(quick):
        missed.append("update_kills")
    if "powercut" in checks and figures.get("powercut_kills", 0) < kills:
        missed.append("powercut_kills")
    return missed


# updatecuts: the power cuts amid the update check's install (with update only).
ALL_CHECKS = "unit,ssh,firstboot,usb,ble,gpio,powercut,update,updatecuts,hotspot,spill,release"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer power cuts and replugs (CI)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--image-dir", type=Path, default=CACHE / "bench",
                        help="where the built image and the test image go")
    parser.add_argument("--only", help=f"comma-separated checks: {ALL_CHECKS}")
    parser.add_argument("--skip", default="", help="comma-separated checks left out")
    parser.add_argument("--kills", type=int, help="power cuts (default 50, 3 with --quick)")
    parser.add_argument("--no-build", action="store_true",
                        help="boot the test image built last, without running image/build.sh")
    args = parser.parse_args(argv)
    checks = set((args.only or ALL_CHECKS).split(",")) - set(args.skip.split(","))
    replugs, kills = (3, 3) if args.quick else (10, 50)
    kills = args.kills if args.kills is not None else kills
    began = time.monotonic()
    CONSOLES.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"benchmark": "appliance", "quick": args.quick}
    if not args.no_build:
        figures["image_build_s"] = round(build_image(args.image_dir), 1)
    images = args.image_dir / "test"
    test_image = images / "companion-test.img"
    with tempfile.TemporaryDirectory(prefix="appliance-", dir=CACHE) as tmp:
        work = Path(tmp)
        if checks & {"unit", "ssh", "firstboot", "usb", "ble", "update", "hotspot", "spill",
                     "powercut"}:
            figures.update(virt_checks(images, test_image, work, checks, replugs, kills, args.seed,
                                       args.quick))
        if "gpio" in checks:
            (work / "pi").mkdir()
            figures.update(guarded("gpio", lambda: gpio_check(images, test_image, work / "pi")))
    if "release" in checks:
        figures.update(guarded("release", lambda: release_check(args.image_dir)))
    figures["seconds"] = round(time.monotonic() - began, 1)
    missed = missed_aims(figures, checks, replugs, kills, args.quick)
    figures["missed"] = missed
    reliability.print_figures(figures, args.json)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
