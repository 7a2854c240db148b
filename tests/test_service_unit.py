"""The unit file: systemd accepts it, and its exposure score stays at or below 2.0."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

UNIT = Path(__file__).resolve().parent.parent / "systemd" / "companion.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed here")


def unit_values(key: str) -> list[str]:
    """Every value a [Service] key is given (systemd lets keys repeat)."""
    pattern = re.compile(rf"^{re.escape(key)}=(.*)$", re.MULTILINE)
    return [m.group(1).strip() for m in pattern.finditer(UNIT.read_text())]


def test_unit_declares_notify_watchdog_restart_and_start_limit():
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(UNIT)
    service, unit = parser["Service"], parser["Unit"]
    assert service["Type"] == "notify" and service["NotifyAccess"] == "main"
    assert int(service["WatchdogSec"]) > 0 and service["Restart"] == "on-failure"
    assert int(unit["StartLimitBurst"]) > 0 and int(unit["StartLimitIntervalSec"]) > 0
    assert service["User"] == "companion"
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "i2c", "spi", "dialout", "bluetooth"}
    assert service["StateDirectory"] == "companion" and service["ConfigurationDirectory"] == "companion"


def test_devices_are_only_gpio_i2c_spi_and_serial():
    assert unit_values("DevicePolicy") == ["closed"]
    kinds = {value.split()[0] for value in unit_values("DeviceAllow")}
    # /proc/devices names: gpiochip, i2c (i2c-dev), spi (spidev), and the serial tty drivers.
    assert kinds <= {"char-gpiochip", "char-i2c", "char-spi", "char-ttyACM", "char-ttyUSB",
                     "char-ttyAMA"}
    assert unit_values("RestrictAddressFamilies") == ["AF_UNIX"]
    assert unit_values("CapabilityBoundingSet") == [""]


@needs_analyze
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    """verify also checks that ExecStart exists: point it at this venv's `companion`."""
    here = Path(sys.executable).parent / "companion"
    copy = tmp_path / UNIT.name
    copy.write_text(UNIT.read_text().replace("/opt/companion/venv/bin/companion", str(here)))
    result = subprocess.run([ANALYZE, "verify", str(copy)], capture_output=True, text=True)
    assert (result.returncode, result.stderr.strip()) == (0, "")


@needs_analyze
def test_exposure_is_at_most_two():
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--no-pager", str(UNIT)],
                            capture_output=True, text=True)
    if "--offline" in result.stderr and "unrecognized" in result.stderr:
        pytest.skip("this systemd-analyze has no --offline (needs systemd 250 or later)")
    match = re.search(r"Overall exposure level for \S+: ([0-9.]+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.0


def test_only_the_state_dir_and_removable_drives_are_writable():
    """History → Export writes to /media or /run/media; nothing else is opened up."""
    from companion.records.export import MOUNT_ROOTS

    assert unit_values("ProtectSystem") == ["strict"]
    assert unit_values("ReadWritePaths") == [" ".join(f"-{root}" for root in MOUNT_ROOTS)]
    assert unit_values("ReadOnlyPaths") == [] and unit_values("BindPaths") == []


def test_the_box_starts_as_early_as_its_sandbox_allows_and_first_in_line_for_the_cpu():
    """"the box's unit ordered as early as its sandbox permits" (issue 40): not after the
    whole of sysinit.target and basic.target, but after what its sandbox and its devices need."""
    assert unit_values("DefaultDependencies") == ["no"]
    after = {name for value in unit_values("After") for name in value.split()}
    assert after == {"local-fs.target", "systemd-modules-load.service",
                     "systemd-udev-trigger.service", "systemd-tmpfiles-setup.service"}
    before = {name for value in unit_values("Before") for name in value.split()}
    assert before == {"shutdown.target", "systemd-networkd.service", "avahi-daemon.service",
                      "systemd-logind.service"}  # what a table does not wait for comes after
    assert unit_values("Conflicts") == ["shutdown.target"]
    assert int(unit_values("StartupCPUWeight")[0]) > 100  # systemd's default weight
