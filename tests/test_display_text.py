"""Text drawn a string at a time and cut by a scan that stops at the edge: same pixels."""

from __future__ import annotations

import random

import pytest
from PIL import Image

from companion.frame.canvas import WIDTH, compose
from companion.frame.font import LARGE, MEDIUM, SMALL

FONTS = {"small": SMALL, "medium": MEDIUM, "large": LARGE}
ALPHABET = "Ab9:… é♥★✓ .,!?" + "".join(chr(code) for code in range(33, 300, 5))


def glyph_by_glyph(font, image, xy, text, fill):
    """The reference: every glyph pasted on its own, as the font once drew."""
    x, y = xy
    for char in text:
        glyph = font.glyph(char)
        if glyph is not None:
            image.paste(fill, (x, y, x + glyph.width, y + glyph.height), glyph)
        x += font.advance(char)
    return x - font.spacing


@pytest.mark.parametrize("name", sorted(FONTS))
def test_text_drawn_whole_has_the_pixels_of_text_drawn_glyph_by_glyph(name):
    font, rng = FONTS[name], random.Random(name)
    for _ in range(300):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 30)))
        xy, fill = (rng.randint(-20, 130), rng.randint(-10, 66)), rng.choice([0, 255])
        drawn, reference = (Image.new("1", (128, 64), 255 - fill) for _ in range(2))
        assert font.draw(drawn, xy, text, fill) == glyph_by_glyph(font, reference, xy, text, fill)
        assert drawn.tobytes() == reference.tobytes(), text


@pytest.mark.parametrize("name", sorted(FONTS))
def test_fit_keeps_the_longest_prefix_that_fits_with_its_ellipsis(name):
    font, rng = FONTS[name], random.Random(name)
    for _ in range(300):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 80)))
        width = rng.randint(0, 128)
        fitted = font.fit(text, width)
        if font.width(text) <= width:
            assert fitted == text
            continue
        kept = fitted[:-1]
        assert fitted.endswith("…") and text.startswith(kept)
        assert font.width(fitted) <= width or kept == ""
        assert font.width(text[: len(kept) + 1] + "…") > width


def test_a_ten_thousand_character_name_is_cut_to_the_title_bar():
    name = "".join(random.Random(7).choice("Wimbledon ♥é") for _ in range(10_000))
    frame = compose(name, "3/4", "OK: go", lambda canvas: canvas.center(10, name))
    title = SMALL.fit(name, WIDTH - 4 - SMALL.width("3/4") - 2)
    assert title.endswith("…") and name.startswith(title[:-1])
    assert frame.getpixel((2, 9)) == 0 and frame.getbbox() is not None


def test_wrap_breaks_between_words_within_the_width():
    lines = SMALL.wrap("Roll the dice and keep the best ones\nthen pass", 60)
    assert lines[-1] == "then pass"
    assert all(SMALL.width(line) <= 60 for line in lines if " " in line)
    assert " ".join(lines[:-1]) == "Roll the dice and keep the best ones"


def _ink(icon: str) -> set[tuple[int, int]]:
    from companion.frame.font import ICONS

    return {(x, y) for y, row in enumerate(ICONS[icon]) for x, cell in enumerate(row) if cell == "#"}


def test_status_icons_read_apart_at_one_to_one():
    """Issue 24, item 14 (UX: "Shapes that differ by one pixel are the same shape to a
    player"): the sensor's online and offline icons differ in a third of their pixels or more,
    and muted is a speaker pointing one way, not a symmetric X."""
    from companion.frame.font import ICONS

    online, offline, muted = _ink("◎"), _ink("⊘"), _ink("🔇")
    # One takes the other's place in the title bar: the same box, a different shape in it.
    assert len(ICONS["◎"][0]) == len(ICONS["⊘"][0]) == len(ICONS["🔇"][0]) == 7
    assert len(online ^ offline) >= len(online | offline) // 3
    assert not {(0, 0), (6, 0), (0, 6), (6, 6)} <= muted, "the mute icon is an X"
    mirrored = {(6 - x, y) for x, y in muted}
    assert len(muted ^ mirrored) >= len(muted) // 2, "the mute icon reads the same both ways"
    assert all(len(_ink(icon)) >= 12 for icon in ("◎", "⊘", "🔇", "⚠"))  # enough ink to see
