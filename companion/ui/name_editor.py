"""A player's name with five buttons: a pick list of recent and common names, and a letter
wheel for a new one (UP/DOWN turn it and repeat while held, OK takes the letter, BACK deletes,
ACTION or OK on ✓ is done)."""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from functools import partial

from companion.contract.input import ButtonEvent
from companion.contract.names import MAX_LETTERS, same_name, unique_names
from companion.contract.spec import Screen, Table
from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL

from .widgets import MenuItem, MenuScreen, is_down, is_press, is_up

COMMON_NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus", "Hana", "Ivy", "Jon", "Kim",
                "Leo", "Max", "Nia", "Omar", "Pia", "Raj", "Sam", "Tom", "Uma", "Zoe")
NEW_NAME = "New name…"
DONE = "✓"
# Letters the small and large fonts both draw; a space, hyphen and apostrophe for "Jo-Ann".
_MARKS = " -'"


def _ring(capital: bool) -> tuple[str, ...]:
    """The wheel for one letter: the likely case first, the other case, marks, digits, then ✓
    (so UP once from the start is done)."""
    first, other = (string.ascii_uppercase, string.ascii_lowercase)[:: 1 if capital else -1]
    return (*first, *other, *_MARKS, *string.digits, DONE)


def _taken_reason(name: str, taken: Sequence[str]) -> str:
    """Why ``name`` cannot be this player's ("" when it can)."""
    if any(same_name(name, other) for other in taken):
        return f"{name.strip()} plays already:\npick another name"
    return ""


class NamePicker(MenuScreen):
    """The names to pick from, recent players first, then common names, then "New name…"
    (UP once from the top); names other players have come last, marked, and are refused."""

    hint = "▲ new name  OK pick"

    def __init__(self, app: Table, title: str, current: str, taken: Sequence[str],
                 on_name: Callable[[str], None], limit: int = MAX_LETTERS) -> None:
        super().__init__(app, title, [])
        self.taken, self.on_name, self.limit = list(taken), on_name, limit
        names = unique_names([current, *app.games.roster_names(), *COMMON_NAMES])
        names = [n for n in names if len(n) <= limit and SMALL.width(n) <= WIDTH]
        names.sort(key=lambda n: bool(_taken_reason(n, self.taken)))  # stable: recent first
        self.items = [MenuItem(n, partial(self._pick, n),
                               "taken" if _taken_reason(n, self.taken) else "") for n in names]
        self.items.append(MenuItem(NEW_NAME, self._new))

    def _pick(self, name: str) -> None:
        reason = _taken_reason(name, self.taken)
        if reason:
            self.app.refuse(reason)
        else:
            self.on_name(name)

    def _new(self) -> None:
        self.app.push(NameWheel(self.app, self.title, self.taken, self.on_name, self.limit))

    def name(self) -> str:
        return "NamePicker"


class NameWheel(Screen):
    """Type a name letter by letter on a wheel of the letters the screen's fonts have."""

    hint = "OK next  ↶ del  ◆ done"

    def __init__(self, app: Table, title: str, taken: Sequence[str],
                 on_name: Callable[[str], None], limit: int = MAX_LETTERS, start: str = "") -> None:
        super().__init__(app)
        self.title, self.taken, self.on_name, self.limit = title, list(taken), on_name, limit
        self.letters = start[:limit]
        self._new_slot()

    def _new_slot(self, letter: str | None = None) -> None:
        """Turn the wheel for the next letter: a capital at the start and after a mark."""
        self.ring = _ring(not self.letters or self.letters[-1] in _MARKS)
        if len(self.letters) >= self.limit:
            self.ring = (DONE,)
        self.index = self.ring.index(letter) if letter in self.ring else 0
        # A letter counts once the wheel was turned to it (or it came back with BACK): the
        # name shown is then the name ◆ saves, and an untouched slot adds nothing.
        self.chosen = letter in self.ring

    @property
    def current(self) -> str:
        return self.ring[self.index]

    @property
    def typed(self) -> str:
        """The name as shown: the letters taken, and the letter the wheel was turned to."""
        return self.letters + (self.current if self.chosen and self.current != DONE else "")

    def draw(self, canvas: Canvas) -> None:
        shown = self.letters + ("" if self.current == DONE else self.current)
        font = MEDIUM if MEDIUM.width(shown + "W") <= WIDTH - 4 else SMALL
        x = (WIDTH - font.width(self.letters + "W")) // 2
        x = font.draw(canvas.image, (x, canvas.top + 2), self.letters) + font.spacing
        # The letter being chosen: inverted, in a box as wide as a W so the name does not jump.
        box = font.width("W") + 2
        top, bottom = canvas.top + 1, canvas.top + font.height + 2
        # Inverted: the letter is part of the name (◆ keeps it). Only framed: the wheel has
        # not been turned in this slot, so OK would take the letter but ◆ leaves it out.
        solid = self.chosen or self.current == DONE
        canvas.draw.rectangle((x, top, x + box - 1, bottom), fill=255 if solid else 0, outline=255)
        glyph_font = SMALL if self.current == DONE else font  # ✓ is an icon of the small font
        gx = x + (box - glyph_font.width(self.current)) // 2
        gy = top + 1 + (font.height - glyph_font.height) // 2
        glyph_font.draw(canvas.image, (gx, gy), self.current, fill=0 if solid else 255)
        self._draw_wheel(canvas, 2 * LINE_H + 3)
        left = self.limit - len(self.letters)
        status = f"▲▼ letter  {left} of {self.limit} left"
        if self.current == DONE:
            status = "OK: name done" if left else f"{self.limit} letters: OK done"
        canvas.center(3 * LINE_H + 3, status)

    def _draw_wheel(self, canvas: Canvas, row_y: int) -> None:
        """The letters either side of the one chosen, so a held button shows where it goes."""
        if len(self.ring) == 1:
            return
        pitch = 12
        mid = WIDTH // 2
        for offset in range(-4, 5):
            char = self.ring[(self.index + offset) % len(self.ring)]
            char = "_" if char == " " else char  # a blank would look like a gap in the wheel
            x = mid + offset * pitch - SMALL.width(char) // 2
            if offset == 0:
                canvas.draw.rectangle((mid - 5, canvas.top + row_y - 1, mid + 5,
                                       canvas.top + row_y + 8), outline=255)
            SMALL.draw(canvas.image, (x, canvas.top + row_y), char)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_up(event) or is_down(event):
            self.index = (self.index + (1 if is_down(event) else -1)) % len(self.ring)
            self.chosen = True
        elif is_press(event, "OK"):
            if self.current == DONE:
                self._done()
            else:
                self.letters += self.current
                self._new_slot()
        elif is_press(event, "ACTION"):
            self._done()
        elif is_press(event, "BACK"):
            if not self.letters:
                return False  # nothing typed: BACK leaves, as everywhere
            last, self.letters = self.letters[-1], self.letters[:-1]
            self._new_slot(last)
        else:
            return False
        return True

    def _done(self) -> None:
        name = " ".join(self.typed.split())  # no blank at either end, one between words
        reason = "Type a letter first:\nOK takes it" if not name else _taken_reason(name, self.taken)
        if reason:
            self.app.refuse(reason)
        else:
            self.on_name(name)
