"""The box's first frame: a die, the box's name and "Starting…", shown as soon as the panel is
open, before the box imports its games' screens, opens the journal and builds its parts, so
the table sees the box alive before its home screen is ready.

The frame is drawn once into ``splash.bin`` beside this module (128×64, one bit a pixel, as
Pillow packs mode "1") and shown from that file: no font or drawing code is loaded to show it.
``python -m companion.box.splash`` draws the file again; a test checks that it matches.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

FRAME = Path(__file__).with_name("splash.bin")
SIZE = (128, 64)
DIE = (50, 2, 28)  # left, top, side
PIPS = ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1))  # the five, from the die's centre


def frame() -> Image.Image:
    """The first frame, from its file."""
    from PIL import Image

    return Image.frombytes("1", SIZE, FRAME.read_bytes())


def drawn() -> Image.Image:
    """The first frame, drawn (what ``splash.bin`` holds)."""
    from PIL import Image, ImageDraw

    from companion.frame.canvas import Canvas

    image = Image.new("1", SIZE, 0)
    draw = ImageDraw.Draw(image)
    left, top, side = DIE
    draw.rounded_rectangle((left, top, left + side - 1, top + side - 1), radius=5, outline=255,
                           width=2)
    middle_x, middle_y = left + side // 2 - 1, top + side // 2 - 1
    for dx, dy in PIPS:
        x, y = middle_x + 7 * dx, middle_y + 7 * dy
        draw.ellipse((x - 2, y - 2, x + 2, y + 2), fill=255)
    canvas = Canvas(image, 0, SIZE[1])
    canvas.center(37, "Table Companion")
    canvas.center(51, "Starting…")
    return image


if __name__ == "__main__":
    FRAME.write_bytes(drawn().tobytes())
