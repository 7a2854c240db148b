"""The terminal simulator: half-block drawing at the panel's real resolution, keys → buttons."""

from __future__ import annotations

import io

from PIL import Image

from companion.terminal import TerminalPanel, decode_keys, frame_to_text


def test_each_character_holds_two_pixel_rows():
    image = Image.new("1", (128, 64), 0)
    image.putpixel((0, 0), 255)        # top half of cell (0, 0)
    image.putpixel((1, 1), 255)        # bottom half of cell (1, 0)
    image.putpixel((2, 0), 255)
    image.putpixel((2, 1), 255)        # both halves
    lines = frame_to_text(image)
    assert len(lines) == 32 and all(len(line) == 128 for line in lines)
    assert lines[0][:4] == "▀▄█ "


def test_keys_map_to_buttons_and_capitals_hold():
    assert decode_keys("\x1b[A\x1b[Bo \x7fO") == [
        ("UP", False), ("DOWN", False), ("OK", False), ("ACTION", False), ("BACK", False),
        ("OK", True),
    ]
    assert decode_keys("Bxq") == [("BACK", True), ("QUIT", False)]


def test_panel_paints_frame_help_and_status():
    out = io.StringIO()
    panel = TerminalPanel(out)
    panel.paint(Image.new("1", (128, 64), 0))
    panel.set_status("♪ warn")
    text = out.getvalue()
    assert text.count("│") == 2 * 32 * 2
    assert "hold (long)" in text and "♪ warn" in text
