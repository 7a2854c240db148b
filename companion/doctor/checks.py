"""Checks that say whether this box can run, one finding per check, each with its fix.

Every contact with the machine goes through :class:`Probes`: the board (``hardware.probe``),
the sensor port (``firmware_bridge.probe``) and systemd. This module only runs the checks and
words their results, so the same checks run on a Raspberry Pi and, with ``Probes.sim``, on the
simulator in tests; it imports no hardware library.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from companion.contract.facts import FAIL, OK, WARN, Finding
from companion.games import box_config as config_module

from ..appliance.slots import plugins_left_out, version_line
from ..games.catalog import BROKEN, GAMES
from .updates import check_updates

if TYPE_CHECKING:
    from firmware_bridge.probe import SensorReport

SERVICE = "companion.service"
OLED_ADDRESSES = (0x3C, 0x3D)
MIN_FREE_MB = 5  # below this the journal cannot commit a game
LOW_FREE_MB = 50


class Board(Protocol):
    """The board as the checks see it (``hardware.probe`` implements it)."""

    def i2c_bus(self, bus: int) -> Path | None:
        """The bus's device file, or None if the bus is not enabled."""

    def i2c_answers(self, bus: int, address: int) -> bool:
        """True if a device acknowledges ``address``; OSError for a bus we cannot use."""

    def spi_device(self, port: int, device: int) -> Path | None:
        """The SPI device file, or None if SPI is not enabled."""

    def gpio_chips(self) -> list[Path]:
        """The GPIO chip device files."""

    def can_open(self, path: Path) -> bool:
        """True if this user may read and write ``path``."""

    def busy_pins(self, pins: Iterable[int]) -> dict[int, str]:
        """Pins another program holds, with why; RuntimeError if no GPIO library can drive pins."""


def systemd_state() -> str | None:
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


@dataclass
class Probes:
    """The machine as the checks see it: the board, the sensor port and systemd, each injectable."""

    board: Board
    sensor: Callable[[str, int], SensorReport]
    service_state: Callable[[], str | None] = systemd_state

    @classmethod
    def device(cls) -> Probes:
        """This machine, as it is."""
        from firmware_bridge.probe import probe_sensor
        from hardware.probe import BoardProbe

        return cls(BoardProbe(), probe_sensor)

    @classmethod
    def sim(cls, service: str | None = None, **board: Any) -> Probes:
        """The simulated box (``hardware.probe.SimBoardProbe`` options); the sensor port is real."""
        from firmware_bridge.probe import probe_sensor
        from hardware.probe import SimBoardProbe

        return cls(SimBoardProbe(**board), probe_sensor, lambda: service)


# ----- the checks ---------------------------------------------------------------------------


def check_config(path: str | None) -> tuple[Finding, config_module.Config | None]:
    """The config file parses and every key is valid: its first finding (see
    :func:`config_findings` for one line per problem)."""
    found, cfg = config_findings(path)
    return found[0], cfg


def config_findings(path: str | None) -> tuple[list[Finding], config_module.Config | None]:
    """The config file parses and every key is valid (a missing default file means defaults):
    one FAIL line for each problem of the file, so one run names them all."""
    try:
        cfg = config_module.load(path, required=path is not None)
    except config_module.ConfigError as exc:
        problems = exc.problems if isinstance(exc, config_module.ConfigErrors) else [exc]
        return [Finding("config", FAIL, f"{e.path}: {e.key}: {e.problem}", e.fix)
                for e in problems], None
    except Exception as exc:  # a game's data that fails while the config declares its section
        return [Finding("config", FAIL, f"a game cannot load: {exc}",
                        "correct the file and key named here, or reinstall the package")], None
    source = Path(cfg.path)
    detail = f"{source} valid" if source.exists() else f"no {source}; using the defaults"
    return [Finding("config", OK, detail)], cfg


def check_display(cfg: config_module.Config, probes: Board) -> Finding:
    """The bus exists and, on I²C, a panel acknowledges its address."""
    display = cfg.display
    if display.interface == "spi":
        if probes.spi_device(display.spi_port, display.spi_device) is None:
            return Finding("display", FAIL, f"no /dev/spidev{display.spi_port}.{display.spi_device}",
                           "enable SPI: sudo systemd/install.sh --spi (or raspi-config), then reboot")
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


def i2c_speed(bus: int, root: Path = Path("/")) -> tuple[int, str] | None:
    """The I²C bus's clock in Hz and where it was read: the device tree the kernel runs with
    (``/sys``), else the boot config's ``i2c_arm_baudrate``; None when neither says."""
    node = root / f"sys/class/i2c-adapter/i2c-{bus}/of_node/clock-frequency"
    try:
        value = node.read_bytes()
    except OSError:
        value = b""
    if len(value) == 4:  # a device-tree cell: one big-endian 32-bit number
        return int.from_bytes(value, "big"), str(Path("/") / node.relative_to(root))
    for name in ("boot/firmware/config.txt", "boot/config.txt"):
        try:
            lines = (root / name).read_text(errors="replace").splitlines()
        except OSError:
            continue
        found = None
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if not line.startswith("dtparam="):
                continue
            for param in line[len("dtparam="):].split(","):
                key, _, rate = param.strip().partition("=")
                if key in ("i2c_arm_baudrate", "i2c_baudrate") and rate.isdigit():
                    found = int(rate)
        if found is not None:
            return found, f"/{name}"
    return None


def check_i2c_speed(cfg: config_module.Config, root: Path = Path("/")) -> Finding:
    """How fast the panel's bus runs: a whole frame is 23 ms of bus at 400 kHz, 93 at 100."""
    bus = cfg.display.i2c_bus
    found = i2c_speed(bus, root)
    if found is None:
        return Finding("i2c", OK, f"I2C bus {bus} speed unknown (no clock-frequency in /sys, "
                       "no i2c_arm_baudrate in the boot config)")
    hz, source = found
    detail = f"I2C bus {bus} at {hz / 1000:g} kHz ({source})"
    if hz < 400_000:
        return Finding("i2c", WARN, f"{detail}: screen changes reach the panel up to 4x later",
                       "sudo systemd/install.sh --i2c (sets 400 kHz), then reboot")
    return Finding("i2c", OK, detail)


def pin_claims(cfg: config_module.Config) -> dict[int, str]:
    """Every BCM pin the box drives, with the config key that names it."""
    claims = {pin: f"buttons.{name.lower()}" for name, pin in cfg.button_pins().items()}
    if cfg.buzzer.kind != "none":
        claims[cfg.buzzer.pin] = "buzzer.pin"
    if cfg.display.interface == "spi":
        claims[cfg.display.dc_pin] = "display.dc_pin"
        claims[cfg.display.reset_pin] = "display.reset_pin"
    return claims


def check_gpio(cfg: config_module.Config, board: Board, service_running: bool) -> list[Finding]:
    """A GPIO chip we may open, and every configured pin free to claim."""
    chips = board.gpio_chips()
    if not chips:
        return [Finding("gpio", FAIL, "no /dev/gpiochip*: this is not a Raspberry Pi",
                        "run `companion sim` here, or `companion doctor --sim`")]
    denied = [chip for chip in chips if not board.can_open(chip)]
    if len(denied) == len(chips):
        return [Finding("gpio", FAIL, f"no permission to open {chips[0]}",
                        "run as a member of group gpio (sudo usermod -aG gpio $USER) or with sudo")]
    chip = Finding("gpio", OK, f"{', '.join(c.name for c in chips if c not in denied)} accessible")
    if service_running:
        # The running box holds its pins; claiming them here would only report it.
        return [chip, Finding("pins", OK, f"held by the running {SERVICE}; stop it to test them")]
    claims = pin_claims(cfg)
    try:
        busy = board.busy_pins(sorted(claims))
    except RuntimeError as exc:
        return [chip, Finding("pins", FAIL, str(exc),
                              "sudo apt install python3-lgpio (the venv sees system packages)")]
    if busy:
        named = "; ".join(f"BCM {pin} ({claims[pin]}): {why}" for pin, why in sorted(busy.items()))
        return [chip, Finding("pins", FAIL, f"busy: {named}",
                              "`gpioinfo` names the holder: stop it, or move that key to a free pin")]
    return [chip, Finding("pins", OK, f"{len(claims)} pins free")]


def check_sensor(cfg: config_module.Config, probe: Callable[[str, int], SensorReport],
                 service_running: bool) -> Finding:
    """If a dice sensor is configured: its port opens and the sensor answers HELLO.

    The sensor is optional and the running box picks it up whenever it is plugged in, so a
    problem here is a warning: the box runs, with dice rolled by the box or typed in.
    """
    port = cfg.sensor.port
    if not port:
        return Finding("sensor", OK, "no dice sensor configured (optional: the box rolls, "
                       "or faces are typed in with the buttons)")
    if service_running:
        return Finding("sensor", OK, f"{port} in use by the running {SERVICE}")
    report = probe(port, cfg.sensor.baud)
    if not report.opened:
        return Finding("sensor", WARN, f"cannot open {port} ({report.detail}); the box runs "
                       "without it and finds it when plugged in",
                       "plug the sensor in (`ls /dev/serial/by-id/`), or set [sensor] port = \"\"")
    if not report.answered:
        return Finding("sensor", WARN, f"{port} opens but {report.detail}; the box runs "
                       "without the sensor",
                       f"check that {port} is the sensor, [sensor] baud = {cfg.sensor.baud} "
                       "and the sensor's firmware")
    return Finding("sensor", OK, f"{port}: {report.detail}")


def check_settings(directory: Path) -> Finding:
    """What the box uses over config.toml: the settings set on it or on the phone page."""
    from companion.records import settings

    try:
        used, refused = settings.report(directory)
    except sqlite3.Error as exc:
        return Finding("settings", WARN, f"cannot read the journal's settings: {exc}",
                       "check the state directory's permissions")
    if refused:
        return Finding("settings", WARN, f"left out: {refused[0]}",
                       "set it again on the phone page's Settings or on the box")
    said = ", ".join(settings.words(k, v) for k, v in used.items())
    return Finding("settings", OK, f"set on the box or the phone, used over config.toml: {said}"
                   if used else "none set on the box or the phone: config.toml's")


def check_first_boot(directory: Path) -> list[Finding]:
    """What the boot partition's companion.txt asked that the last boot could not do."""
    from ..appliance import firstboot_report

    report = firstboot_report.in_state_dir(directory)
    if report is None:
        return [Finding("setup", OK, f"no report of companion.txt in {directory} (none applied, "
                                     "or run as root to read it)")]
    fix = "edit companion.txt on the SD card's boot partition, then restart the box"
    return [Finding("setup", WARN, f"companion.txt: {problem}", fix) for problem in report.problems] + [
        Finding("setup", OK, f"companion.txt: {notice}") for notice in report.notices] or [
        Finding("setup", OK, "companion.txt applied without a problem")]


def check_ssh(root: Path = Path("/")) -> Finding:
    """Whether SSH is on: off on the box's image until companion.txt (or Raspberry Pi
    Imager) gives a public key, then for that key only."""
    from ..appliance import firstboot

    if not (root / "usr/sbin/sshd").exists():
        return Finding("ssh", OK, "no SSH server here")
    units = root / "etc/systemd/system"
    on = any((units / wants).is_symlink() for wants in (
        "multi-user.target.wants/ssh.service", "sockets.target.wants/ssh.socket"))
    if not on:
        return Finding("ssh", OK, "SSH off (no key given: ssh_key in companion.txt turns it on)")
    try:
        keys = [line for line in (root / firstboot.AUTHORIZED_KEYS.relative_to("/")).read_text(
            ).splitlines() if line.strip() and not line.startswith("#")]
        said = f", {len(keys)} key{'s' if len(keys) != 1 else ''} may log in as root"
    except OSError:
        said = ""  # only root may read it
    if (root / "etc/ssh/sshd_config.d/companion.conf").exists():
        return Finding("ssh", OK, f"SSH on{said}, keys only (no password)")
    return Finding("ssh", OK, f"SSH on{said}, as this system's sshd_config allows")


def check_cards(cfg: config_module.Config, directory: Path) -> Finding:
    """The card files saved on the phone page, which the box reads over config.toml's (and
    which ``cfg`` is pointed at, as the box's own config is)."""
    from companion.records import cards

    try:
        used = cards.apply(cfg, directory, GAMES)
    except OSError as exc:
        return Finding("cards", WARN, f"cannot look for card files saved on the phone: {exc}",
                       "run `sudo companion doctor`, or check the state directory's permissions")
    return Finding("cards", OK, "saved on the phone, used over config.toml: " + ", ".join(
        f"{spec.key} {card.key} ({cards.phone_copy(directory, spec.key, card)})"
        for spec, card in used) if used else "none saved on the phone: config.toml's or the stand-ins")


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
    from ..box.boot import resolve_state_dir

    service_state = probes.service_state()
    service = check_service(service_state)
    version = Finding("version", OK, version_line())  # and the one kept for a rollback
    found, cfg = config_findings(config_path)
    updates = check_updates()  # a release set aside, the messages of an update cut off
    if cfg is None:
        return [version, *updates, *found, service]
    running = service_state in ("active", "activating", "reloading")
    state = resolve_state_dir(cfg, state_dir, sim)
    phone_cards = check_cards(cfg, state)     # before the games' checks, which read them
    return [
        version,
        *updates,
        *found,
        *check_games(cfg),
        phone_cards,
        check_display(cfg, probes.board),
        *([] if sim or cfg.display.interface != "i2c" else [check_i2c_speed(cfg)]),
        *check_gpio(cfg, probes.board, running),
        check_sensor(cfg, probes.sensor, running),
        check_state_dir(state),
        check_settings(state),
        *check_first_boot(state),
        check_ssh(),
        service,
    ]


def can_run(findings: list[Finding]) -> bool:
    """True when no check FAILed (warnings leave the box able to run)."""
    return all(f.level != FAIL for f in findings)


def check_games(cfg: config_module.Config) -> list[Finding]:
    """Each registered game's own check of its data files, every game that did not load, and
    every plugin kept on the box that this version was installed without."""
    found = [Finding(key, FAIL, f"the game does not load: {reason}",
                     "reinstall its package, or remove it")
             for key, reason in BROKEN.items()]
    found += [Finding("plugin", WARN, f"{name} was left out when this version was installed: "
                      f"{why}", "install a version of it for this release: sudo companion-update "
                      "--plugin FILE.whl")
              for name, why in plugins_left_out().items()]
    for spec in GAMES.values():
        if spec.doctor is not None:
            found += spec.doctor(cfg)
    return found
