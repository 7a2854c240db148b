"""What every Café screen shares: the words and die pictures, and the state and settings they
read (the title and the config keys are in :mod:`.options`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from companion.contract.spec import running_session
from companion.frame.canvas import WIDTH, Canvas
from companion.frame.font import SMALL

from .options import BAR, CONFIG
from .rules import CafeState, setup_of, time_left

if TYPE_CHECKING:
    from companion.contract.spec import Table

DICE_NAMES = {"box": "Box rolls", "sensor": "Sensor", "manual": "Table dice"}
FACE_LABELS = {
    "burger": "Burger", "donut": "Donut", "pizza": "Pizza", "fries": "Fries", "salad": "Salad",
    "cake": "Cake", "cola": "Cola", "milkshake": "Shake", "coffee": "Coffee", "juice": "Juice",
    "water": "Water", "bill": "Bill",
}
# The dice strip's words: 7-px pictures could not tell a burger from a donut. The full words
# are shown whenever four fit a line; the two longest have a short form, with its full stop so
# it reads as shortened rather than cut, for the few rolls where they do not.
DIE_SHORT = {"burger": "Burg.", "coffee": "Coff."}
DIE_GAP_MIN = 2   # px between two dice on a crowded line

# Cues before the deadline: warnings at 1:00 and 0:30, a tick each second from 0:10.
WARN_AT: tuple[float, ...] = (60.0, 30.0)
TICK_FROM = 10


def setting(app: Table, key: str) -> Any:
    """A [games.cafe] setting (its default when the config has no such section)."""
    section = app.config.games.get("cafe")
    return section[key] if section else CONFIG[key].default


def mmss(seconds: float) -> str:
    """Whole seconds left, rounded up so 0:00 shows only when time is up."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"


def _state(app: Table) -> CafeState:
    return running_session(app.games, CafeState).state


def round_title(number: int) -> str:
    """The title bar during round ``number``: the game and where it stands."""
    return f"{BAR} · Round {number}"


class ShowsClock:
    """A screen over a running round: its title starts with the time left, so the clock is
    never out of sight (the round clock redraws the top screen at every whole second)."""

    app: Table
    label: str = ""

    @property
    def title(self) -> str:
        state = _state(self.app)
        if state.phase not in ("running", "paused"):
            return self.label
        return f"{mmss(time_left(state, self.app.clock.now()))} {self.label}"

    @title.setter
    def title(self, label: str) -> None:
        self.label = label


def roll_prompt(dice: tuple[int, ...]) -> str:
    """What to roll after an order: "Roll die 2", "Roll dice 1 2 3 4" (fits the width)."""
    if len(dice) == 1:
        return f"Roll die {dice[0] + 1}"
    return "Roll dice " + " ".join(str(i + 1) for i in dice)


# What a short ACTION does during a round, by dice mode; the hint line reads the same way in
# every mode, only this word changes.
ACTION_VERB = {"box": "roll", "sensor": "done", "manual": "done"}


def action_verb(state: CafeState) -> str:
    """The word for a short ACTION press in the running round."""
    setup = setup_of(state)
    if setup.dice == "manual" and setup.double_trouble:
        return "double"
    return ACTION_VERB[setup.dice]


def die_words(state: CafeState) -> list[str]:
    """The four dice's words for one line: full words when they fit, else the widest shortened
    first ("Burg.", "Coff."); "?" for a face the box does not know."""
    faces = [face if face is not None and i not in state.to_roll else None
             for i, face in enumerate(state.faces)]
    words = [FACE_LABELS[face] if face else "?" for face in faces]
    room = WIDTH - 2 - (len(words) - 1) * DIE_GAP_MIN
    for i in sorted(range(len(words)), key=lambda i: -SMALL.width(words[i])):
        if sum(SMALL.width(word) for word in words) <= room:
            break
        if (face := faces[i]) in DIE_SHORT:
            words[i] = DIE_SHORT[face]
    return words


def draw_dice(canvas: Canvas, y: int, state: CafeState) -> None:
    """The four dice as words on one line, yellow pair then blue pair; a die on an order is
    drawn inverted, one whose face the box does not know as "?"."""
    words = die_words(state)
    widths = [SMALL.width(word) for word in words]
    # Gaps of 4 px in a pair and 8 px between pairs, narrowed when four long words need it.
    spare = WIDTH - 2 - sum(widths)
    gap = min(4, spare // 4)
    gaps = (gap, min(8, spare - 2 * gap), gap, 0)
    x = 1
    for word, width, placed, after in zip(words, widths, state.placed, gaps, strict=True):
        if placed:
            top = canvas.top + y
            canvas.draw.rectangle((x - 1, top - 1, x + width, top + 7), fill=255)
        canvas.text(x, y, word, fill=0 if placed else 255)
        x += width + after
