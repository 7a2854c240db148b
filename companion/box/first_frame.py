"""The box's first frame from the boot's first seconds: ``splash.bin`` (:mod:`.splash`) written
straight to the OLED over I²C by a bare interpreter (``python3 -I -S``: no site-packages, no
Pillow or luma), from companion-splash.service, before the box's own process starts.

The box's program is on the data partition, mounted seconds later, so the image keeps a copy
of this file and ``splash.bin`` on the root filesystem (/usr/lib/companion/first-frame). It
imports the standard library only and reads the ``[display]`` section of the box's config:
an SPI panel or a quarter-turned one is left to the box, which shows the same frame as soon
as it has opened the panel. The box's unit starts after this one has exited, so the two never
share the bus; luma's set-up of the panel then blanks it for one frame's write.

    python3 -I -S first_frame.py [--config FILE] [--stand-in DIR]

``--stand-in DIR``: no bus; the bytes go to ``DIR/panel`` and the frame is noted in
``DIR/frames`` as the box's simulated panel notes its frames (hardware.sim.StandIn).
"""

from __future__ import annotations

import os
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

FRAME = Path(__file__).with_name("splash.bin")
CONFIG = "/etc/companion/config.toml"
# The [display] settings read here, with the config's defaults (companion.contract.config).
DEFAULTS: dict[str, Any] = {"interface": "i2c", "driver": "ssd1306", "i2c_bus": 1,
                            "i2c_address": 0x3C, "rotate": 0, "contrast": 200}
WIDTH, PAGES = 128, 8
ROW_BYTES = WIDTH // 8
I2C_SLAVE = 0x0703  # the ioctl that sets the address of an i2c-dev file's next transfers
COMMAND, DATA = 0x00, 0x40  # the control byte before a transfer's commands or pixels
# luma.oled's set-up of a 128×64 panel (a test checks them against luma's own drivers).
SETUP = {
    "ssd1306": bytes((0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00,
                      0xA1, 0xC8, 0xDA, 0x12, 0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6)),
    "sh1106": bytes((0xAE, 0x20, 0x10, 0xB0, 0xC8, 0x00, 0x10, 0x40, 0xA1, 0xA6, 0xA8, 0x3F,
                     0xA4, 0xD3, 0x00, 0xD5, 0xF0, 0xD9, 0x22, 0xDA, 0x12, 0xDB, 0x20, 0x8D, 0x14)),
}
SH1106_COLUMN_OFFSET = 2  # as hardware.display's
DEVICE_WAIT_S = 2.0  # udev may still be loading the bus's driver or giving the node its group
BIT_REVERSED = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))


class Skipped(Exception):
    """The first frame is left to the box; the message says why."""


def display_settings(config: Path) -> dict[str, Any]:
    """The config's ``[display]`` settings over their defaults (a missing file: the defaults)."""
    try:
        with config.open("rb") as file:
            section = tomllib.load(file).get("display", {})
    except FileNotFoundError:
        section = {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise Skipped(f"{config} unreadable ({exc})") from exc
    if not isinstance(section, dict):
        raise Skipped(f"{config}: [display] is not a table")
    settings = {**DEFAULTS, **{key: section[key] for key in DEFAULTS if key in section}}
    if settings["interface"] != "i2c" or settings["driver"] not in tuple(SETUP):
        raise Skipped(f"a {settings['driver']} panel on {settings['interface']}")
    if settings["rotate"] not in (0, 2):
        raise Skipped(f"the panel turned {settings['rotate']} quarters")
    if not all(isinstance(settings[key], int) for key in ("i2c_bus", "i2c_address", "contrast")):
        raise Skipped(f"{config}: [display] has a bus, address or contrast that is no number")
    return settings


def pages(frame: bytes, rotate: int) -> list[bytes]:
    """The panel's eight pages of 128 column bytes (bit 0 the top row) of a 128×64 frame packed
    as Pillow packs mode "1" (rows of 16 bytes, the leftmost pixel the high bit); ``rotate`` 2
    turns it half a turn, as luma does."""
    if rotate == 2:  # half a turn reverses the order of every pixel
        frame = frame[::-1].translate(BIT_REVERSED)
    out = []
    for page in range(PAGES):
        rows = [frame[(page * 8 + bit) * ROW_BYTES : (page * 8 + bit + 1) * ROW_BYTES]
                for bit in range(8)]
        out.append(bytes(sum(((rows[bit][x >> 3] >> (7 - (x & 7))) & 1) << bit for bit in range(8))
                         for x in range(WIDTH)))
    return out


def transfers(frame: bytes, driver: str, rotate: int, contrast: int) -> list[bytes]:
    """The I²C writes that set the panel up, fill its RAM with the frame and light it, each
    with its control byte first."""
    drawn = pages(frame, rotate)
    out = [bytes((COMMAND, *SETUP[driver], 0x81, max(0, min(255, contrast))))]
    if driver == "ssd1306":  # horizontal addressing: one window, the pages one after another
        out += [bytes((COMMAND, 0x21, 0, WIDTH - 1, 0x22, 0, PAGES - 1)),
                bytes((DATA,)) + b"".join(drawn)]
    else:
        for page, columns in enumerate(drawn):
            out += [bytes((COMMAND, 0xB0 | page, SH1106_COLUMN_OFFSET & 0x0F,
                           0x10 | SH1106_COLUMN_OFFSET >> 4)), bytes((DATA,)) + columns]
    out.append(bytes((COMMAND, 0xAF)))
    return out


def open_bus(bus: int, address: int, wait_s: float = DEVICE_WAIT_S) -> int:
    """The bus's i2c-dev file, addressed to the panel; waits ``wait_s`` for udev to make it."""
    import fcntl

    path = f"/dev/i2c-{bus}"
    deadline = time.monotonic() + wait_s
    while True:
        try:
            handle = os.open(path, os.O_RDWR)
            break
        except (FileNotFoundError, PermissionError) as exc:
            if time.monotonic() >= deadline:
                raise Skipped(f"{path}: {exc.strerror}") from exc
            time.sleep(0.02)
    try:
        fcntl.ioctl(handle, I2C_SLAVE, address)
    except OSError as exc:
        os.close(handle)
        raise Skipped(f"{path} address 0x{address:02X}: {exc.strerror}") from exc
    return handle


def send(handle: int, writes: list[bytes], where: str) -> None:
    try:
        for write in writes:
            os.write(handle, write)
    except OSError as exc:  # no panel at that address answers (ENXIO, EREMOTEIO)
        raise Skipped(f"{where}: no panel answers ({exc.strerror})") from exc
    finally:
        os.close(handle)


def stand_in(folder: Path, frame: bytes, writes: list[bytes]) -> None:
    """The simulated panel's files (hardware.sim.StandIn): the bytes, and the frame noted."""
    import hashlib

    (folder / "panel").write_bytes(b"".join(writes))
    with (folder / "frames").open("a", encoding="ascii") as frames:
        frames.write(f"{time.clock_gettime_ns(time.CLOCK_BOOTTIME)} frame "
                     f"{hashlib.sha1(frame).hexdigest()[:16]}\n")


def main(argv: list[str]) -> int:
    options = dict(zip(argv[::2], argv[1::2], strict=False))
    if len(argv) % 2 or set(options) - {"--config", "--stand-in"}:
        print("usage: first_frame.py [--config FILE] [--stand-in DIR]", file=sys.stderr)
        return 2
    try:
        settings = display_settings(Path(options.get("--config", CONFIG)))
        frame = FRAME.read_bytes()
        if len(frame) != WIDTH * PAGES * 8 // 8:
            raise Skipped(f"{FRAME} holds {len(frame)} bytes, not a 128×64 frame's {WIDTH * PAGES}")
        writes = transfers(frame, settings["driver"], settings["rotate"], settings["contrast"])
        if "--stand-in" in options:
            stand_in(Path(options["--stand-in"]), frame, writes)
        else:
            bus, address = settings["i2c_bus"], settings["i2c_address"]
            send(open_bus(bus, address), writes, f"/dev/i2c-{bus} address 0x{address:02X}")
    except (Skipped, OSError) as exc:
        print(f"first frame left to the box: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
