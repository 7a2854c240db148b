"""Miams pictures for a 0.96" panel: Arthur's sheet as an overview of the six rows (marked
spaces and his totals) and one row per page with large spaces whose marks differ in shape; and
a row of dice, kept or to reroll, for the coach."""

from __future__ import annotations

from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.words import ordinal, plural

from . import rules
from .marks import Side
from .odds_search import WHITE_DICE
from .sheet import CIRCLE, CROSS, SKEWER_SHORT, SKEWERS, Bonus, Row, Sheet

# Row names that fit half the screen beside "9/9".
OVERVIEW_NAMES: dict[str, str] = {
    "pair": "Pair", "three": "3-kind", "full_house": "Full", "four": "4-kind",
    "straight": "Straight", "yums": "Yums",
}
SPLIT = 57             # the left column's names are shorter than "Straight"
ROWS_PER_COLUMN = 3
CELL_H = 15            # a row page's space: its number inside, 7 px of ink and a margin
MAX_PITCH = 14         # a short row's spaces stay this far apart, centred
CELLS_Y = LINE_H + 1   # below the row's name
BONUS_Y = CELLS_Y + CELL_H + 2
DIE = 13               # a die's square
DIE_PITCH = 15
RED_GAP = 4            # the red die stands apart, after a bar


def draw_overview(canvas: Canvas, sheet: Sheet, side: Side) -> None:
    """The six rows in two columns ("Pair 3/9", "full" once every space is marked), then
    Arthur's hearts large with his stars and score."""
    marks = side.rows
    for row, layout in enumerate(sheet.rows):
        left, right, y = column_box(row)
        marked, size = len(marks[row]), len(layout.hearts)
        name = OVERVIEW_NAMES[layout.skewer]
        # a long row's count shortens, but a full row never reads as a bare number ("6")
        counts = ("full", f"{marked}/{size}") if marked >= size else (f"{marked}/{size}", f"{marked}")
        count = next((c for c in counts if SMALL.width(f"{name} {c}") <= right - left - 2), counts[-1])
        canvas.text(left + 1, y + 1, name)
        canvas.text(right - 1 - SMALL.width(count), y + 1, count)
    canvas.draw.line((SPLIT, canvas.top, SPLIT, canvas.top + 3 * LINE_H - 1), fill=255)
    y = 3 * LINE_H + 1
    right = canvas.text(1, y, f"{side.hearts}", MEDIUM)
    canvas.text(right + 2, y + 8, "♥")
    detail = f"★ {side.stars}  = {plural(rules.score(side), 'pt')}"
    canvas.text(WIDTH - 1 - SMALL.width(detail), y + 8, detail)


def column_box(index: int, top: int = 0) -> tuple[int, int, int]:
    """Left x, right x (exclusive) and y of skewer ``index`` in a two-column grid of three lines."""
    column, line = divmod(index, ROWS_PER_COLUMN)
    left, right = (0, SPLIT) if column == 0 else (SPLIT + 1, WIDTH)
    return left, right, top + line * LINE_H


def draw_row_page(canvas: Canvas, layout: Row, marks: str, row: int) -> None:
    """One skewer row: its name, each space as a large cell (a box with its hearts = free, a
    filled disc = circled, a box struck through = crossed), the bonus under each space, and
    the next free space in words."""
    size = len(layout.hearts)
    canvas.text(1, 1, SKEWER_SHORT[layout.skewer])
    where = f"row {row + 1}/{len(SKEWERS)}"
    canvas.text(WIDTH - 1 - SMALL.width(where), 1, where)
    pitch = min(MAX_PITCH, WIDTH // size)
    left = (WIDTH - pitch * size) // 2
    for space, (hearts, bonus) in enumerate(zip(layout.hearts, layout.bonuses, strict=True)):
        x = left + space * pitch
        _draw_space(canvas, x, pitch - 2, hearts, marks[space] if space < len(marks) else "")
        glyph = _bonus_glyph(bonus)
        if glyph:
            canvas.text(x + (pitch - 1 - SMALL.width(glyph)) // 2, BONUS_Y, glyph)
    marked = len(marks)
    if marked >= size:
        line = f"Full: {layout.end}♥ each time"
    else:
        earned = layout.bonuses[marked].label()
        line = f"Next: {ordinal(marked + 1)}, {layout.hearts[marked]}♥" + (f" +{earned}" if earned else "")
    canvas.center(BONUS_Y + LINE_H + 1, line)


def _draw_space(canvas: Canvas, x: int, width: int, hearts: int, how: str) -> None:
    draw = canvas.draw
    top, bottom = canvas.top + CELLS_Y, canvas.top + CELLS_Y + CELL_H - 1
    number = f"{hearts}"
    text_x = x + (width - SMALL.width(number) + 1) // 2
    if how == CIRCLE:  # round and filled, the number cut out of it
        draw.ellipse((x, top, x + width - 1, bottom), fill=255)
        SMALL.draw(canvas.image, (text_x, top + 4), number, fill=0)
        return
    draw.rectangle((x, top, x + width - 1, bottom), outline=255)
    if how == CROSS:  # struck through corner to corner, two pixels thick, no number
        for dx in (0, 1):
            draw.line((x + dx, top, x + width - 2 + dx, bottom), fill=255)
            draw.line((x + dx, bottom, x + width - 2 + dx, top), fill=255)
    else:
        SMALL.draw(canvas.image, (text_x, top + 4), number)


def _bonus_glyph(bonus: Bonus) -> str:
    """A star under a space with stars, R for a reroll token, D for a red die token; the line
    below the row names the next space's bonus in words."""
    if bonus.stars:
        return "★"
    if bonus.reroll:
        return "R"
    return "D" if bonus.red else ""


def face_mark(face: str) -> str:
    """What a die's square shows: the fruit's number, ✗ for the cross, M for the marshmallow."""
    if face == "cross":
        return "✗"
    return "M" if face == "marshmallow" else face[-1]


def draw_dice(canvas: Canvas, y: int, faces: list[str | None], kept: tuple[bool, ...]) -> int:
    """The dice in a row from the left: a kept die filled, a die to reroll an outline; the red
    die stands apart after a bar, a dotted outline when it is not rolled (None). Returns the x
    after the last die."""
    draw = canvas.draw
    top = canvas.top + y
    for index, face in enumerate(faces):
        x = die_x(index)
        if index == WHITE_DICE:
            bar = x - RED_GAP // 2 - 1
            draw.line((bar, top, bar, top + DIE - 1), fill=255)
        keep = index < len(kept) and kept[index]
        if face is None:  # the red die not rolled: a dotted outline, empty
            for step in range(0, DIE - 1, 2):
                for px, py in ((x + step, top), (x + DIE - 1 - step, top + DIE - 1),
                               (x, top + DIE - 1 - step), (x + DIE - 1, top + step)):
                    draw.point((px, py), fill=255)
            continue
        draw.rectangle((x, top, x + DIE - 1, top + DIE - 1), fill=255 if keep else 0, outline=255)
        mark = face_mark(face)
        SMALL.draw(canvas.image, (x + (DIE - SMALL.width(mark) + 1) // 2, top + 3), mark,
                   fill=0 if keep else 255)
    return die_x(len(faces) - 1) + DIE_PITCH


def die_x(index: int) -> int:
    """Where die ``index`` of :func:`draw_dice` starts (the red die is the sixth)."""
    return index * DIE_PITCH + (RED_GAP if index >= WHITE_DICE else 0)
