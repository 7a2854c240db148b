"""Crisp pixel fonts from luma's bitmap glyph tables, plus the box's own icons.

Glyphs are trimmed to their ink so text is proportional (about 21 characters a line), and
scaled by whole pixels for the large fonts: never anti-aliased.
"""

from __future__ import annotations

from functools import lru_cache

from luma.core.legacy.font import CP437_FONT, LCD_FONT
from PIL import Image

# Icons drawn as rows of '#' (ink) and '.', 7 px tall, used inline in text.
ICONS: dict[str, tuple[str, ...]] = {
    "♥": (".##.##.", "#######", "#######", ".#####.", "..###..", "...#...", "......."),
    "★": ("...#...", "..###..", "#######", ".#####.", "..###..", ".##.##.", "#.....#"),
    "◆": ("...#...", "..###..", ".#####.", "#######", ".#####.", "..###..", "...#..."),
    "↶": (".#.....", "##.....", "#######", ".#....#", "......#", "......#", "..####."),
    "▲": (".......", "...#...", "..###..", ".#####.", "#######", ".......", "......."),
    "▼": (".......", "#######", ".#####.", "..###..", "...#...", ".......", "......."),
    "◀": ("...#", "..##", ".###", "####", ".###", "..##", "...#"),
    "▶": ("#...", "##..", "###.", "####", "###.", "##..", "#..."),
    "✓": (".......", "......#", ".....##", "#...##.", "##.##..", ".###...", "..#...."),
    "✗": ("#.....#", ".#...#.", "..#.#..", "...#...", "..#.#..", ".#...#.", "#.....#"),
    "●": (".###.", "#####", "#####", "#####", ".###.", ".....", "....."),
    "○": (".###.", "#...#", "#...#", "#...#", ".###.", ".....", "....."),
    # The coin is a round solid disc with a slot, so it never reads as a die's square and pips.
    "¤": ("..###..", ".#####.", "###.###", "###.###", "###.###", ".#####.", "..###.."),
    "→": (".......", "....#..", ".....#.", "#######", ".....#.", "....#..", "......."),
    "⏎": ("......#", "......#", "..#...#", ".##...#", "#######", ".##....", "..#...."),
    "·": ("..", "..", "..", "##", "##", "..", ".."),
    "…": (".....", ".....", ".....", ".....", ".....", "#.#.#", "....."),
    "⚠": ("...#...", "..#.#..", "..#.#..", ".#.#.#.", ".#...#.", "#..#..#", "#######"),
    "♪": ("..###", "..#.#", "..#..", "..#..", "###..", "###..", "....."),
    # Latin letters the LCD table lacks (titles like "Crazy Café").
    "é": ("...#.", "..#..", ".###.", "#...#", "#####", "#....", ".###."),
    # Status icons: a speaker with an x (muted); the dice sensor as a solid die with its pips
    # (online) or only the dotted place of one (offline): they differ in shape, not in a pixel.
    "🔇": ("..#....", ".##....", "###.#.#", "###..#.", "###.#.#", ".##....", "..#...."),
    "⊘": ("#.#.#.#", ".......", "#.....#", ".......", "#.....#", ".......", "#.#.#.#"),
    "◎": ("#######", "#.###.#", "#######", "###.###", "#######", "#.###.#", "#######"),
}


# Texts up to this long are kept drawn (a menu's labels, the timer's digits); longer ones are
# drawn each time, so one long name cannot fill the cache.
_CACHED_CHARS = 64


class BitmapFont:
    """A fixed-height bitmap font drawn onto 1-bit images."""

    def __init__(
        self,
        table: list[list[int]],
        scale: int = 1,
        spacing: int = 1,
        space: int = 3,
        overrides: dict[str, list[int]] | None = None,
    ):
        self._table = table
        self._overrides = overrides or {}
        self.scale = scale
        self.spacing = spacing * scale
        self.space = space * scale
        self.height = 8 * scale
        self._advances: dict[str, int] = {}

    @lru_cache(maxsize=512)  # noqa: B019 - fonts are module-level singletons
    def glyph(self, char: str) -> Image.Image | None:
        """The trimmed glyph image (mode '1'), or None for a blank (space)."""
        if char in ICONS:
            rows = ICONS[char]
            image = Image.new("1", (len(rows[0]), 8), 0)
            for y, row in enumerate(rows):
                for x, cell in enumerate(row):
                    if cell == "#":
                        image.putpixel((x, y), 255)
        else:
            code = ord(char) if ord(char) < 256 else ord("?")
            columns = self._overrides.get(char) or self._table[code]
            inked = [i for i, col in enumerate(columns) if col]
            if not inked:
                return None
            first, last = inked[0], inked[-1]
            image = Image.new("1", (last - first + 1, 8), 0)
            for x, col in enumerate(columns[first : last + 1]):
                for y in range(8):
                    if col >> y & 1:
                        image.putpixel((x, y), 255)
        if self.scale > 1:
            image = image.resize((image.width * self.scale, 8 * self.scale), Image.Resampling.NEAREST)
        return image

    def advance(self, char: str) -> int:
        """How far ``char`` moves the pen: its width (or a space's) and the gap after it."""
        step = self._advances.get(char)
        if step is None:
            glyph = self.glyph(char)
            step = self._advances[char] = (glyph.width if glyph else self.space) + self.spacing
        return step

    def width(self, text: str) -> int:
        """Width in pixels of ``text`` drawn in this font."""
        return max(0, sum(map(self.advance, text)) - self.spacing)

    def draw(self, image: Image.Image, xy: tuple[int, int], text: str, fill: int = 255) -> int:
        """Draw ``text`` with its top-left at ``xy``; return the x after the last glyph."""
        x, y = xy
        mask, pen = self._rendered(text) if len(text) <= _CACHED_CHARS else self._render(text)
        if mask is not None:
            image.paste(fill, (x, y, x + mask.width, y + mask.height), mask)
        return x + pen - self.spacing

    @lru_cache(maxsize=512)  # noqa: B019 - fonts are module-level singletons
    def _rendered(self, text: str) -> tuple[Image.Image | None, int]:
        return self._render(text)

    def _render(self, text: str) -> tuple[Image.Image | None, int]:
        """The ink of ``text`` as one mask (None if it has none) and the pen's travel."""
        placed = []
        pen = 0
        for char in text:
            glyph = self.glyph(char)
            if glyph is not None:
                placed.append((glyph, pen))
            pen += self.advance(char)
        if not placed:
            return None, pen
        glyph, last = placed[-1]
        mask = Image.new("1", (last + glyph.width, self.height), 0)
        for glyph, x in placed:
            mask.paste(glyph, (x, 0))
        return mask, pen

    def fit(self, text: str, width: int) -> str:
        """``text`` cut with an ellipsis so it fits in ``width`` pixels (a safety net: a text
        the screen means to show whole should never need it)."""
        return self._cut(text, width)

    def first_fit(self, texts: tuple[str, ...] | list[str], width: int) -> str:
        """The first of ``texts`` (longest wording first) that fits whole in ``width`` pixels,
        else the last, cut: a long name takes the shorter wording, never a cut one."""
        for text in texts:
            if self.width(text) <= width:
                return text
        return self.fit(texts[-1], width)

    def elide(self, text: str, width: int) -> str:
        """``text`` cut with an ellipsis on purpose: data of unbounded length (a list of
        names) that the screen shows as much of as fits."""
        return self._cut(text, width)

    def _cut(self, text: str, width: int) -> str:
        # Pen positions only grow, so the scan stops at the first glyph past the edge:
        # the cost is the characters that fit, however long the text.
        limit = width + self.spacing
        room = limit - self.advance("…")
        pen = cut = 0
        for count, char in enumerate(text, 1):
            pen += self.advance(char)
            if pen > limit:
                return text[:cut] + "…"
            if pen <= room:
                cut = count
        return text if text or width >= 0 else "…"

    def wrap(self, text: str, width: int) -> list[str]:
        """Greedy word wrap to ``width`` pixels."""
        limit = width + self.spacing
        gap = self.advance(" ")
        lines: list[str] = []
        for paragraph in text.split("\n"):
            line, pen = "", 0
            for word in paragraph.split(" "):
                step = sum(map(self.advance, word))
                if not line:
                    line, pen = word, step
                elif pen + gap + step <= limit:
                    line, pen = f"{line} {word}", pen + gap + step
                else:
                    lines.append(line)
                    line, pen = word, step
            lines.append(line)
        return lines

    def wrap_items(self, items: list[str], width: int, sep: str = ", ") -> list[str]:
        """``items`` joined by ``sep`` as far as each line goes, never breaking one item
        ("Kopi O" stays whole); an item wider than a line has a line of its own."""
        lines: list[str] = []
        for item in items:
            if lines and self.width(f"{lines[-1]}{sep}{item}") <= width:
                lines[-1] = f"{lines[-1]}{sep}{item}"
            else:
                lines.append(item)
        return lines


SMALL = BitmapFont(LCD_FONT)
"""Body text: 7 px capitals, about 21 characters across."""
# CP437's zero is slashed; scaled up, the slash reads as a solid block from across the table.
_PLAIN_ZERO = {"0": [62, 127, 65, 65, 65, 127, 62, 0]}
MEDIUM = BitmapFont(CP437_FONT, scale=2, spacing=1, overrides=_PLAIN_ZERO)
"""Numbers that matter (coins, hearts, scores): 16 px tall."""
LARGE = BitmapFont(CP437_FONT, scale=3, spacing=1, overrides=_PLAIN_ZERO)
"""The timer: 24 px tall, MM:SS fits the width."""
