"""Miams coach on the box: during the player's turn, the odds of every skewer for the dice
showing and the keep to make, and "My sheet", the player's next free spaces that weigh them.

The coach only reads: it never dispatches an action, so nothing is journaled and the game is
the same after it. The player's sheet is kept in a small file in the box's state directory,
per game, so it survives a power cut (docs/miams.md#coach).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.spec import Screen
from companion.files import textfiles
from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.widgets import (
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    StepperScreen,
    is_down,
    is_press,
    is_up,
    step_selection,
)
from companion.ui.words import ordinal, plural
from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import RED, WHITE

from . import odds, rules
from .odds_search import MAX_HEARTS, WHITE_DICE, Weights
from .setup_screen import TITLE
from .sheet import SKEWER_SHORT, SKEWERS, unnamed
from .sheet_view import DIE, OVERVIEW_NAMES, column_box, die_x, draw_dice

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table

log = logging.getLogger(__name__)

COACH_FILE = "miams-coach.json"
MAX_COST_HALVES = 8           # a cross given to Arthur costs 0 to 4 hearts, in halves
# What one cross given to Arthur costs the player: My sheet's row, and its stepper's prompt.
COST_ROW = "Arthur's ✗ costs"
COST_PROMPT = "Arthur's ✗ costs me"
RED_DIE = WHITE_DICE     # the entry's fields: five white dice, the red die, the rerolls
REROLLS = RED_DIE + 1
RED_FACES = (None, *RED)      # the red die cycles through "not rolled" first


class Coach:
    """The player's own sheet for one game (the hearts of the next free space of each row and
    what a cross given to Arthur costs) and the dice last entered."""

    def __init__(self, app: Table) -> None:
        self.app = app
        options = game_options(app)
        self.layout = options.sheet.rows if options else ()
        # the red die's faces by the game's tile; without one, as a tile file naming none
        self.names: Mapping[str, str] = options.tile.names if options else {
            face: unnamed(face) for face in RED}
        self.marked = [0] * len(SKEWERS)
        self.hearts = [self._printed(row) for row in range(len(SKEWERS))]
        self.cost_halves = 0
        self.entered = False          # no weights until the player has touched "My sheet"
        self.tracked = False          # the rows follow the sheet the game keeps (follow)
        self.white: list[str] = [WHITE[0]] * WHITE_DICE
        self.red: str | None = None
        self.rerolls = 1
        self._load()

    def _printed(self, row: int) -> int:
        """The hearts of the row's next free space on the game's sheet, or its end value."""
        if not self.layout:
            return 0
        layout = self.layout[row]
        marked = self.marked[row]
        return layout.hearts[marked] if marked < len(layout.hearts) else layout.end

    def weights(self) -> Weights | None:
        if not self.entered:
            return None
        return Weights(tuple(self.hearts), Fraction(self.cost_halves, 2))

    def marked_one(self, row: int) -> None:
        """The player marked the next free space of ``row``: move on to the one after it."""
        if self.layout and self.marked[row] < len(self.layout[row].hearts):
            self.marked[row] += 1
        self.hearts[row] = self._printed(row)
        self.changed()

    def follow(self, rows: tuple[str, ...]) -> None:
        """The rows of the player's sheet as the game keeps it ("Track my sheet too"): each
        row's next free space, with the hearts printed in it, weighs the odds."""
        self.tracked = self.entered = True
        self.marked = [len(marks) for marks in rows]
        self.hearts = [self._printed(row) for row in range(len(SKEWERS))]

    def changed(self) -> None:
        self.entered = True
        self._save()

    # ----- kept per game in the state directory ------------------------------------------------
    def _kept(self) -> tuple[Path, int] | None:
        """The file the sheet is kept in and the game it is kept for; None when the box keeps
        no state or the game is not journaled."""
        session = self.app.games.session
        if self.app.state_dir is None or session is None or session.game_id is None:
            return None
        return self.app.state_dir / COACH_FILE, session.game_id

    def _save(self) -> None:
        kept = self._kept()
        if kept is None:
            return
        path, game_id = kept
        data = {"game": game_id, "hearts": self.hearts, "marked": self.marked,
                "cost_halves": self.cost_halves}
        try:  # flushed before it replaces the last one: a power cut keeps one of the two whole
            textfiles.write_atomic(path, json.dumps(data))
        except OSError as exc:  # the odds still work from memory
            log.warning("miams coach: cannot keep the player's sheet: %s", exc)

    def _load(self) -> None:
        kept = self._kept()
        if kept is None or not kept[0].exists():
            return
        path, game_id = kept
        try:
            data = json.loads(textfiles.read_text(path))
            if data["game"] != game_id:
                return  # another game's sheet
            hearts, marked, cost = data["hearts"], data["marked"], data["cost_halves"]
            rows = len(SKEWERS)
            if not (len(hearts) == len(marked) == rows and all(
                    type(v) is int and 0 <= v <= MAX_HEARTS for v in (*hearts, *marked))
                    and type(cost) is int and 0 <= cost <= MAX_COST_HALVES):
                raise ValueError("values out of range")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("miams coach: %s unreadable, starting afresh: %s", path, exc)
            return
        self.hearts, self.marked, self.cost_halves, self.entered = hearts, marked, cost, True


def game_options(app: Table) -> rules.Options | None:
    """The Miams game's sheet and tile; None without a game set up."""
    session = app.games.session
    state: rules.State | None = session.state if session is not None else None
    return state.options if state is not None else None


_warmed: set[Weights | None] = set()


def warm(weights: Weights | None) -> None:
    """Work out what every two-reroll table shares (every later roll's best keep), with and
    without the red die; the table for the dice then takes about a millisecond instead of six
    here (86 ms on the instruction clock, docs/benchmarks.md)."""
    for red in (RED[0], None):
        odds.table([WHITE[0]] * WHITE_DICE, red, 2, weights)


def warm_in_background(weights: Weights | None) -> None:
    """:func:`warm` on a short-lived thread while the dice are typed in, once per sheet. It only
    fills the odds module's memo (the same values the loop would work out), so the loop never
    waits for it; a table asked for meanwhile is worked out as usual."""
    if weights in _warmed:
        return
    if len(_warmed) >= 4:  # the odds module keeps 8 solvers, two per sheet warmed
        _warmed.clear()
    _warmed.add(weights)
    threading.Thread(target=warm, args=(weights,), name="miams-odds-warm", daemon=True).start()


class OddsScreen(Screen):
    """The dice (from the sensor when one is online, else typed in), then the keep to make and
    each skewer's chance; OK on a skewer shows its own best keep. Reads only: no action."""

    def __init__(self, app: Table, coach: Coach) -> None:
        super().__init__(app)
        self.coach = coach
        self.field = 0
        self.selected = 0
        self.table: odds.Odds | None = None
        self.names = coach.names
        whites = self._sensor_whites()
        if whites is not None:
            coach.white = list(whites)
            self._compute()
        else:
            warm_in_background(coach.weights())
        self._retitle()

    def _sensor_whites(self) -> tuple[str, ...] | None:
        """The white dice as an online sensor last read them, when all five are known."""
        sensor = self.app.sensor
        if not sensor.online:
            return None
        faces = [f for f, k in zip(sensor.faces, sensor.kinds, strict=False) if k == "white"]
        whites = tuple(f for f in faces if f is not None and f in WHITE)
        if len(faces) != WHITE_DICE or len(whites) != len(faces):
            return None
        return whites

    def _retitle(self) -> None:
        if self.table is None:
            self.title, self.hint = f"{TITLE} · dice odds", "▲▼ face  OK next"
        else:
            self.title = f"{TITLE} · {plural(self.coach.rerolls, 'reroll')}"
            self.hint = "OK its keep  BACK dice"

    def _compute(self) -> None:
        coach = self.coach
        self.table = odds.table(coach.white, coach.red, coach.rerolls, coach.weights())
        self._retitle()

    def on_enter(self) -> None:
        if self.table is not None:  # My sheet may have changed the weights
            self._compute()

    def on_sensor(self, event: Any) -> None:
        """Dice settling while the odds are shown are the reroll: the odds follow them, one
        reroll fewer."""
        if not isinstance(event, DiceSettled) or not self.app.on_top(self):
            return
        whites = self._sensor_whites()
        if whites is None or self.table is None:
            return
        if list(whites) != self.coach.white:
            self.coach.white = list(whites)
            self.coach.rerolls = max(0, self.coach.rerolls - 1)
            self._compute()

    def on_button(self, event: ButtonEvent) -> bool:
        if self.table is not None:
            return self._on_odds(event, self.table)
        coach = self.coach
        step = 1 if is_up(event) else -1 if is_down(event) else 0
        if step and self.field < RED_DIE:
            faces = WHITE
            coach.white[self.field] = faces[(faces.index(coach.white[self.field]) + step) % len(faces)]
        elif step and self.field == RED_DIE:
            coach.red = RED_FACES[(RED_FACES.index(coach.red) + step) % len(RED_FACES)]
        elif step:
            coach.rerolls = (coach.rerolls + step) % (odds.MAX_REROLLS + 1)
        elif is_press(event, "OK"):
            if self.field == REROLLS:
                self._compute()
            else:
                self.field += 1
        elif is_press(event, "BACK") and self.field > 0:
            self.field -= 1
        else:
            return False
        return True

    def _on_odds(self, event: ButtonEvent, table: odds.Odds) -> bool:
        moved = step_selection(event, self.selected, len(SKEWERS))
        if moved is not None:
            self.selected = moved
        elif is_press(event, "OK"):
            self.app.push(SkewerScreen(self.app, table, SKEWERS[self.selected]))
        elif is_press(event, "BACK"):
            self.table, self.field = None, 0
            self._retitle()
        else:
            return False
        return True

    # ----- drawing -----
    def draw(self, canvas: Canvas) -> None:
        coach = self.coach
        faces: list[str | None] = [*coach.white, coach.red]
        if self.table is None:
            self._draw_entry(canvas, faces)
            return
        table = self.table
        shown = faces if coach.red else faces[:RED_DIE]
        kept = (*odds.keep_marks(coach.white, table.overall.keep), table.overall.keep.red)
        right = draw_dice(canvas, 0, shown, kept)
        canvas.text(right + 1, 3, f"keep {sum(kept[:len(shown)])}")
        for index, skewer in enumerate(SKEWERS):
            left, right, y = column_box(index, DIE + 2)
            invert = index == self.selected
            if invert:
                canvas.draw.rectangle((left, canvas.top + y, right - 1, canvas.top + y + LINE_H - 1),
                                      fill=255)
            fill = 0 if invert else 255
            chance = whole_percent(table.best[skewer].chance)
            canvas.text(left + 1, y + 1, OVERVIEW_NAMES[skewer], fill=fill)
            canvas.text(right - 1 - SMALL.width(chance), y + 1, chance, fill=fill)

    def _draw_entry(self, canvas: Canvas, faces: list[str | None]) -> None:
        coach = self.coach
        right = draw_dice(canvas, 1, faces, ())
        # the rerolls left, round so it is not taken for a die
        top = canvas.top + 1
        canvas.draw.ellipse((right, top, right + DIE - 1, top + DIE - 1), outline=255)
        text = f"{coach.rerolls}"
        SMALL.draw(canvas.image, (right + (DIE - SMALL.width(text) + 1) // 2, top + 3), text)
        canvas.text(die_x(self.field) + 3, DIE + 2, "▲")
        if self.field < RED_DIE:
            face = coach.white[self.field]
            what = f"Die {self.field + 1}: " + ("cross ✗" if face == "cross" else self.names[face])
        elif self.field == RED_DIE:
            what = "Red die: " + (self.names[coach.red] if coach.red else "not rolled")
        else:
            what = f"Rerolls left: {coach.rerolls}"
        canvas.center(DIE + 2 + LINE_H + 2, what)
        if self.field == REROLLS:
            canvas.center(DIE + 2 + 2 * LINE_H + 2, "OK shows the odds")


def whole_percent(chance: Fraction) -> str:
    """A chance in whole percent for the grid: ✓ for a sure one, "<1%" for a sliver, and never
    "100%" for one that is not sure (99.7% shows 99%)."""
    if chance == 1:
        return "✓"
    if 0 < chance < Fraction(1, 200):
        return "<1%"
    return f"{min(99, round(float(chance) * 100))}%"


class SkewerScreen(Screen):
    """One skewer's best keep: the dice marked, the chance large, the crosses it leaves Arthur."""

    hint = "▲▼ skewer  OK back"

    def __init__(self, app: Table, table: odds.Odds, skewer: str) -> None:
        super().__init__(app)
        self.table, self.skewer = table, skewer
        self._retitle()

    def _retitle(self) -> None:
        self.title = f"{TITLE} · {SKEWER_SHORT[self.skewer]}"

    def draw(self, canvas: Canvas) -> None:
        table, pick = self.table, self.table.best[self.skewer]
        faces: list[str | None] = [*table.white, *([table.red] if table.red else [])]
        kept = (*odds.keep_marks(table.white, pick.keep), pick.keep.red)
        right = draw_dice(canvas, 0, faces, kept)
        canvas.text(right + 1, 3, f"keep {sum(kept[:len(faces)])}")
        canvas.text(1, DIE + 3, odds.percent(pick.chance), MEDIUM)
        canvas.text(WIDTH - 1 - SMALL.width("chance"), DIE + 11, "chance")
        canvas.center(DIE + 3 + 2 * LINE_H + 2, f"✗ to Arthur: {float(pick.crosses):.1f} avg")

    def on_button(self, event: ButtonEvent) -> bool:
        moved = step_selection(event, SKEWERS.index(self.skewer), len(SKEWERS))
        if moved is not None:
            self.skewer = SKEWERS[moved]
            self._retitle()
        elif is_press(event, "OK"):
            self.app.pop()
        else:
            return False
        return True


class MySheetScreen(MenuScreen):
    """The player's own sheet, told in the table's words: each row's next free space ("3rd
    6♥": its place and the hearts printed in it) and what a cross given to Arthur costs. OK on
    a row after marking its space there ("I marked it") moves on to the next space of the
    game's sheet; a printed sheet whose hearts differ sets them."""

    hint = "OK on a row you marked"

    def __init__(self, app: Table, coach: Coach) -> None:
        super().__init__(app, f"{TITLE} · my sheet", [])
        self.coach = coach
        self.on_enter()

    def on_enter(self) -> None:
        coach = self.coach
        self.items = [MenuItem(SKEWER_SHORT[skewer], partial(self._row, row), next_space(coach, row))
                      for row, skewer in enumerate(SKEWERS)]
        self.items.append(MenuItem(COST_ROW, self._cost, f"{cost_text(coach.cost_halves)}♥"))

    def _row(self, row: int) -> None:
        app, coach = self.app, self.coach
        name = SKEWER_SHORT[SKEWERS[row]]
        if coach.tracked:  # the game keeps this sheet: a row moves on with the turn's marks
            app.toast(f"{name}: next is {next_space(coach, row)}", "from your turns")
            return

        def chosen(index: int) -> None:
            if index == 0:
                app.pop()
                coach.marked_one(row)
                app.toast(f"{name}: next is", next_space(coach, row))
            else:
                app.push(StepperScreen(app, f"{TITLE} · my sheet", "Hearts on my sheet",
                                       coach.hearts[row], 0, MAX_HEARTS, hearts_set),
                         replace=True)

        def hearts_set(value: int) -> None:
            app.pop()
            coach.hearts[row] = value
            coach.changed()

        app.push(ChoiceScreen(app, f"{TITLE} · my sheet", f"{name}: {next_space(coach, row)}",
                              ["I marked it", "Mine shows other ♥"], chosen))

    def _cost(self) -> None:
        app, coach = self.app, self.coach

        def cost_set(value: int) -> None:
            app.pop()
            coach.cost_halves = value
            coach.changed()

        app.push(StepperScreen(app, f"{TITLE} · my sheet", COST_PROMPT,
                               coach.cost_halves, 0, MAX_COST_HALVES, cost_set,
                               shown=lambda v: f"{cost_text(v)}♥"))


def next_space(coach: Coach, row: int) -> str:
    """The row's next free space on the player's sheet as a place and its hearts, "3rd 6♥";
    "end 3♥" once the row is full (the end value scores each time)."""
    marked, hearts = coach.marked[row], coach.hearts[row]
    full = coach.layout and marked >= len(coach.layout[row].hearts)
    return f"end {hearts}♥" if full else f"{ordinal(marked + 1)} {hearts}♥"


def cost_text(halves: int) -> str:
    """Half hearts as the screen shows them: "1", "1.5"."""
    return f"{halves / 2:g}"
