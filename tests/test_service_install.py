"""The installer in a staging root (--root): idempotent, keeps the config, uninstall keeps history."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from companion.games import box_config as config_module

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "systemd" / "install.sh"
BOOT_CONFIG = "# Raspberry Pi OS\n#dtparam=i2c_arm=on\n#dtparam=spi=on\n\n[cm4]\notg_mode=1\n\n[all]\n"
I2C_LINE = "dtparam=i2c_arm=on,i2c_arm_baudrate=400000"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bash") is None, reason="the installer is a bash script")]


@pytest.fixture
def root(tmp_path):
    """A staging root with the boot config a fresh Bookworm image has."""
    staging = tmp_path / "root"
    (staging / "boot" / "firmware").mkdir(parents=True)
    (staging / "boot" / "firmware" / "config.txt").write_text(BOOT_CONFIG)
    return staging


def install(root: Path, *options: str) -> str:
    result = subprocess.run(["bash", str(INSTALL), "--root", str(root), *options],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def tree(root: Path) -> dict[str, tuple[str, str | bytes, int]]:
    """Every path under root: kind, content or link target, and mode."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = ("link", str(path.readlink()), 0)
        elif path.is_file():
            found[key] = ("file", path.read_bytes(), path.stat().st_mode & 0o7777)
        else:
            found[key] = ("dir", "", 0)
    return found


def test_installing_twice_gives_the_same_files(root):
    install(root, "--i2c")
    first = tree(root)
    second_run = install(root, "--i2c")
    assert tree(root) == first
    assert "kept: /etc/companion/config.toml" in second_run
    assert (root / "etc/systemd/system/companion.service").read_bytes() == (
        REPO / "systemd/companion.service").read_bytes()
    wants = root / "etc/systemd/system/multi-user.target.wants/companion.service"
    assert wants.readlink() == Path("/etc/systemd/system/companion.service")
    assert (root / "usr/local/bin/companion").readlink() == Path("/opt/companion/venv/bin/companion")


def test_an_edited_config_is_never_overwritten(root):
    install(root, "--no-i2c")
    config = root / "etc/companion/config.toml"
    assert config.read_text() == (REPO / "config.example.toml").read_text()
    config.write_text("[buzzer]\nvolume = 1\n")
    install(root, "--no-i2c")
    assert config.read_text() == "[buzzer]\nvolume = 1\n"


def test_i2c_is_set_once_at_400_khz_with_a_backup(root):
    boot = root / "boot/firmware/config.txt"
    install(root, "--i2c")
    install(root, "--i2c")
    lines = boot.read_text().splitlines()
    assert lines.count(I2C_LINE) == 1
    assert not any(line.lstrip("#").startswith("dtparam=i2c_arm=on") and line != I2C_LINE
                   for line in lines)
    assert (root / "boot/firmware/config.txt.companion-backup").read_text() == BOOT_CONFIG
    assert (root / "etc/modules-load.d/companion.conf").read_text() == "i2c-dev\n"


def test_a_bus_already_at_100_khz_is_moved_to_400_khz_in_one_line(root):
    """Bookworm's default is 100 kHz; a whole frame then takes 93 ms on the bus."""
    from companion.doctor.checks import i2c_speed

    boot = root / "boot/firmware/config.txt"
    boot.write_text("dtparam=i2c_arm=on\ndtparam=i2c_baudrate=100000\n[all]\n")
    assert i2c_speed(1, root) == (100_000, "/boot/firmware/config.txt")
    install(root, "--i2c")
    assert boot.read_text() == f"{I2C_LINE}\n[all]\n"
    assert i2c_speed(1, root) == (400_000, "/boot/firmware/config.txt")


def test_i2c_is_appended_under_all_when_the_file_never_mentions_it(root):
    boot = root / "boot/firmware/config.txt"
    boot.write_text("[pi4]\narm_boost=1\n")
    install(root, "--i2c")
    assert boot.read_text().splitlines()[-2:] == ["[all]", I2C_LINE]


def test_declining_i2c_leaves_the_boot_config_alone(root):
    install(root, "--no-i2c")
    assert (root / "boot/firmware/config.txt").read_text() == BOOT_CONFIG
    assert not (root / "boot/firmware/config.txt.companion-backup").exists()


def test_spi_is_enabled_once_on_request_and_shown_in_a_dry_run(root):
    boot = root / "boot/firmware/config.txt"
    dry = install(root, "--no-i2c", "--spi", "--dry-run")
    assert "would: set dtparam=spi=on in /boot/firmware/config.txt" in dry
    assert "python3-spidev python3-rpi-lgpio" in dry  # the apt step names the SPI packages
    assert boot.read_text() == BOOT_CONFIG
    first = install(root, "--no-i2c", "--spi")
    assert "set dtparam=spi=on in /boot/firmware/config.txt" in first
    again = install(root, "--no-i2c", "--spi")
    assert "unchanged: /boot/firmware/config.txt (dtparam=spi=on)" in again
    lines = boot.read_text().splitlines()
    assert lines.count("dtparam=spi=on") == 1 and "#dtparam=spi=on" not in lines
    assert "#dtparam=i2c_arm=on" in lines, "--no-i2c: I2C left as it was"
    assert (root / "boot/firmware/config.txt.companion-backup").read_text() == BOOT_CONFIG


def test_dry_run_changes_nothing(root):
    before = tree(root)
    out = install(root, "--i2c", "--dry-run")
    assert tree(root) == before
    assert "would: install /etc/companion/config.toml" in out
    assert f"would: set {I2C_LINE} in /boot/firmware/config.txt" in out


def test_uninstall_keeps_game_history_unless_purged(root):
    install(root, "--no-i2c")
    history = root / "var/lib/companion/journal.db"
    assert history.parent.is_dir()  # made by systemd-tmpfiles --root
    history.write_bytes(b"games")
    install(root, "--uninstall")
    assert history.read_bytes() == b"games"
    assert (root / "etc/companion/config.toml").exists()
    assert not (root / "etc/systemd/system/companion.service").exists()
    assert not (root / "etc/systemd/system/multi-user.target.wants/companion.service").is_symlink()
    assert not (root / "opt/companion").exists() and not (root / "usr/local/bin/companion").is_symlink()
    install(root, "--uninstall", "--purge")
    assert not history.exists() and not (root / "etc/companion").exists()


def test_unknown_options_are_refused():
    result = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True)
    assert result.returncode == 2 and "--frobnicate" in result.stderr


def test_the_example_config_is_valid_as_shipped_and_uncommented(tmp_path):
    example = REPO / "config.example.toml"
    assert config_module.load(example, required=True).display.i2c_address == 0x3C
    # Each setting is a commented "# key = value  # meaning" line.
    uncommented = re.sub(r"^# ([a-z_]+ = )", r"\1", example.read_text(), flags=re.MULTILINE)
    assert tomllib.loads(uncommented)["buttons"]["ok"] == 13
    assert config_module.parse(tomllib.loads(uncommented)).display.i2c_address == 0x3C


def test_the_venv_is_compiled_to_bytecode_after_each_package_install():
    """The service cannot write .pyc files in its read-only venv: the installer writes them."""
    result = subprocess.run(["bash", str(INSTALL), "--dry-run", "--no-i2c"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    package = lines.index("would: install the companion package and its locked dependencies "
                          "into /opt/companion/slots/a")
    assert lines[package + 1] == "would: compile the .pyc files in /opt/companion/venv"
    assert "compileall" in INSTALL.read_text()
