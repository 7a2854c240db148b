"""Build docs/screens/before-after.png: each screen in both before/ and after/, side by side at
the ×3 size they are saved at, then both again at 1:1 (the panel's real size), labelled with its
name. Run: python docs/screens/make_sheet.py"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from companion.frame.font import SMALL

HERE = Path(__file__).parent
SCALE = 3  # the pictures are saved ×3; labels are drawn at the same size
GAP = 6 * SCALE
LABEL_H = 10 * SCALE
GREY = 96  # the gutter, so the panels' black edges show


def label(text: str, width: int) -> Image.Image:
    """``text`` in the box's own small font, enlarged like the screens, white on black."""
    small = Image.new("1", (width // SCALE, LABEL_H // SCALE), 0)
    SMALL.draw(small, (1, 1), SMALL.fit(text, width // SCALE - 2))
    return small.resize((width, LABEL_H), Image.NEAREST).convert("L")


def pairs() -> list[tuple[str, Image.Image, Image.Image]]:
    """(name, before, after) for every picture present in both folders, by name."""
    names = sorted({p.name for p in (HERE / "before").glob("*.png")}
                   & {p.name for p in (HERE / "after").glob("*.png")})
    return [(Path(n).stem, Image.open(HERE / "before" / n).convert("L"),
             Image.open(HERE / "after" / n).convert("L")) for n in names]


def sheet() -> Image.Image:
    """One row per screen: its name over the before (left) and after (right) pictures at ×3,
    and the same two at 1:1 beside them (before above after)."""
    rows = pairs()
    width = max(max(b.width, a.width) for _, b, a in rows)
    height = max(max(b.height, a.height) for _, b, a in rows)
    small_w = width // SCALE
    out = Image.new("L", (GAP + 2 * (width + GAP) + small_w + GAP,
                          GAP + len(rows) * (LABEL_H + height + GAP)), GREY)
    for row, (name, before, after) in enumerate(rows):
        y = GAP + row * (LABEL_H + height + GAP)
        out.paste(label(f"{name}: before | after", 2 * width + GAP), (GAP, y))
        for col, picture in enumerate((before, after)):
            out.paste(picture, (GAP + col * (width + GAP), y + LABEL_H))
            one = picture.resize((picture.width // SCALE, picture.height // SCALE), Image.NEAREST)
            out.paste(one, (GAP + 2 * (width + GAP), y + LABEL_H + col * (one.height + GAP)))
    return out


if __name__ == "__main__":
    sheet().save(HERE / "before-after.png", optimize=True)
