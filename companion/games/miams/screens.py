"""Miams solo screens: setup, Arthur's sheet and turn, the player's turn, the final scores."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.ui.canvas import LINE_H, WIDTH, Canvas
from companion.ui.font import MEDIUM, SMALL
from companion.ui.widgets import (
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    Screen,
    StepperScreen,
    is_down,
    is_press,
    is_up,
)
from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import RED

from . import rules
from .sheet import (
    DEFAULT_SHEET,
    DEFAULT_TILE,
    HEARTS_TRACK,
    SKEWER_LABELS,
    SKEWER_SHORT,
    SKEWERS,
    Sheet,
    SheetError,
    load_sheet,
    load_tile,
    sheet_files,
)

if TYPE_CHECKING:
    from companion.app import App
    from hardware.buttons import ButtonEvent

log = logging.getLogger(__name__)

TITLE = "Miams"
CELL = 6          # grid pitch: a 5 px box and a 1 px gap
ROW_H = 7         # six rows fit the 45 px body
GRID_X = 13       # after the two-letter row labels


def _settings(app: App) -> Any:
    return app.config.games["miams"]


# ----- setup ------------------------------------------------------------------------------------

class SetupScreen(MenuScreen):
    """Start, difficulty, and which sheet file to play Arthur on."""

    def __init__(self, app: App) -> None:
        super().__init__(app, f"{TITLE} · new solo game", [])
        cfg = _settings(app)
        self.difficulty = cfg.difficulty
        # (label, path): the configured sheet (or the stand-in), then the sheets folder's files.
        first = Path(cfg.sheet) if cfg.sheet else DEFAULT_SHEET
        self.sheets = [first, *(p for p in sheet_files(cfg.sheets_dir) if p != first)]
        self.sheet_index = 0
        self.on_enter()

    def on_enter(self) -> None:
        self.items = [
            MenuItem("Start", self._start, "Arthur first"),
            MenuItem("Difficulty", self._pick_difficulty, rules.DIFFICULTY_NAMES[self.difficulty]),
            MenuItem("Sheet", self._pick_sheet, self._sheet_label(self.sheets[self.sheet_index])),
        ]

    def draw(self, canvas: Canvas) -> None:
        super().draw(canvas)
        if self.sheets[self.sheet_index] == DEFAULT_SHEET:
            canvas.center(4 * LINE_H + 1, "⚠ Stand-in values")

    @staticmethod
    def _sheet_label(path: Path) -> str:
        return "stand-in" if path == DEFAULT_SHEET else path.stem

    def _pick_difficulty(self) -> None:
        keys = list(rules.DIFFICULTIES)
        labels = ["Snacking: no change", "Lunch: 2 crossed", "Munchies: 4 crossed"]

        def chosen(index: int) -> None:
            self.difficulty = keys[index]
            self.app.pop()

        self.app.push(ChoiceScreen(self.app, "Arthur's difficulty", "Arthur's appetite:", labels,
                                   chosen, keys.index(self.difficulty)))

    def _pick_sheet(self) -> None:
        def chosen(index: int) -> None:
            self.sheet_index = index
            self.app.pop()

        self.app.push(ChoiceScreen(self.app, "Arthur's sheet", "Sheet file:",
                                   [self._sheet_label(p) for p in self.sheets], chosen,
                                   self.sheet_index))

    def _start(self) -> None:
        cfg = _settings(self.app)
        try:
            sheet = load_sheet(self.sheets[self.sheet_index])
            tile = load_tile(Path(cfg.tile) if cfg.tile else DEFAULT_TILE)
        except SheetError as exc:
            log.error("miams: %s", exc)  # the full file, key and problem for the installer
            self.app.refuse(f"{Path(exc.path).name}: {exc.key}")
            return
        self.app.new_game(self.app.games["miams"], {
            "type": "setup", "difficulty": self.difficulty,
            "sheet": sheet.to_data(), "tile": tile.to_data(),
            "tie": cfg.tie, "setup_column": cfg.setup_column,
        })


# ----- drawing Arthur's sheet -------------------------------------------------------------------

def draw_sheet(canvas: Canvas, sheet: Sheet, side: rules.Side) -> None:
    """Six skewer rows of boxes: empty = free (a dot if it has a bonus), disc = circled,
    box with an X = crossed."""
    draw = canvas.draw
    for row, layout in enumerate(sheet.rows):
        y = canvas.top + row * ROW_H
        canvas.text(0, row * ROW_H, SKEWER_LABELS[layout.skewer])
        marks = side.rows[row]
        for space, bonus in enumerate(layout.bonuses):
            x = GRID_X + space * CELL
            how = marks[space] if space < len(marks) else ""
            if how == rules.CIRCLE:
                draw.rectangle((x, y + 2, x + 4, y + 4), fill=255)
                draw.rectangle((x + 1, y + 1, x + 3, y + 5), fill=255)
                continue
            draw.rectangle((x, y + 1, x + 4, y + 5), outline=255)
            if how == rules.CROSS:
                draw.line((x, y + 1, x + 4, y + 5), fill=255)
                draw.line((x, y + 5, x + 4, y + 1), fill=255)
            elif bonus.tokens or bonus.stars:
                draw.point((x + 2, y + 3), fill=255)


def draw_totals(canvas: Canvas, x: int, side: rules.Side) -> None:
    """Arthur's hearts large, his stars and score below, right of the grid."""
    hearts = f"{side.hearts}"
    right = canvas.text(x, 0, hearts, MEDIUM)
    canvas.text(right + 2, 8, "♥")
    canvas.text(x, 18, f"★ {side.stars}")
    canvas.text(x, 27, f"= {rules.score(side)} pts")


# ----- the game ---------------------------------------------------------------------------------

class PlayScreen(Screen):
    """The game's root: what it shows follows the rules' phase (so undo and resume just work).

    Arthur's turn: his sheet, ACTION rolls the red die (OK types in a physical roll). Then his
    turn in words, "cross one space on your sheet", and the player's two questions.
    """

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.view = ""
        self.on_state_changed()

    @property
    def state(self) -> rules.State:
        return self.app.session.state

    def on_state_changed(self) -> None:
        phase = self.state.phase
        self.view = {"arthur": "sheet", "player": "turn", "score": "final", "over": "result"}.get(
            phase, "sheet")
        self._retitle()

    def _retitle(self) -> None:
        state = self.state
        if self.view == "sheet":
            self.title = f"{TITLE} · Arthur turn {state.turns + 1}"
            self.hint = "◆ roll  OK type in die"
        elif self.view == "turn":
            self.title = f"{TITLE} · Arthur turn {state.turns}"
            self.hint = "OK next  ▼ sheet"
        elif self.view == "cross":
            self.title = f"{TITLE} · your sheet"
            self.hint = "OK your turn"
        elif self.view == "final":
            self.title = f"{TITLE} · game over"
            self.hint = "OK enter your score"
        elif self.view == "result":
            self.title = f"{TITLE} · final scores"
            self.hint = "▼ Arthur's sheet"
        elif self.view == "arthur-sheet":
            self.title = f"{TITLE} · Arthur's sheet"
            self.hint = "▲ back"

    # ----- input -----
    def on_button(self, event: ButtonEvent) -> bool:
        view = self.view
        if self.state.options is None:
            return False
        if view == "sheet":
            if is_press(event, "ACTION"):
                self._roll(self.app.rng.choice(RED), "box")
            elif is_press(event, "OK"):
                self._ask_face()
            else:
                return False
        elif view == "turn":
            if is_press(event, "OK") or is_press(event, "ACTION"):
                self._show("cross")
            elif is_down(event):
                self._show("arthur-sheet")
            else:
                return False
        elif view == "arthur-sheet":
            if is_up(event) or is_press(event, "BACK") or is_press(event, "OK"):
                self.on_state_changed()
            else:
                return False
        elif view == "cross":
            if is_press(event, "OK") or is_press(event, "ACTION"):
                self._ask_crosses()
            elif is_press(event, "BACK"):
                self._show("turn")
            else:
                return False
        elif view == "final":
            if is_press(event, "OK"):
                self._ask_score()
            else:
                return False
        elif view == "result":
            if is_down(event):
                self._show("arthur-sheet")
            else:
                return False
        return True

    def on_sensor(self, event: Any) -> None:
        """A settled red die on the sensor is Arthur's roll, recorded like a box roll."""
        if not isinstance(event, DiceSettled) or "red" not in event.kinds:
            return
        if self.view != "sheet" or self.app.stack[-1] is not self:
            return
        face = event.faces[event.kinds.index("red")]
        if face in RED:
            self._roll(face, "sensor")
        else:
            self.app.refuse("Red die unclear:\nroll it again")

    def _show(self, view: str) -> None:
        self.view = view
        self._retitle()

    def _roll(self, face: str, source: str) -> None:
        if self.app.dispatch({"type": "roll", "face": face, "source": source}):
            self.app.beep("tick")
            self.on_state_changed()

    def _ask_face(self) -> None:
        tile = self.state.options.tile
        labels = [tile.names[f] for f in RED]

        def chosen(index: int) -> None:
            self.app.pop()
            self._roll(RED[index], "hand")

        self.app.push(ChoiceScreen(self.app, f"{TITLE} · Arthur's die", "Red die shows:",
                                   labels, chosen))

    def _ask_crosses(self) -> None:
        app = self.app
        turn = self.state.player_turns + 1

        def filled(crosses: int, index: int) -> None:
            app.pop()
            if app.dispatch({"type": "player", "crosses": crosses, "filled": index == 1}):
                self.on_state_changed()
                gift = self.state.gift
                if gift:
                    app.toast(f"Arthur crosses {len(gift)}:", marks_text(gift))

        def crosses_set(crosses: int) -> None:
            app.replace(ChoiceScreen(app, f"{TITLE} · your turn {turn}", "Your hearts track:",
                                     ["Not full yet", "All 50 filled"],
                                     lambda index: filled(crosses, index)))

        app.push(StepperScreen(app, f"{TITLE} · your turn {turn}", "Crosses on your dice", 0, 0, 5,
                               crosses_set))

    def _ask_score(self) -> None:
        app = self.app
        hearts_start = HEARTS_TRACK if self.state.player_filled else 0

        def stars_set(hearts: int, stars: int) -> None:
            app.pop()
            if app.dispatch({"type": "score", "hearts": hearts, "stars": stars}):
                app.beep("ok")
                self.on_state_changed()

        def hearts_set(hearts: int) -> None:
            app.replace(StepperScreen(app, f"{TITLE} · your score", "Your stars", 0, 0, 999,
                                      lambda stars: stars_set(hearts, stars)))

        app.push(StepperScreen(app, f"{TITLE} · your score", "Your filled hearts", hearts_start, 0,
                               HEARTS_TRACK, hearts_set))

    # ----- drawing -----
    def draw(self, canvas: Canvas) -> None:
        state = self.state
        options = state.options
        view = self.view
        if options is None:  # a journal cut off before its setup entry
            canvas.paragraph("No game set up. Hold OK for the menu.", 1)
        elif view in ("sheet", "arthur-sheet"):
            draw_sheet(canvas, options.sheet, state.arthur)
            draw_totals(canvas, GRID_X + CELL * max(options.sheet.sizes) + 4, state.arthur)
        elif view == "turn":
            self._draw_turn(canvas, options, state.last)
        elif view == "cross":
            canvas.paragraph("Arthur crosses too: cross one space on your sheet", 0)
            canvas.center(3 * LINE_H + 2, "(as for one ✗ face)")
        elif view == "final":
            who = "You filled your 50!" if state.player_filled else "Arthur filled his 50!"
            canvas.center(1, who)
            canvas.center(LINE_H + 3, "Equal turns played.")
            canvas.center(2 * LINE_H + 5, "Count your hearts")
            canvas.center(3 * LINE_H + 5, "and stars.")
        elif view == "result":
            self._draw_result(canvas, state)

    @staticmethod
    def _draw_turn(canvas: Canvas, options: rules.Options, turn: rules.Turn) -> None:
        circled = turn.marks[0]
        skewer = SKEWER_SHORT[SKEWERS[circled.row]]
        canvas.center(0, f"Red die: {options.tile.names[turn.face]}")
        where = "row full" if circled.space < 0 else f"circle {circled.space + 1}"
        canvas.center(LINE_H, f"{skewer}: {where}")
        gain = f"+{circled.hearts}♥"
        if circled.stars:
            gain += f" {rules.star_text(circled.stars)}"
        canvas.big(2 * LINE_H + 1, gain)
        if circled.tokens:
            # the token itself is discarded; what the table sees is where its crosses went
            token = options.sheet.rows[circled.row].bonuses[circled.space].label()
            crosses = marks_text(turn.marks[1:]) if len(turn.marks) > 1 else "no space left"
            canvas.center(4 * LINE_H, f"{token} ▶ ✗ {crosses}")

    @staticmethod
    def _draw_result(canvas: Canvas, state: rules.State) -> None:
        hearts, stars = state.player_score
        mine, his = hearts + stars, rules.score(state.arthur)
        half = WIDTH // 2
        for x, who, total, detail in (
            (0, "You", mine, f"{hearts}♥ {stars}★"),
            (half, "Arthur", his, f"{state.arthur.hearts}♥ {state.arthur.stars}★"),
        ):
            label_x = x + (half - SMALL.width(who)) // 2
            canvas.text(label_x, 0, who)
            text = f"{total}"
            canvas.text(x + (half - MEDIUM.width(text)) // 2, LINE_H, text, MEDIUM)
            canvas.text(x + (half - SMALL.width(detail)) // 2, LINE_H + 18, detail)
        if rules.winner(state) == "player":
            verdict = "You win!"
        else:
            verdict = "Tie: Arthur holds on" if mine == his else "Arthur wins!"
        canvas.center(4 * LINE_H, verdict)


def marks_text(marks: tuple[rules.Mark, ...]) -> str:
    """Crosses in short form, e.g. ``P3 FH1 +★★``: row label and space number, then stars."""
    text = " ".join(f"{SKEWER_LABELS[SKEWERS[m.row]]}{m.space + 1}" for m in marks)
    stars = sum(m.stars for m in marks)
    return f"{text} +{rules.star_text(stars)}" if stars else text
