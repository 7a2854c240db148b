"""`companion doctor` reports the I²C bus speed the panel gets, from /sys or the boot config."""

from __future__ import annotations

from companion.contract import config as config_module
from companion.doctor.checks import OK, WARN, Probes, check_i2c_speed, diagnose, i2c_speed

CLOCK = "sys/class/i2c-adapter/i2c-1/of_node/clock-frequency"


def write(root, name, content):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)


def test_the_running_speed_is_read_from_the_device_tree_as_a_big_endian_cell(tmp_path):
    write(tmp_path, CLOCK, (400_000).to_bytes(4, "big"))
    write(tmp_path, "boot/firmware/config.txt", "dtparam=i2c_arm=on,i2c_arm_baudrate=100000\n")
    assert i2c_speed(1, tmp_path) == (400_000, f"/{CLOCK}")
    finding = check_i2c_speed(config_module.parse({}), tmp_path)
    assert finding.level == OK and "400 kHz" in finding.detail


def test_without_sys_the_boot_config_decides_and_100_khz_warns_with_the_fix(tmp_path):
    write(tmp_path, "boot/firmware/config.txt",
          "#dtparam=i2c_arm_baudrate=1000000\ndtparam=i2c_arm=on,i2c_arm_baudrate=100000\n")
    finding = check_i2c_speed(config_module.parse({}), tmp_path)
    assert finding.level == WARN
    assert "100 kHz (/boot/firmware/config.txt)" in finding.detail
    assert "install.sh --i2c" in finding.fix


def test_a_bus_that_says_nothing_is_unknown_not_guessed(tmp_path):
    write(tmp_path, CLOCK, b"")
    write(tmp_path, "boot/config.txt", "dtparam=i2c_arm=on\n")
    assert i2c_speed(1, tmp_path) is None
    finding = check_i2c_speed(config_module.parse({}), tmp_path)
    assert finding.level == OK and "unknown" in finding.detail


def test_the_simulated_box_has_no_bus_speed_line(tmp_path):
    findings = diagnose(None, Probes.sim(), state_dir=str(tmp_path), sim=True)
    assert "i2c" not in [finding.check for finding in findings]
