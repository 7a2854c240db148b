"""The panel's last word when the box cannot run: "Companion stopped — <reason>".

On the SD-card image ``companion-stopped.service`` runs this twice over:

- as ``companion.service``'s ``OnFailure=`` unit, once a crash loop has used up the box's start
  limit (5 starts in 10 minutes), or the box ended with a status systemd does not retry (2: a
  config error only a person can fix). Without it the panel keeps the box's last frame, as if
  the box still ran. systemd (252, Debian bookworm's, and later) tells an ``OnFailure=`` unit
  why the unit failed (``$MONITOR_SERVICE_RESULT``, ``$MONITOR_EXIT_STATUS``): said in words;
- at boot, after the data partition's mount was tried (it mounts with ``nofail``, so the boot
  goes on without it): when it is not there, the box cannot start at all (its program and
  journal are on it), and this says so. With the partition there, it draws nothing.

It runs from a copy of the display's code on the root filesystem (``install.sh --appliance``
puts it in ``/usr/lib/companion/stopped``), since the program's own copy is on the data
partition; it imports only that code (the frame, the fonts, luma's driver through
:func:`hardware.device.open_oled`) and reads only the config's ``[display]``: whatever broke
the box, this must not break with it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PIL import Image

from companion.contract import config as config_module
from companion.frame.canvas import Canvas, compose

TITLE = "Companion stopped"
HINT = "Unplug, plug in again"
# What systemd's result and the box's exit status mean to the owner, and what to do next.
RESULTS = {
    "start-limit-hit": "it failed 5 times in 10 minutes.",
    "watchdog": "it stopped answering (watchdog).",
    "core-dump": "it crashed.",
    "signal": "it was killed.",
    "timeout": "it took too long to start.",
    "resources": "it could not be set up (disk or memory?).",
}
EXIT_STATUS = {
    "2": "a setting in config.toml is wrong.",
    "3": "the display did not answer.",
    "203": "its program is missing (the data partition?).",
}
NEXT = "Over SSH: companion doctor."
NO_DATA = "the SD card's data partition (program and games) did not mount."
NO_DATA_NEXT = "Check the card on a computer."
# The packages the copy on the root filesystem holds (install.sh copies them from the venv).
COPIED = ("companion", "hardware", "luma", "PIL", "pillow.libs", "cbor2", "_cbor2", "smbus2")


def reason(env: Mapping[str, str], data_there: bool = True) -> str | None:
    """Why the box cannot run, in words: its data partition missing, or what systemd passes to
    an ``OnFailure=`` unit; None when neither (a boot with everything in place)."""
    if not data_there:
        return NO_DATA
    result = env.get("MONITOR_SERVICE_RESULT", "")
    if not result:
        return None
    status = env.get("MONITOR_EXIT_STATUS", "")
    if result == "exit-code" and status in EXIT_STATUS:
        return EXIT_STATUS[status]
    if result == "exit-code" and status:
        return f"it ended with status {status}."
    return RESULTS.get(result, "systemd gave up restarting it.")


def frame(why: str) -> Image.Image:
    """The whole panel: the title bar, the reason and what to do, and the hint."""
    def body(canvas: Canvas) -> None:
        canvas.paragraph(f"{why[0].upper()}{why[1:]} {NO_DATA_NEXT if why == NO_DATA else NEXT}", 0)

    return compose(TITLE, "", HINT, body)


def display_settings(path: Path) -> Any:
    """The config's ``[display]`` alone (the rest may be what is broken); its defaults when
    even that cannot be read."""
    try:
        raw = config_module.read_toml(path) if path.exists() else {}
        return config_module.parse({"display": raw.get("display", {})}, path).display
    except (config_module.ConfigError, AttributeError):
        return config_module.parse({}, path).display


def show(image: Image.Image, device: Any) -> None:
    """Draw ``image`` on the panel (a luma device) and leave it there: luma would clear the
    panel when this process ends."""
    device.persist = True
    device.display(image.convert(device.mode))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m companion.appliance.stopped",
        description="Say on the OLED why the box stopped (companion.service's OnFailure= unit).")
    parser.add_argument("--config", type=Path, default=config_module.DEFAULT_PATH)
    parser.add_argument("--data", type=Path, help="the data partition's mount point: said "
                        "when it is not mounted")
    parser.add_argument("--png", type=Path, help="write the frame to this file instead")
    args = parser.parse_args(argv)
    why = reason(os.environ, args.data is None or os.path.ismount(args.data))
    if why is None:
        return 0
    print(f"{TITLE} — {why}", flush=True)
    image = frame(why)
    if args.png:
        image.save(args.png)
        return 0
    try:
        from hardware.device import open_oled

        show(image, open_oled(display_settings(args.config)))
    except Exception as exc:  # the panel itself may be what failed: the log says so
        print(f"the display cannot show it: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
