"""The network files first boot writes: the Wi-Fi (wpa_supplicant and a DHCP unit for
systemd-networkd) and the phone page's mDNS announcement (avahi)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

WIFI_INTERFACE = "wlan0"
WPA_CONF = Path(f"/etc/wpa_supplicant/wpa_supplicant-{WIFI_INTERFACE}.conf")
NETWORK_FILE = Path(f"/etc/systemd/network/50-companion-{WIFI_INTERFACE}.network")
AVAHI_SERVICE = Path("/etc/avahi/services/companion.service")
WIFI_UNIT = f"wpa_supplicant@{WIFI_INTERFACE}.service"
WEB_PORT = 80


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
<!-- Table Companion's phone page, found by phones as http://%h.local/ -->
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
