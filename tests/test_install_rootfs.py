"""install.sh --root into a real Debian bookworm root filesystem, as the SD-card image does.

The root comes from mmdebstrap (cached, see tests/bookworm_root.py); the venv is built inside
it through chroot from a wheel directory, offline; the staged units must then pass
`systemd-analyze verify --root`. Needs root, chroot and mmdebstrap (`.ci/run` installs it):
under CI=true their absence fails instead of skipping.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.appliance import lockfile, release
from tests import bookworm_root
from tests.test_update import dependency_wheels

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "systemd" / "install.sh"
UNITS = ("companion.service", "companion-web.service", "companion-web.socket",
         "companion-firstboot.service", "companion-update-check.service", "companion-update.path",
         "companion-update.service", "companion-stopped.service",
         "companion-stopped-at-boot.service", "companion-splash.service",
         "companion-hotspot.service")


def missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root (chroot, systemd-sysusers --root)"
    for tool in ("systemd-analyze", "chroot", "unshare"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not bookworm_root.tarball().exists() and shutil.which("mmdebstrap") is None:
        return "mmdebstrap is not installed (apt-get install mmdebstrap)"
    return None


reason = missing()
if reason and os.environ.get("CI") == "true":
    pytest.fail(f"CI=true: {reason}", pytrace=False)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(reason is not None, reason=reason or "")]


def install(root: Path, wheels: Path) -> str:
    result = subprocess.run(["bash", str(INSTALL), "--root", str(root), "--wheels", str(wheels),
                             "--no-i2c", "--appliance"], capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    base = tmp_path_factory.mktemp("image")
    root = bookworm_root.unpack(base / "root")
    wheels = base / "wheels"
    shutil.copytree(dependency_wheels(), wheels)
    release.project_wheel(wheels, REPO)
    return root, wheels, install(root, wheels)


def canonical(pin: str) -> str:
    """NAME==VERSION with the name as pip compares it (luma.core == luma-core == Luma_Core)."""
    name, _, version = pin.partition("==")
    return f"{re.sub(r'[-_.]+', '-', name).lower()}=={version}"


def in_root(root: Path, *command: str) -> subprocess.CompletedProcess:
    # Its own UTS namespace: `hostname` in there must not rename this machine.
    return subprocess.run(["unshare", "--uts", "chroot", str(root), *command],
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C.UTF-8"})


def test_every_staged_unit_passes_systemd_analyze_verify(staged):
    root, _, _ = staged
    result = subprocess.run(["systemd-analyze", "verify", f"--root={root}", *UNITS],
                            capture_output=True, text=True, cwd=root)
    assert (result.returncode, result.stderr.strip()) == (0, "")
    # And verify would have said so: without the venv, ExecStart is "not executable".
    venv = root / "opt/companion/venv"
    venv.rename(venv.with_name("moved"))
    try:
        broken = subprocess.run(["systemd-analyze", "verify", f"--root={root}", UNITS[0]],
                                capture_output=True, text=True, cwd=root)
    finally:
        venv.with_name("moved").rename(venv)
    assert broken.returncode != 0 and "is not executable" in broken.stderr


def test_the_stop_screen_runs_from_the_root_filesystem_without_the_data_partition(staged):
    """Issue 37: with the data partition missing (the program's venv is on it) the OLED still
    says so: companion-stopped.service runs Debian's python3 on the display's code that
    install.sh --appliance copied onto the root, with the venv moved away."""
    root, _, _ = staged
    unit = root / "etc/systemd/system"
    assert (unit / "multi-user.target.wants/companion-stopped-at-boot.service").is_symlink()
    assert not (unit / "multi-user.target.wants/companion-stopped.service").exists()
    assert "OnFailure=companion-stopped.service" in (
        unit / "companion.service.d/onfailure.conf").read_text()
    venv = root / "opt/companion/venv"
    venv.rename(venv.with_name("moved"))
    try:
        result = subprocess.run(
            ["unshare", "--uts", "chroot", str(root), "/usr/bin/python3", "-m",
             "companion.appliance.stopped", "--data", "/no-data", "--png", "/tmp/stopped.png"],
            capture_output=True, text=True, timeout=120,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYTHONPATH": "/usr/lib/companion/stopped"})
    finally:
        venv.with_name("moved").rename(venv)
    assert result.returncode == 0, result.stderr
    assert "data partition" in result.stdout and (root / "tmp/stopped.png").exists()


def test_the_first_frame_runs_from_the_root_filesystem_on_debians_bare_python(staged):
    """Issue 40: the first frame from an early unit, before the data partition (the venv) is
    mounted: Debian's python3 -I -S on the copy install.sh --appliance made on the root."""
    root, _, _ = staged
    unit = root / "etc/systemd/system"
    assert (unit / "sysinit.target.wants/companion-splash.service").is_symlink()
    venv = root / "opt/companion/venv"
    venv.rename(venv.with_name("moved"))
    try:
        (root / "tmp/io").mkdir()
        result = in_root(root, "/usr/bin/python3", "-I", "-S",
                         "/usr/lib/companion/first-frame/first_frame.py", "--stand-in", "/tmp/io")
    finally:
        venv.with_name("moved").rename(venv)
    assert result.returncode == 0 and result.stderr == ""
    assert (root / "tmp/io/frames").read_text().split()[1:] == [
        "frame", hashlib.sha1((REPO / "companion/box/splash.bin").read_bytes()).hexdigest()[:16]]


def test_the_user_and_groups_are_in_the_image_from_sysusers(staged):
    root, _, _ = staged
    passwd = {line.split(":")[0]: line.split(":") for line in (root / "etc/passwd").read_text().splitlines()}
    assert passwd["companion"][5:] == ["/var/lib/companion", "/usr/sbin/nologin"]
    groups = {line.split(":")[0]: line.split(":")[3].split(",")
              for line in (root / "etc/group").read_text().splitlines()}
    for group in ("gpio", "i2c", "spi", "dialout", "bluetooth"):
        assert "companion" in groups[group], group
    state = root / "var/lib/companion"
    assert (state.stat().st_uid, oct(state.stat().st_mode & 0o777)) == (int(passwd["companion"][2]), "0o750")


def test_the_venv_runs_inside_the_image_with_the_locked_versions(staged):
    root, _, _ = staged
    assert in_root(root, "/opt/companion/venv/bin/companion", "--version").stdout.strip() == "companion 0.1.0"
    frozen = in_root(root, "/opt/companion/venv/bin/pip", "freeze", "--isolated").stdout.split()
    locked = {f"{pin.name}=={pin.version}" for pin in lockfile.read_lock(REPO / lockfile.LOCK_NAME)
              if pin.machine is None}
    assert locked <= {canonical(line) for line in frozen}
    assert (root / "opt/companion/venv").readlink() == Path("slots/a")
    assert (root / "opt/companion/safe").readlink() == Path("slots/a")


def test_installing_again_changes_nothing_that_matters(staged):
    root, wheels, _ = staged
    again = install(root, wheels)
    assert "unchanged: /opt/companion/venv -> slots/a" in again
    assert "kept: /boot/firmware/companion.txt" in again


def test_the_box_does_not_wait_for_the_network(staged):
    """The critical chain itself is checked in the emulated box; here: no network unit in the
    box's ordering or requirements, while the first boot runs before the network, and before
    the box (issue 37: "first boot is ordered before the update check and the box's start"),
    itself waiting for no network."""
    root, _, _ = staged
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read(root / "etc/systemd/system/companion.service")
    words = " ".join(parser["Unit"].get(key, "") for key in ("After", "Wants", "Requires", "BindsTo"))
    assert "network" not in words
    first = configparser.ConfigParser(strict=False, interpolation=None)
    first.read(root / "etc/systemd/system/companion-firstboot.service")
    before = first["Unit"]["Before"].split()
    assert {"network-pre.target", "companion.service", "companion-update-check.service"} <= set(before)
    assert "network" not in first["Unit"]["After"]


def test_first_boot_settings_apply_inside_the_image(staged):
    root, _, _ = staged
    (root / "boot/firmware/companion.txt").write_text(
        "hostname = tavolo\nwifi_country = GB\nwifi_ssid = Home\nwifi_password = correct horse\n"
        "timezone = Europe/London\nphone_page = on\n")
    # As its unit runs it: root runs the copy on the root filesystem, never the venv's code.
    result = in_root(root, "/usr/bin/python3", "-I", "/usr/lib/companion/privileged", "firstboot")
    assert result.returncode == 0, result.stderr
    assert (root / "etc/hostname").read_text() == "tavolo\n"
    assert (root / "etc/localtime").readlink() == Path("/usr/share/zoneinfo/Europe/London")
    wants = root / "etc/systemd/system/multi-user.target.wants"
    assert (wants / "wpa_supplicant@wlan0.service").is_symlink()
    assert (wants / "companion-web.service").is_symlink()
    assert (root / "etc/systemd/system/sockets.target.wants/companion-web.socket").is_symlink()
    assert "correct horse" not in (root / "boot/firmware/companion.txt").read_text()
    verify = subprocess.run(["systemd-analyze", "verify", f"--root={root}", "companion-web.service"],
                            capture_output=True, text=True, cwd=root)
    assert verify.returncode == 0, verify.stderr
