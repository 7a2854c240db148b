"""Reusable screens: a scrolling list, a number stepper, a yes/no confirm, a message.

They build on :class:`companion.contract.spec.Screen`, the screen contract of games and the box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from companion.contract.input import ButtonEvent
from companion.contract.spec import Screen, Table
from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL


def is_up(event: ButtonEvent) -> bool:
    return event.button == "UP" and event.kind in ("short", "repeat")


def is_down(event: ButtonEvent) -> bool:
    return event.button == "DOWN" and event.kind in ("short", "repeat")


def is_press(event: ButtonEvent, button: str) -> bool:
    return event.button == button and event.kind == "short"


def step_selection(event: ButtonEvent, selected: int, count: int, wraps: bool = True) -> int | None:
    """The selection after UP/DOWN (wrapping round, or stopping at the ends), or None if the
    press is neither."""
    if is_up(event):
        return (selected - 1) % count if wraps else max(0, selected - 1)
    if is_down(event):
        return (selected + 1) % count if wraps else min(count - 1, selected + 1)
    return None


@dataclass
class MenuItem:
    label: str
    on_select: Callable[[], None]
    detail: str = ""  # right-aligned value, e.g. "On"


def draw_list(canvas: Canvas, labels: Sequence[str], details: Sequence[str], selected: int) -> None:
    """Rows with the selection inverted and a scroll bar when they do not all fit."""
    visible = canvas.lines
    first = min(max(0, selected - visible + 1), max(0, len(labels) - visible))
    first = max(0, min(first, selected))  # a selection past the list's start draws from its top
    scroll = len(labels) > visible
    right = WIDTH - (4 if scroll else 0)
    for row, index in enumerate(range(first, min(len(labels), first + visible))):
        invert = index == selected
        y = row * LINE_H
        if invert:
            canvas.draw.rectangle((0, canvas.top + y, right - 1, canvas.top + y + LINE_H - 1), fill=255)
        fill = 0 if invert else 255
        detail = details[index] if index < len(details) else ""
        detail_w = SMALL.width(detail) + 3 if detail else 0
        canvas.text(2, y + 1, SMALL.fit(labels[index], right - 4 - detail_w), fill=fill)
        if detail:
            canvas.text(right - detail_w + 1, y + 1, detail, fill=fill)
    if scroll:
        track = canvas.lines * LINE_H
        bar = max(4, track * visible // len(labels))
        offset = (track - bar) * first // max(1, len(labels) - visible)
        canvas.draw.line((WIDTH - 2, canvas.top, WIDTH - 2, canvas.top + track - 1), fill=255)
        canvas.draw.rectangle(
            (WIDTH - 3, canvas.top + offset, WIDTH - 1, canvas.top + offset + bar - 1), fill=255
        )


class MenuScreen(Screen):
    """A list of choices: UP/DOWN move (wrapping), OK picks, BACK leaves."""

    hint = "▲▼ move  OK pick"
    wraps = True  # a setup stops at its last row: ▼ past it must not land on "Start"

    def __init__(self, app: Table, title: str, items: list[MenuItem], selected: int = 0) -> None:
        super().__init__(app)
        self.title = title
        self.items = items
        self.selected = selected

    def draw(self, canvas: Canvas) -> None:
        draw_list(
            canvas, [i.label for i in self.items], [i.detail for i in self.items], self.selected
        )

    def on_button(self, event: ButtonEvent) -> bool:
        if not self.items:
            return False
        moved = step_selection(event, self.selected, len(self.items), self.wraps)
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            self.items[self.selected].on_select()
        else:
            return False
        return True


class ChoiceScreen(Screen):
    """Pick one of ``options`` (each with an optional ``details`` text at the right);
    ``on_choose(index)`` gets the pick, BACK cancels."""

    hint = "▲▼ move  OK pick"

    def __init__(
        self, app: Table, title: str, prompt: str, options: Sequence[str],
        on_choose: Callable[[int], None], selected: int = 0, details: Sequence[str] = (),
    ) -> None:
        super().__init__(app)
        self.title, self.prompt, self.options = title, prompt, list(options)
        self.details = list(details)
        self.on_choose, self.selected = on_choose, selected

    def draw(self, canvas: Canvas) -> None:
        canvas.text(1, 1, self.prompt)
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        draw_list(sub, self.options, self.details, self.selected)

    def on_button(self, event: ButtonEvent) -> bool:
        moved = step_selection(event, self.selected, len(self.options))
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            self.on_choose(self.selected)
        else:
            return False
        return True


class StepperScreen(Screen):
    """Change a whole number with UP/DOWN (repeats while held); OK sets it."""

    hint = "▲▼ change  OK set"

    def __init__(
        self, app: Table, title: str, prompt: str, value: int, low: int, high: int,
        on_set: Callable[[int], object], step: int = 1, unit: str = "",
        shown: Callable[[int], str] | None = None,
    ) -> None:
        super().__init__(app)
        self.title, self.prompt = title, prompt
        self.value, self.low, self.high, self.step = value, low, high, step
        self.shown = shown or (lambda value: f"{value}{unit}")
        self.on_set = on_set

    def draw(self, canvas: Canvas) -> None:
        canvas.center(1, self.prompt)
        text = self.shown(self.value)
        canvas.big(LINE_H + 4, text)
        if self.value > self.low or self.value < self.high:
            x = (WIDTH + MEDIUM.width(text)) // 2 + 4
            if self.value < self.high:
                canvas.text(x, LINE_H + 1, "▲")
            if self.value > self.low:
                canvas.text(x, LINE_H + 13, "▼")

    def on_button(self, event: ButtonEvent) -> bool:
        if is_up(event):
            self.value = min(self.high, self.value + self.step)
        elif is_down(event):
            self.value = max(self.low, self.value - self.step)
        elif is_press(event, "OK"):
            self.on_set(self.value)
        else:
            return False
        return True


class ConfirmScreen(Screen):
    """A yes/no question: OK yes, BACK no."""

    hint = "OK yes   BACK no"
    owns_long_ok = True

    def __init__(
        self, app: Table, title: str, question: str,
        on_yes: Callable[[], None], on_no: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(app)
        self.title, self.question = title, question
        self.on_yes, self.on_no = on_yes, on_no

    def draw(self, canvas: Canvas) -> None:
        canvas.paragraph(self.question, first_line=1)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.pop()
            self.on_yes()
        elif is_press(event, "BACK"):
            self.app.pop()
            if self.on_no:
                self.on_no()
        else:
            return event.button in ("OK", "BACK")  # long presses mean nothing here
        return True


class MessageScreen(Screen):
    """Text to read; OK or BACK closes it."""

    hint = "OK close"

    def __init__(self, app: Table, title: str, lines: Sequence[str]) -> None:
        super().__init__(app)
        self.title, self.lines = title, list(lines)

    def draw(self, canvas: Canvas) -> None:
        for index, line in enumerate(self.lines[: canvas.lines]):
            canvas.line(index, line)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.pop()
            return True
        return False


class InfoScreen(Screen):
    """Read-only rows (label, value) from ``rows()``, read again for every frame so they stay
    current (e.g. a device's status); UP/DOWN scroll, OK closes."""

    hint = "▲▼ scroll  OK close"

    def __init__(self, app: Table, title: str, rows: Callable[[], Sequence[tuple[str, str]]]) -> None:
        super().__init__(app)
        self.title, self.rows, self.selected = title, rows, 0

    def draw(self, canvas: Canvas) -> None:
        rows = self.rows()
        self.selected = min(self.selected, len(rows) - 1)
        draw_list(canvas, [r[0] for r in rows], [r[1] for r in rows], self.selected)

    def on_button(self, event: ButtonEvent) -> bool:
        moved = step_selection(event, self.selected, len(self.rows()))
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            self.app.pop()
        else:
            return False
        return True


class CheckListScreen(Screen):
    """Tick any of ``options``: OK on a row toggles it, OK on the last row ("Done") hands
    ``on_done`` the ticked indices; BACK cancels."""

    hint = "▲▼ move  OK tick/done"

    def __init__(
        self, app: Table, title: str, options: Sequence[str], checked: Sequence[bool],
        on_done: Callable[[tuple[int, ...]], None], done_label: str = "Done",
    ) -> None:
        super().__init__(app)
        self.title, self.options, self.checked = title, list(options), list(checked)
        self.on_done, self.done_label, self.selected = on_done, done_label, 0

    def draw(self, canvas: Canvas) -> None:
        ticks = ["✓" if tick else "✗" for tick in self.checked]
        draw_list(canvas, [*self.options, f"{self.done_label} ▶"], ticks, self.selected)

    def on_button(self, event: ButtonEvent) -> bool:
        moved = step_selection(event, self.selected, len(self.options) + 1)
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            if self.selected == len(self.options):
                self.on_done(tuple(i for i, tick in enumerate(self.checked) if tick))
            else:
                self.checked[self.selected] = not self.checked[self.selected]
        else:
            return False
        return True
