"""In the emulated Pi (QEMU raspi3b): the box's real pin factory opens its button lines and
its buzzer on the BCM2835's GPIO, as the box does at start. Prints one JSON object.

    python gpio_check.py [CONFIG]
"""

from __future__ import annotations

import json
import sys

from companion.games import box_config
from hardware.buttons import GpioButtons
from hardware.buzzer import gpio_buzzer
from hardware.probe import machine_pin_factory


def main() -> None:
    cfg = box_config.load(sys.argv[1] if len(sys.argv) > 1 else None)
    report: dict[str, object] = {"opened": 0, "errors": []}
    factory = machine_pin_factory()  # the one the box picks: lgpio on /dev/gpiochip0
    report["factory"] = type(factory).__name__
    report["board"] = factory.board_info.model
    report["revision"] = factory.board_info.revision
    pins = cfg.button_pins()
    try:
        buttons = GpioButtons(pins, lambda edge: None, lambda: 0.0, bounce_s=None,
                              pin_factory=factory)
        report["opened"] += len(pins)
        report["buttons"] = {name: f"GPIO{pin}" for name, pin in pins.items()}
    except Exception as exc:
        report["errors"].append(f"buttons: {exc}")
        buttons = None
    try:
        buzzer = gpio_buzzer(cfg.buzzer.pin, cfg.buzzer.kind, cfg.buzzer.volume, pin_factory=factory)
        report["opened"] += 1
        report["buzzer"] = f"GPIO{cfg.buzzer.pin}"
    except Exception as exc:
        report["errors"].append(f"buzzer: {exc}")
        buzzer = None
    for part in (buttons, buzzer):
        if part is not None:
            part.close()
    factory.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
