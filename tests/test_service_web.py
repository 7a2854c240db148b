"""The phone page's unit: off unless installed with --web, no devices, the network only by IP,
only the journal's files writable, and an exposure score at or below 2.5."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_service_install import install
from tests.test_service_unit import ANALYZE, needs_analyze

pytestmark = pytest.mark.slow

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "companion-web.service"
WANTS = "etc/systemd/system/multi-user.target.wants/companion-web.service"
SOCKET_WANTS = "etc/systemd/system/sockets.target.wants/companion-web.socket"


def socket_values(key: str) -> list[str]:
    text = (UNIT.parent / "companion-web.socket").read_text()
    return [m.group(1).strip() for m in re.finditer(rf"^{re.escape(key)}=(.*)$", text, re.MULTILINE)]


def values(key: str) -> list[str]:
    pattern = re.compile(rf"^{re.escape(key)}=(.*)$", re.MULTILINE)
    return [m.group(1).strip() for m in pattern.finditer(UNIT.read_text())]


def test_the_unit_runs_companion_web_as_the_box_user_without_devices():
    assert values("User") == ["companion"] and values("Group") == ["companion"]
    assert "-m companion.web" in values("ExecStart")[0]
    assert values("PrivateDevices") == ["yes"] and values("DeviceAllow") == []
    assert values("RestrictAddressFamilies") == ["AF_INET AF_INET6 AF_UNIX"]
    assert values("CapabilityBoundingSet") == [""] and values("SupplementaryGroups") == []


def test_only_the_journal_files_are_writable():
    assert values("ProtectSystem") == ["strict"]
    assert values("StateDirectory") == []       # it would open the whole directory
    written = values("ReadWritePaths")[0].split()
    assert written == [f"-/var/lib/companion/journal.db{end}" for end in ("", "-wal", "-shm")]


def test_beside_the_journal_it_may_add_files_only_to_the_card_files_and_what_it_hands_the_box():
    folders = [path for line in values("ReadWritePaths")[1:] for path in line.split()]
    assert folders == ["-/var/lib/companion/cards", "-/var/lib/companion/handed"]
    made = (UNIT.parent / "companion.tmpfiles").read_text()
    assert "d /var/lib/companion/cards 0750 companion companion -" in made
    assert "d /var/lib/companion/handed 0770 companion companion -" in made


def test_the_page_is_off_unless_asked(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    install(root, "--no-i2c")
    assert not (root / "etc/systemd/system/companion-web.service").exists()
    assert not (root / WANTS).exists()
    out = install(root, "--no-i2c", "--web")
    assert (root / WANTS).is_symlink() and "companion-web.service" in out
    assert (root / SOCKET_WANTS).is_symlink()
    install(root, "--uninstall")
    assert not (root / WANTS).exists() and not (root / SOCKET_WANTS).exists()
    assert not (root / "etc/systemd/system/companion-web.socket").exists()


def test_systemd_opens_ports_80_and_8080_for_the_page_on_local_addresses_only():
    """Issue 37: the README's http://companion.local is port 80; 8080 keeps working. systemd
    binds both (socket activation), so the page runs with no capability; the sockets carry
    the page's address list themselves (a unit's own does not reach sockets passed to it)."""
    assert socket_values("ListenStream") == ["80", "8080"]
    assert socket_values("IPAddressDeny") == ["any"] == values("IPAddressDeny")
    assert socket_values("IPAddressAllow") == values("IPAddressAllow")
    assert values("Requires") == ["companion-web.socket"] and values("AmbientCapabilities") == [""]


@needs_analyze
def test_systemd_accepts_the_unit_and_its_exposure_is_at_most_2_5(tmp_path):
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/python", sys.executable))
    (tmp_path / "companion-web.socket").write_text((UNIT.parent / "companion-web.socket").read_text())
    verify = subprocess.run([ANALYZE, "verify", str(copy), str(tmp_path / "companion-web.socket")],
                            capture_output=True, text=True)
    assert (verify.returncode, verify.stderr.strip()) == (0, "")
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--no-pager", str(UNIT)],
                            capture_output=True, text=True)
    if "--offline" in result.stderr and "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (needs systemd 250 or later)")
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
    assert match and float(match.group(1)) <= 2.5, result.stdout[-400:]
