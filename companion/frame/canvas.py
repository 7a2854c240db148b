"""The 128×64 frame: title bar, body, hint line, and a toast over them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw

from companion.frame.font import MEDIUM, SMALL, BitmapFont

WIDTH, HEIGHT = 128, 64
TITLE_H = 9      # title bar, inverted
HINT_H = 8       # hint line at the bottom
LINE_H = 9       # one line of SMALL text with its gap
TOAST_LINE = WIDTH - 10  # one line of a toast or refusal box, inside its double frame


@dataclass
class Canvas:
    """The body area a screen draws in, with helpers that keep text crisp and inside."""

    image: Image.Image
    top: int
    bottom: int  # exclusive

    @property
    def draw(self) -> ImageDraw.ImageDraw:
        return ImageDraw.Draw(self.image)

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def lines(self) -> int:
        """How many SMALL lines fit in the body."""
        return self.height // LINE_H

    def text(self, x: int, row_y: int, text: str, font: BitmapFont = SMALL, fill: int = 255) -> int:
        """Draw at body-relative ``row_y``; text is cut to the screen width."""
        return font.draw(self.image, (x, self.top + row_y), font.fit(text, WIDTH - x), fill)

    def line(self, index: int, text: str, x: int = 0, invert: bool = False) -> None:
        """Draw SMALL text on line ``index`` of the body, optionally highlighted."""
        y = index * LINE_H
        if invert:
            self.draw.rectangle((0, self.top + y, WIDTH - 1, self.top + y + LINE_H - 1), fill=255)
        self.text(x + 1, y + 1, text, fill=0 if invert else 255)

    def center(self, row_y: int, text: str, font: BitmapFont = SMALL) -> None:
        text = font.fit(text, WIDTH)
        self.text((WIDTH - font.width(text)) // 2, row_y, text, font)

    def big(self, row_y: int, text: str, font: BitmapFont = MEDIUM) -> None:
        """A number that matters, centred."""
        self.center(row_y, text, font)

    def paragraph(self, text: str, first_line: int = 0) -> int:
        """Word-wrapped centred text from ``first_line``; returns the next free line."""
        index = first_line
        for line in SMALL.wrap(text, WIDTH - 2):
            if index >= self.lines:
                break
            self.center(index * LINE_H + 1, line)
            index += 1
        return index


def compose(
    title: str,
    status: str,
    hint: str,
    body: Callable[[Canvas], None],
    toast: list[str] | None = None,
) -> Image.Image:
    """Draw one whole frame. ``body(canvas)`` draws the screen's body."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH - 1, TITLE_H - 1), fill=255)
    status_w = SMALL.width(status) + 2 if status else 0
    SMALL.draw(image, (2, 1), SMALL.fit(title, WIDTH - 4 - status_w), fill=0)
    if status:
        SMALL.draw(image, (WIDTH - status_w, 1), status, fill=0)
    bottom = HEIGHT
    if hint:
        bottom = HEIGHT - HINT_H - 1
        draw.line((0, bottom, WIDTH - 1, bottom), fill=255)
        SMALL.draw(image, (1, HEIGHT - HINT_H + 1), SMALL.fit(hint, WIDTH - 2))
    body(Canvas(image, TITLE_H + 1, bottom))
    if toast:
        _draw_toast(image, toast)
    return image


def _draw_toast(image: Image.Image, lines: list[str]) -> None:
    draw = ImageDraw.Draw(image)
    lines = [SMALL.fit(line, TOAST_LINE) for line in lines[:2]]
    height = LINE_H * len(lines) + 6
    top = (HEIGHT - height) // 2 + 4
    draw.rectangle((2, top, WIDTH - 3, top + height), fill=0, outline=255)
    draw.rectangle((4, top + 2, WIDTH - 5, top + height - 2), outline=255)
    for i, line in enumerate(lines):
        SMALL.draw(image, ((WIDTH - SMALL.width(line)) // 2, top + 4 + i * LINE_H), line)
