"""Probes of the board for ``companion doctor``: I2C and SPI buses, GPIO chips, free pins.

:class:`BoardProbe` asks the real machine (device files, smbus2, gpiozero); :class:`SimBoardProbe`
answers for the simulated box, with gpiozero ``MockFactory`` pins, so the same checks run in tests.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# An SMBus quick write nobody acknowledges fails with one of these, depending on the driver.
NO_ACK = (errno.EREMOTEIO, errno.ENXIO, errno.EIO, errno.ETIMEDOUT)


class NoPinBackend(RuntimeError):
    """gpiozero found no library that can drive this machine's pins."""


def machine_pin_factory() -> Any:
    """gpiozero's factory for this machine (lgpio on Raspberry Pi OS Bookworm)."""
    from gpiozero import Device

    Device.ensure_pin_factory()
    return Device.pin_factory


def busy_pins(factory: Any, pins: Iterable[int]) -> dict[int, str]:
    """Claim each pin briefly; the ones another program holds, with gpiozero's or lgpio's words."""
    from gpiozero import DigitalInputDevice

    busy = {}
    for pin in pins:
        try:
            # Floating input: the lightest claim, it drives nothing.
            DigitalInputDevice(pin, pull_up=None, active_state=False, pin_factory=factory).close()
        except Exception as exc:  # gpiozero: GPIOPinInUse; lgpio: "GPIO busy"
            busy[pin] = str(exc)
    return busy


class BoardProbe:
    """The real machine: device files under ``dev``, smbus2 for I2C, gpiozero for pins."""

    def __init__(self, dev: Path = Path("/dev"),
                 pin_factory: Callable[[], Any] = machine_pin_factory) -> None:
        self.dev = dev
        self._pin_factory = pin_factory

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
                if exc.errno in NO_ACK:
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

    def busy_pins(self, pins: Iterable[int]) -> dict[int, str]:
        """The pins another program holds; NoPinBackend if gpiozero cannot drive pins at all."""
        try:
            factory = self._pin_factory()
        except Exception as exc:  # gpiozero's BadPinFactory, or an ImportError of its backend
            raise NoPinBackend(f"gpiozero cannot drive pins: {exc}") from exc
        return busy_pins(factory, pins)


class SimBoardProbe(BoardProbe):
    """The simulated box: a display answering where it is wired, gpiozero MockFactory pins."""

    def __init__(self, i2c_devices: set[tuple[int, int]] | None = None, pin_factory: Any = None,
                 i2c_buses: set[int] | None = None) -> None:
        super().__init__(pin_factory=self._mock_factory)
        self.i2c_devices = {(1, 0x3C)} if i2c_devices is None else i2c_devices
        self.i2c_buses = {1} if i2c_buses is None else i2c_buses
        self._factory = pin_factory

    def _mock_factory(self) -> Any:
        if self._factory is None:
            from gpiozero.pins.mock import MockFactory

            self._factory = MockFactory()
        return self._factory

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
