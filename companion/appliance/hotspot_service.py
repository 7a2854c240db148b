"""companion-hotspot.service: the box's own access point, run as root beside the box (which
never waits for it). It looks at the Wi-Fi every few seconds and does what
:func:`companion.appliance.hotspot.next_step` decides: hostapd and dnsmasq on wlan0 while the
access point is open; a phone's request (``handed/wifi-request.json``, from the unprivileged
page) checked, written into companion.txt and applied by first boot (which writes the
wpa_supplicant file with the network module's helpers), then the network joined.

What it sees and does is written to ``/var/lib/companion/hotspot/hotspot.json``, which the box
(About, a notice) and the page read.

    python -m companion.appliance.hotspot_service [--state-dir DIR] [--settings FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import re
import subprocess
import sys
import time
from pathlib import Path

from . import hotspot, hotspot_state, settings_file
from .durable import write_durably
from .hotspot import Seen, Step, WifiRequest
from .hotspot_state import ADDRESS, PREFIX, Mode, State
from .network import WIFI_INTERFACE, WIFI_UNIT, WPA_CONF, known_network

log = logging.getLogger("companion.hotspot")

LOOK_S = 3.0
RUN_DIR = Path("/run/companion-hotspot")  # the unit's RuntimeDirectory: hostapd's settings
SERIALS = (Path("/sys/firmware/devicetree/base/serial-number"), Path("/etc/machine-id"))
FIRSTBOOT_UNIT = "companion-firstboot.service"


def run(*command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout)


def serial() -> str:
    for path in SERIALS:
        with contextlib.suppress(OSError):
            text = path.read_bytes().rstrip(b"\0").decode(errors="replace").strip()
            if text:
                return text
    return "0000"


def country() -> str:
    """The Wi-Fi country the box's settings give (hostapd needs it for its channels)."""
    with contextlib.suppress(OSError):
        found = re.search(r"^country=([A-Z]{2})$", WPA_CONF.read_text(), re.M)
        if found:
            return found[1]
    return ""


class Radio:
    """wlan0: joined or not, scanned, turned into the access point and back."""

    def __init__(self, run_dir: Path = RUN_DIR) -> None:
        self.run_dir = run_dir
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def present(self) -> bool:
        return Path(f"/sys/class/net/{WIFI_INTERFACE}").exists()

    @property
    def joined(self) -> bool:
        return run("iw", "dev", WIFI_INTERFACE, "link").stdout.startswith("Connected to")

    @property
    def phones(self) -> bool:
        """Whether a phone is on the access point."""
        return bool(run("iw", "dev", WIFI_INTERFACE, "station", "dump").stdout.strip())

    def scan(self) -> list[str]:
        """The networks around, strongest first as iw lists them (best effort)."""
        run("ip", "link", "set", WIFI_INTERFACE, "up")
        listed = run("iw", "dev", WIFI_INTERFACE, "scan", timeout=30).stdout
        names = [m[1] for m in re.finditer(r"^\s*SSID: (.+)$", listed, re.M)]
        return list(dict.fromkeys(n for n in names if n.strip()))[:hotspot_state.NETWORKS_SHOWN]

    def open(self, name: str, passphrase: str) -> str:
        """hostapd and dnsmasq on wlan0; "" or why the access point did not open."""
        run("systemctl", "stop", WIFI_UNIT)
        conf = self.run_dir / "hostapd.conf"
        code = country()
        conf.write_text("\n".join([
            f"interface={WIFI_INTERFACE}", "driver=nl80211", f"ssid={name}", "hw_mode=g",
            "channel=6", *([f"country_code={code}", "ieee80211d=1"] if code else []),
            "wpa=2", "wpa_key_mgmt=WPA-PSK", "rsn_pairwise=CCMP",
            f"wpa_passphrase={passphrase}",
            # A slow phone (or a busy emulator) gets more tries at the WPA handshake.
            "wpa_pairwise_update_count=8", ""]))
        conf.chmod(0o600)
        run("ip", "addr", "flush", "dev", WIFI_INTERFACE)
        self.processes.append(subprocess.Popen(["hostapd", str(conf)], stdout=subprocess.DEVNULL))
        for _ in range(30):
            if "type AP" in run("iw", "dev", WIFI_INTERFACE, "info").stdout:
                break
            time.sleep(1)
        else:
            self.close()
            return "hostapd did not start the access point"
        run("ip", "addr", "add", f"{ADDRESS}/{PREFIX}", "dev", WIFI_INTERFACE)
        first, last = hotspot.DHCP_RANGE
        # Every name a phone looks up answers with the box: its "sign in to the network"
        # page opens the box's page.
        self.processes.append(subprocess.Popen([
            "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
            "--no-hosts", f"--interface={WIFI_INTERFACE}", "--bind-interfaces",
            f"--listen-address={ADDRESS}", f"--dhcp-range={first},{last},1h",
            "--leasefile-ro", f"--address=/#/{ADDRESS}",
            "--user=nobody", "--group=nogroup", "--pid-file="]))
        return ""

    def close(self) -> None:
        for process in self.processes:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(10)
            if process.poll() is None:
                process.kill()
        self.processes = []
        run("ip", "addr", "flush", "dev", WIFI_INTERFACE)

    def join(self) -> None:
        """The network first boot wrote, joined by wpa_supplicant; systemd-networkd takes
        wlan0 back for its address."""
        run("systemctl", "restart", WIFI_UNIT)
        run("networkctl", "reconfigure", WIFI_INTERFACE)


def take(request: WifiRequest, settings: Path) -> str:
    """The request written into companion.txt and applied by first boot: "" or why not."""
    try:
        data = settings.read_bytes() if settings.exists() else b""
        decoded = settings_file.decode(data) if data else None
        text = settings_file.set_values(decoded.text if decoded else "", {
            "wifi_ssid": [hotspot.quoted(request.ssid)],
            "wifi_password": [hotspot.quoted(request.passphrase)]})
        write_durably(settings, decoded.encode(text) if decoded else text.encode())
    except (OSError, ValueError) as exc:  # ValueError: an encoding that cannot hold it
        return f"companion.txt could not be written ({exc})"
    applied = run("systemctl", "start", FIRSTBOOT_UNIT, timeout=900)
    if applied.returncode != 0:
        return f"the settings were not applied ({applied.stderr.strip()[-120:]})"
    if known_network(WPA_CONF) is None:
        return "the settings were not applied (see companion doctor)"
    return ""


class Service:
    """The loop: look, decide, act, and say so in the state file."""

    def __init__(self, state_dir: Path, settings: Path, radio: Radio) -> None:
        self.request_file = state_dir / "handed" / hotspot_state.REQUEST_NAME
        self.state_file = state_dir / hotspot_state.STATE_FOLDER / hotspot_state.STATE_NAME
        self.settings, self.radio = settings, radio
        self.name = hotspot.hotspot_name(serial())
        self.state = State(Mode.OFF)
        self.trying_since = self.open_since = time.monotonic()
        self.passphrase = ""  # kept while the service runs: a retry reopens with the same one
        self.retrying = False
        self.told = ""

    def tell(self, state: State) -> None:
        self.state = state
        text = state.as_text()
        if text != self.told:
            self.state_file.parent.mkdir(exist_ok=True)
            write_durably(self.state_file, text.encode(), 0o640)
            self.told = text
            log.info("hotspot: %s %s", state.mode.value, state.network or state.problem)

    def request(self) -> WifiRequest | str | None:
        """The phone's request (taken from the folder), the reason it is refused, or None."""
        try:
            data = self.request_file.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("hotspot: %s: %s", self.request_file, exc)
            return f"the request could not be read ({exc.strerror})"
        self.request_file.unlink(missing_ok=True)
        try:
            return hotspot.read_request(data)
        except ValueError as exc:
            return f"refused: {exc}"

    def once(self) -> None:
        radio = self.radio
        asked = self.request() if self.state.mode is Mode.OPEN else None
        if isinstance(asked, str):
            self.tell(State(Mode.OPEN, self.name, self.state.passphrase, problem=asked,
                            networks=self.state.networks))
            return
        present, is_open, known = radio.present, self.state.mode is Mode.OPEN, known_network(WPA_CONF)
        seen = Seen(radio=present, configured=known is not None,
                    joined=present and not is_open and radio.joined,
                    trying_s=time.monotonic() - self.trying_since,
                    open=is_open, request=asked is not None,
                    open_s=time.monotonic() - self.open_since if is_open else 0.0,
                    phones=is_open and radio.phones)
        if seen.joined:
            self.trying_since = time.monotonic()  # a network lost is tried again as long
        step = hotspot.next_step(seen)
        if step is Step.OPEN:
            self.open_ap(self.missed())
        elif step is Step.JOIN and isinstance(asked, WifiRequest):
            self.join(asked)
        elif step is Step.RETRY and known is not None:
            self.retry(known[0])
        elif self.state.mode is Mode.JOINING and seen.joined:
            self.retrying = False
            self.tell(State(Mode.JOINED, network=self.state.network))

    def missed(self) -> str:
        """Why the access point opens again after a network was tried, or ""."""
        if self.state.mode is not Mode.JOINING:
            return ""
        if self.retrying:
            return f"{self.state.network} not found: tried again every {hotspot.RETRY_AFTER_S / 60:.0f} min"
        return f"{self.state.network} was not joined: check its passphrase"

    def open_ap(self, problem: str = "") -> None:
        networks = self.radio.scan()
        if not self.retrying:  # a phone may have read the last one: a new one each time asked
            self.passphrase = hotspot.new_passphrase()
        failed = self.radio.open(self.name, self.passphrase)
        self.open_since = time.monotonic()
        self.tell(State(Mode.OPEN, self.name, self.passphrase, problem=failed or problem,
                        networks=networks))

    def retry(self, network: str) -> None:
        """The box's own network again (the access point reopens with the same passphrase if
        it is still not joined in time)."""
        self.retrying = True
        self.tell(State(Mode.JOINING, network=network))
        self.radio.close()
        self.radio.join()
        self.trying_since = time.monotonic()

    def join(self, request: WifiRequest) -> None:
        self.retrying = False
        self.tell(State(Mode.JOINING, network=request.ssid))
        self.radio.close()
        failed = take(request, self.settings)
        if failed:
            self.open_ap(failed)
            return
        self.radio.join()
        self.trying_since = time.monotonic()  # not joined in time: the access point opens again

    def stop(self) -> None:
        self.radio.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the box's own Wi-Fi access point")
    parser.add_argument("--state-dir", type=Path, default=Path("/var/lib/companion"))
    parser.add_argument("--settings", type=Path, default=Path("/boot/firmware/companion.txt"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    service = Service(args.state_dir, args.settings, Radio())
    service.tell(service.state)
    try:
        while True:
            service.once()
            time.sleep(LOOK_S)
    finally:
        service.stop()


if __name__ == "__main__":
    sys.exit(main())
