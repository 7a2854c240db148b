"""The real box: gpiozero buttons and buzzer, a luma.oled panel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .bundle import Hardware
from .buttons import GpioButtons, PinEdge
from .buzzer import RecordingBuzzer, gpio_buzzer
from .clock import MonotonicClock
from .display import SH1106_COLUMN_OFFSET, PageDiffDisplay
from .ports import Buzzer


class HardwareError(Exception):
    """A part that does not answer; the message says which part and what to check."""


def open_oled(display: Any) -> Any:
    """A luma.oled device from the ``[display]`` config section."""
    from luma.core.interface.serial import i2c, spi
    from luma.oled.device import sh1106, ssd1306

    try:
        if display.interface == "i2c":
            serial = i2c(port=display.i2c_bus, address=display.i2c_address)
        else:
            serial = spi(port=display.spi_port, device=display.spi_device,
                         gpio_DC=display.dc_pin, gpio_RST=display.reset_pin)
        if display.driver == "sh1106":
            return sh1106(serial, width=128, height=64, rotate=display.rotate,
                          page_address_offset=SH1106_COLUMN_OFFSET)
        return ssd1306(serial, width=128, height=64, rotate=display.rotate)
    except Exception as exc:  # luma raises DeviceNotFoundError, DevicePermissionError, OSError
        where = (f"I2C bus {display.i2c_bus} address 0x{display.i2c_address:02X}"
                 if display.interface == "i2c" else f"SPI {display.spi_port}.{display.spi_device}")
        raise HardwareError(
            f"display ({display.driver}) not answering on {where}: {exc}. "
            "Check wiring, that I2C/SPI is enabled (raspi-config), and run `companion doctor`."
        ) from exc


def build(config: Any, post: Callable[[PinEdge], None]) -> Hardware:
    """Open every part named in the config; raise HardwareError naming the one that fails."""
    clock = MonotonicClock()
    # Only the changed columns of each page go over the bus (see hardware.display).
    display = PageDiffDisplay(open_oled(config.display), config.display.driver, clock.now)
    try:
        buttons = GpioButtons(config.button_pins(), post, clock.now,
                              bounce_s=config.buttons.bounce_ms / 1000 or None)
    except Exception as exc:
        display.close()
        raise HardwareError(f"buttons: {exc}. Check the [buttons] pins and that no other "
                            "program holds them (`companion doctor`).") from exc
    buzzer: Buzzer
    if config.buzzer.kind == "none":
        buzzer = RecordingBuzzer(clock.now, config.buzzer.volume)
    else:
        try:
            buzzer = gpio_buzzer(config.buzzer.pin, config.buzzer.kind, config.buzzer.volume)
        except Exception as exc:
            buttons.close()
            display.close()
            raise HardwareError(f"buzzer on BCM {config.buzzer.pin}: {exc}") from exc
    return Hardware(clock=clock, display=display, buzzer=buzzer, buttons=buttons)
