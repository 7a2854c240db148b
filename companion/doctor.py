"""Checks that say whether this box can run, one finding per check, each with its fix.

Every contact with the machine goes through :class:`Probes`, so the same checks run on a
Raspberry Pi and, with :class:`SimProbes`, on the simulator in tests.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import config as config_module

OK, WARN, FAIL = "ok", "warn", "FAIL"
SERVICE = "companion.service"
OLED_ADDRESSES = (0x3C, 0x3D)
MIN_FREE_MB = 5  # below this the journal cannot commit a game
LOW_FREE_MB = 50


@dataclass(frozen=True)
class Finding:
    """The outcome of one check: ``level`` is ok, warn (runs anyway) or FAIL (cannot run)."""

    check: str
    level: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.level:<4}  {self.check:<8} {self.detail}"
        return f"{text}. Fix: {self.fix}" if self.fix else text


class Probes:
    """The machine as the checks see it: device files, buses, pins, ports, systemd."""

    def __init__(self, dev: Path = Path("/dev")) -> None:
        self.dev = dev

    def i2c_bus(self, bus: int) -> Path | None:
        path = self.dev / f"i2c-{bus}"
        return path if path.exists() else None

    def i2c_answers(self, bus: int, address: int) -> bool:
        """An SMBus quick write, as ``i2cdetect`` does; OSError for a bus we cannot use."""
        from smbus2 import SMBus

        with SMBus(bus) as smbus:
            try:
                smbus.write_quick(address)
            except OSError as exc:
                if exc.errno in (errno.EREMOTEIO, errno.ENXIO, errno.EIO, errno.ETIMEDOUT):
                    return False  # no acknowledge: nothing at this address
                raise
        return True

    def spi_device(self, port: int, device: int) -> Path | None:
        path = self.dev / f"spidev{port}.{device}"
        return path if path.exists() else None

    def gpio_chips(self) -> list[Path]:
        return sorted(self.dev.glob("gpiochip*"))

    def can_open(self, path: Path) -> bool:
        return os.access(path, os.R_OK | os.W_OK)

    def pin_factory(self) -> Any:
        """gpiozero's factory for this machine (lgpio on Raspberry Pi OS Bookworm)."""
        from gpiozero import Device

        Device.ensure_pin_factory()
        return Device.pin_factory

    def open_serial(self, port: str, baud: int) -> Any:
        import serial

        return serial.serial_for_url(port, baudrate=baud, timeout=0.5)

    def service_state(self) -> str | None:
        """``systemctl is-active`` of the unit, or None where there is no systemd."""
        systemctl = shutil.which("systemctl")
        if systemctl is None or not Path("/run/systemd/system").is_dir():
            return None  # sd_booted(): systemd is not what started this machine
        try:
            result = subprocess.run([systemctl, "is-active", SERVICE], capture_output=True,
                                    text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return result.stdout.strip() or "unknown"


class SimProbes(Probes):
    """The simulated box: a display answering where it is wired, gpiozero MockFactory pins."""

    def __init__(self, i2c_devices: set[tuple[int, int]] | None = None, pin_factory: Any = None,
                 service: str | None = None, i2c_buses: set[int] | None = None) -> None:
        super().__init__()
        self.i2c_devices = {(1, 0x3C)} if i2c_devices is None else i2c_devices
        self.i2c_buses = {1} if i2c_buses is None else i2c_buses
        self._factory = pin_factory
        self.service = service

    def i2c_bus(self, bus: int) -> Path | None:
        return Path(f"/dev/i2c-{bus}") if bus in self.i2c_buses else None

    def i2c_answers(self, bus: int, address: int) -> bool:
        return (bus, address) in self.i2c_devices

    def spi_device(self, port: int, device: int) -> Path | None:
        return Path(f"/dev/spidev{port}.{device}")

    def gpio_chips(self) -> list[Path]:
        return [Path("/dev/gpiochip0")]

    def can_open(self, path: Path) -> bool:
        return True

    def pin_factory(self) -> Any:
        if self._factory is None:
            from gpiozero.pins.mock import MockFactory

            self._factory = MockFactory()
        return self._factory

    def service_state(self) -> str | None:
        return self.service


# ----- the checks ---------------------------------------------------------------------------


def check_config(path: str | None) -> tuple[Finding, config_module.Config | None]:
    """The config file parses and every key is valid (a missing default file means defaults)."""
    try:
        cfg = config_module.load(path, required=path is not None)
    except config_module.ConfigError as exc:
        return Finding("config", FAIL, f"{exc.path}: {exc.key}: {exc.problem}", exc.fix), None
    source = Path(cfg.path)
    detail = f"{source} valid" if source.exists() else f"no {source}; using the defaults"
    return Finding("config", OK, detail), cfg


def check_display(cfg: config_module.Config, probes: Probes) -> Finding:
    """The bus exists and, on I²C, a panel acknowledges its address."""
    display = cfg.display
    if display.interface == "spi":
        if probes.spi_device(display.spi_port, display.spi_device) is None:
            return Finding("display", FAIL, f"no /dev/spidev{display.spi_port}.{display.spi_device}",
                           "enable SPI (sudo raspi-config nonint do_spi 0) and reboot")
        return Finding("display", OK, f"SPI {display.spi_port}.{display.spi_device} present "
                       "(an SPI panel cannot answer back: look at the screen)")
    bus, address = display.i2c_bus, display.i2c_address
    if probes.i2c_bus(bus) is None:
        return Finding("display", FAIL, f"I2C bus {bus} missing (/dev/i2c-{bus})",
                       "enable I2C: sudo systemd/install.sh --i2c (or raspi-config), then reboot")
    try:
        if probes.i2c_answers(bus, address):
            return Finding("display", OK, f"{display.driver} answers at 0x{address:02X} on I2C bus {bus}")
        others = [a for a in OLED_ADDRESSES if a != address and probes.i2c_answers(bus, a)]
    except PermissionError:
        return Finding("display", FAIL, f"no permission to use /dev/i2c-{bus}",
                       "run as a member of group i2c (sudo usermod -aG i2c $USER) or with sudo")
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            return Finding("display", FAIL, f"0x{address:02X} on I2C bus {bus} is held by a kernel driver",
                           "remove the OLED dtoverlay from /boot/firmware/config.txt and reboot")
        return Finding("display", FAIL, f"I2C bus {bus}: {exc}", "check the wiring and reboot")
    if others:
        return Finding("display", FAIL, f"nothing at 0x{address:02X}, but a panel answers at "
                       f"0x{others[0]:02X}", f"set [display] i2c_address = 0x{others[0]:02X}")
    return Finding("display", FAIL, f"no display answering at 0x{address:02X} on I2C bus {bus}",
                   f"check VCC, GND, SDA to GPIO2 and SCL to GPIO3; `i2cdetect -y {bus}` should show it")


def pin_claims(cfg: config_module.Config) -> dict[int, str]:
    """Every BCM pin the box drives, with the config key that names it."""
    claims = {pin: f"buttons.{name.lower()}" for name, pin in cfg.button_pins().items()}
    if cfg.buzzer.kind != "none":
        claims[cfg.buzzer.pin] = "buzzer.pin"
    if cfg.display.interface == "spi":
        claims[cfg.display.dc_pin] = "display.dc_pin"
        claims[cfg.display.reset_pin] = "display.reset_pin"
    return claims


def check_gpio(cfg: config_module.Config, probes: Probes, service_running: bool) -> list[Finding]:
    """A GPIO chip we may open, and every configured pin free to claim."""
    chips = probes.gpio_chips()
    if not chips:
        return [Finding("gpio", FAIL, "no /dev/gpiochip*: this is not a Raspberry Pi",
                        "run `companion sim` here, or `companion doctor --sim`")]
    denied = [chip for chip in chips if not probes.can_open(chip)]
    if len(denied) == len(chips):
        return [Finding("gpio", FAIL, f"no permission to open {chips[0]}",
                        "run as a member of group gpio (sudo usermod -aG gpio $USER) or with sudo")]
    chip = Finding("gpio", OK, f"{', '.join(c.name for c in chips if c not in denied)} accessible")
    if service_running:
        # The running box holds its pins; claiming them here would only report it.
        return [chip, Finding("pins", OK, f"held by the running {SERVICE}; stop it to test them")]
    busy = []
    from gpiozero import DigitalInputDevice

    try:
        factory = probes.pin_factory()
    except Exception as exc:  # gpiozero's BadPinFactory: no backend library could load
        return [chip, Finding("pins", FAIL, f"gpiozero cannot drive pins: {exc}",
                              "sudo apt install python3-lgpio (the venv sees system packages)")]
    for pin, key in sorted(pin_claims(cfg).items()):
        try:
            # Floating input: the lightest claim, it drives nothing.
            DigitalInputDevice(pin, pull_up=None, active_state=False, pin_factory=factory).close()
        except Exception as exc:  # gpiozero: GPIOPinInUse; lgpio: "GPIO busy"
            busy.append(f"BCM {pin} ({key}): {exc}")
    if busy:
        return [chip, Finding("pins", FAIL, f"busy: {'; '.join(busy)}",
                              "`gpioinfo` names the holder: stop it, or move that key to a free pin")]
    return [chip, Finding("pins", OK, f"{len(pin_claims(cfg))} pins free")]


def sensor_answers(link: Any, wait_s: float = 3.0) -> tuple[bool, str]:
    """Ask the sensor HELLO? and listen: (True, who it is) or (False, what went wrong)."""
    import time

    from firmware_bridge.parser import Parser
    from firmware_bridge.protocol import Hello, HelloQuery, encode

    parser = Parser()
    link.write(encode(HelloQuery(), 0))
    heard = 0
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        data = link.read(link.in_waiting or 1)
        heard += len(data)
        for frame in parser.feed(data):
            if isinstance(frame.message, Hello):
                hello = frame.message
                return True, (f"sensor {hello.sensor_id} (firmware {hello.firmware}), "
                              f"{len(hello.kinds)} dice")
    if parser.problems:
        return False, f"sends no valid lines ({parser.last_problem})"
    if heard:
        return False, f"sent {heard} bytes but no HELLO in {wait_s:g} s"
    return False, f"sent nothing in {wait_s:g} s"


def protocol_check() -> Callable[[Any], tuple[bool, str]] | None:
    """The sensor protocol check, if this version carries the protocol's parser."""
    try:
        import firmware_bridge.parser
        import firmware_bridge.protocol  # noqa: F401
    except ImportError:
        return None
    return sensor_answers


def check_sensor(cfg: config_module.Config, probes: Probes, service_running: bool,
                 speaks: Callable[[Any], tuple[bool, str]] | None = None) -> Finding:
    """If a dice sensor is configured: its port opens and, where we can tell, speaks the protocol.

    ``speaks`` talks to the open port: (True, who answered) or (False, the problem).
    """
    port = cfg.sensor.port
    if not port:
        return Finding("sensor", OK, "no dice sensor configured (dice are entered by hand)")
    if service_running:
        return Finding("sensor", OK, f"{port} in use by the running {SERVICE}")
    try:
        link = probes.open_serial(port, cfg.sensor.baud)
    except Exception as exc:  # pyserial raises SerialException, ValueError for bad URLs
        return Finding("sensor", FAIL, f"cannot open {port}: {exc}",
                       "plug the sensor in (`ls /dev/ttyACM* /dev/ttyUSB*`), or set [sensor] port = \"\"")
    try:
        if speaks is None:
            return Finding("sensor", WARN, f"{port} opens; its protocol is not checked by this version",
                           "watch the sensor icon on the title bar")
        answered, text = speaks(link)
    except Exception as exc:  # a port that fails mid-conversation (unplugged, I/O error)
        answered, text = False, f"failed while talking: {exc}"
    finally:
        link.close()
    if not answered:
        return Finding("sensor", FAIL, f"{port} opens but {text}",
                       f"check [sensor] baud = {cfg.sensor.baud} and the sensor's firmware")
    return Finding("sensor", OK, f"{port}: {text}")


def check_state_dir(directory: Path) -> Finding:
    """The journal's directory is writable and synced, with room to spare.

    A directory that does not exist yet is not created (systemd's StateDirectory= does
    that, with the right owner); its nearest existing parent must then be writable.
    """
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, f"{existing} is not a directory")
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".doctor-") as probe:
            probe.write(b"ok")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        fix = (f"sudo chown companion: {directory}, or give --state-dir / [state] dir "
               "a writable place")
        if isinstance(exc, PermissionError) and existing.stat().st_uid != os.geteuid():
            # Usually fine: the directory belongs to the service user, not to whoever asks.
            fix = f"check as its owner: sudo -u {_user_name(existing.stat().st_uid)} companion doctor"
        return Finding("state", FAIL, f"{directory} not writable ({exc.strerror or exc})", fix)
    free_mb = shutil.disk_usage(existing).free // 2**20
    if free_mb < MIN_FREE_MB:
        return Finding("state", FAIL, f"{directory}: only {free_mb} MB free",
                       "free space on the SD card (sudo apt clean; sudo journalctl --vacuum-size=50M)")
    if free_mb < LOW_FREE_MB:
        return Finding("state", WARN, f"{directory}: {free_mb} MB free", "free space on the SD card")
    created = "" if existing == directory else " (will be created)"
    return Finding("state", OK, f"{directory} writable{created}, {free_mb} MB free")


def _user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def check_service(state: str | None) -> Finding:
    """What systemd says about the unit; informative, the box can run either way."""
    if state is None:
        return Finding("service", OK, "no systemd here: run the box with `companion run`")
    if state in ("active", "activating", "reloading"):
        return Finding("service", OK, f"{SERVICE} {state}")
    if state == "failed":
        return Finding("service", WARN, f"{SERVICE} failed",
                       "read `journalctl -u companion -b -e`, then "
                       "`sudo systemctl reset-failed companion; sudo systemctl start companion`")
    return Finding("service", WARN, f"{SERVICE} {state}",
                   "install it with `sudo systemd/install.sh`, or `sudo systemctl enable --now companion`")


def diagnose(config_path: str | None, probes: Probes, *, state_dir: str | None = None,
             sim: bool = False) -> list[Finding]:
    """Run every check; later checks are skipped when the config cannot be read."""
    from .boot import resolve_state_dir

    service_state = probes.service_state()
    service = check_service(service_state)
    found, cfg = check_config(config_path)
    if cfg is None:
        return [found, service]
    running = service_state in ("active", "activating", "reloading")
    return [
        found,
        check_display(cfg, probes),
        *check_gpio(cfg, probes, running),
        check_sensor(cfg, probes, running, protocol_check()),
        check_state_dir(resolve_state_dir(cfg, state_dir, sim)),
        service,
    ]


def can_run(findings: list[Finding]) -> bool:
    return all(f.level != FAIL for f in findings)
