"""Miams solo screens: Arthur's sheet and turn, the player's turn, the final scores; the setup
is in :mod:`.setup_screen`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.contract.spec import Screen, running_session
from companion.frame.canvas import LINE_H, TOAST_LINE, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.widgets import (
    ChoiceScreen,
    StepperScreen,
    is_down,
    is_press,
    is_up,
    step_selection,
)
from companion.ui.words import ordinal, plural
from firmware_bridge.events import DiceSettled
from firmware_bridge.faces import RED

from . import coach, ending, rules
from .own_screens import TrackedTurn
from .setup_screen import TITLE, SetupScreen
from .sheet import HEARTS_TRACK, SKEWER_SHORT, SKEWERS, Mark
from .sheet_view import OVERVIEW_NAMES, draw_overview, draw_row_page

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table

OVERVIEW = 0   # the first page of Arthur's sheet; the rows follow
LAST_TURN = f"{TITLE} · last turn!"   # every screen of the player's last turn

__all__ = ["TITLE", "PlayScreen", "SetupScreen", "gift_text", "marks_text"]

# ----- the game ---------------------------------------------------------------------------------

class PlayScreen(Screen):
    """The game's root: what it shows follows the rules' phase (so undo and resume just work).

    Arthur's turn: his sheet, ACTION rolls the red die (OK types in a physical roll). Then his
    turn in words, "cross one space on your sheet", and the player's two questions.
    """

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        self.view = ""
        # Arthur's sheet: the page shown (OVERVIEW, or 1 + a row) and the view to return to
        self.page, self.back_to = OVERVIEW, ""
        self.coach = coach.Coach(app)      # the player's own sheet for the odds, this game only
        self.dice: tuple[str | None, ...] = ()   # the player's dice as the sensor read them
        self.stepper: StepperScreen | None = None
        self.on_state_changed()

    @property
    def state(self) -> rules.State:
        return running_session(self.app.games, rules.State).state

    def on_state_changed(self) -> None:
        phase = self.state.phase
        self.view = {"arthur": "sheet", "player": "turn", "score": "final", "over": "result"}.get(
            phase, "sheet")
        self.dice, self.stepper = (), None  # a read-back belongs to one turn
        own = self.state.own
        if own is not None:  # the coach weighs the open boxes of the sheet the box keeps
            self.coach.follow(own.side.rows)
        self._retitle()

    def _retitle(self) -> None:
        state = self.state
        if self.view == "sheet":
            self.title = f"{TITLE} · Arthur #{state.turns + 1}"  # whose turn, beside every icon
            self.hint = "◆ roll  OK die  ▼ rows"
        elif self.view == "turn":
            # "As soon as a player has filled all 50 Hearts ... take turns until everyone has
            # taken the same number of turns": Arthur's 50 make the player's next turn the last,
            # and every screen of that turn says so.
            self.title = LAST_TURN if ending.is_last_turn(state) else f"{TITLE} · Arthur #{state.turns}"
            self.hint = "OK next  ▼ sheet"
        elif self.view == "cross":
            self.title = LAST_TURN if ending.is_last_turn(state) else f"{TITLE} · your sheet"
            self.hint = "OK turn ▼ odds ▲ sheet"
        elif self.view == "final":
            self.title = f"{TITLE} · game over"
            self.hint = "OK enter your score"
        elif self.view == "result":
            self.title = f"{TITLE} · scores"
            self.hint = "▼ Arthur ▲ my sheet" if state.own is not None else "▼ Arthur's sheet"
        elif self.view == "own-sheet":
            self.title = f"{TITLE} · my sheet"
            self.hint = "OK back"
        elif self.view == "arthur-sheet":
            self.title = f"{TITLE} · Arthur"  # his sheet; "Arthur's sheet" leaves no room for icons
            self.hint = "▲▼ row  OK back"
        elif self.view == "dice":
            self.title = LAST_TURN if ending.is_last_turn(state) else f"{TITLE} · your dice"
            self.hint = "OK next ▼ odds ▲ sheet"

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
            elif is_down(event):
                self._show_rows(1)
            else:
                return False
        elif view == "turn":
            if is_press(event, "OK") or is_press(event, "ACTION"):
                self._show("cross")
            elif is_down(event) and (last := self.state.last) is not None:
                self._show_rows(1 + last.marks[0].row)  # the row he just circled
            else:
                return False
        elif view == "arthur-sheet":
            moved = step_selection(event, self.page, 1 + len(SKEWERS))
            if moved is not None:
                self.page = moved
            elif is_press(event, "BACK") or is_press(event, "OK"):
                self._show(self.back_to)
            else:
                return False
        elif view in ("cross", "dice"):
            if is_press(event, "OK") or is_press(event, "ACTION"):
                self._ask_crosses()
            elif is_down(event):
                self.app.push(coach.OddsScreen(self.app, self.coach))
            elif is_up(event):
                self.app.push(coach.MySheetScreen(self.app, self.coach))
            elif is_press(event, "BACK"):
                self._show("turn" if view == "cross" else "cross")
            else:
                return False
        elif view == "final":
            if is_press(event, "OK"):
                self._ask_score()
            else:
                return False
        elif view == "result":
            if is_down(event):
                self._show_rows(OVERVIEW)
            elif is_up(event) and self.state.own is not None:
                self._show("own-sheet")
            else:
                return False
        elif view == "own-sheet":
            if is_press(event, "OK") or is_press(event, "BACK"):
                self._show("result")
            else:
                return False
        return True

    def on_sensor(self, event: Any) -> None:
        """A settled red die on the sensor is Arthur's roll, recorded like a box roll; in the
        player's turn the dice are read back and their crosses counted for the stepper."""
        if not isinstance(event, DiceSettled):
            return
        if "white" in event.kinds and self.state.phase == "player":
            self._read_back(event)
            return
        if "red" not in event.kinds:
            return
        if self.view != "sheet" or not self.app.on_top(self):
            return
        face = event.faces[event.kinds.index("red")]
        if face in RED:
            self._roll(face, "sensor")
        else:
            self.app.refuse("Red die unclear:\nroll it again")

    def _read_back(self, event: DiceSettled) -> None:
        """Show the player's dice; the crosses stepper starts at the white crosses (OK confirms)."""
        whites = [face for face, kind in zip(event.faces, event.kinds, strict=False) if kind == "white"]
        reds = [face for face, kind in zip(event.faces, event.kinds, strict=False) if kind == "red"]
        self.dice = (*whites, *reds)
        crosses = whites.count("cross")
        if self.stepper is not None and self.app.on_top(self.stepper):
            self.stepper.value = crosses
        elif self.app.on_top(self):
            self._show("dice")

    def _show(self, view: str) -> None:
        self.view = view
        self._retitle()

    def _show_rows(self, page: int) -> None:
        """Arthur's sheet, the overview then a row a page, from ``page``; OK or BACK returns to
        the view shown now."""
        self.back_to, self.page = self.view, page
        self._show("arthur-sheet")

    def _roll(self, face: str, source: str) -> None:
        if self.app.dispatch({"type": "roll", "face": face, "source": source}):
            self.app.beep("tick")
            self.on_state_changed()

    def _ask_face(self) -> None:
        """The red die's faces by the tile's names, each with the skewer it scores: a table
        whose fruits are not named yet ("Stand-in 3") picks by its mini-board's skewer."""
        tile = rules.options_of(self.state).tile
        labels = [tile.names[f] for f in RED]
        skewers = [OVERVIEW_NAMES[SKEWERS[tile.skewer_of[f]]] for f in RED]

        def chosen(index: int) -> None:
            self.app.pop()
            self._roll(RED[index], "hand")

        self.app.push(ChoiceScreen(self.app, f"{TITLE} · red die", "Arthur's die shows:",
                                   labels, chosen, details=skewers))

    def _ask_crosses(self) -> None:
        """The crosses on the player's dice, then whether their track is full: asked only when
        it could be (rules.player_may_fill), so an early quiet turn is one press."""
        app = self.app
        state = self.state
        title = LAST_TURN if ending.is_last_turn(state) else f"{TITLE} · you #{state.player_turns + 1}"

        def filled(crosses: int, index: int) -> None:
            app.pop()
            self._send_turn({"type": "player", "crosses": crosses, "filled": index == 1})

        def crosses_set(crosses: int) -> None:
            if not ending.player_may_fill(self.state, max(self.coach.hearts)):
                filled(crosses, 0)
                return
            app.push(ChoiceScreen(app, title, "Your hearts track:",
                                  ["Not full yet", "All 50 filled"],
                                  lambda index: filled(crosses, index)), replace=True)

        start = min(5, self.dice[:5].count("cross")) if self.dice else 0
        if state.own is not None:  # the box keeps the player's sheet: ask what they marked
            TrackedTurn(app, state, title, start, self._send_turn).start()
            return
        self.stepper = StepperScreen(app, title, "Crosses on your dice", start, 0, 5, crosses_set)
        app.push(self.stepper)

    def _send_turn(self, action: dict[str, Any]) -> bool:
        """The player's turn to the rules; the crosses it gave Arthur in a toast."""
        if not self.app.dispatch(action):
            return False
        self.on_state_changed()
        if self.state.gift:
            self.app.toast(*gift_text(self.state.gift))
        if self.state.phase == "over":
            self.app.beep("ok")
        return True

    def _ask_score(self) -> None:
        app = self.app
        hearts_start = HEARTS_TRACK if self.state.player_filled else 0

        def stars_set(hearts: int, stars: int) -> None:
            app.pop()
            if app.dispatch({"type": "score", "hearts": hearts, "stars": stars}):
                app.beep("ok")
                self.on_state_changed()

        def hearts_set(hearts: int) -> None:
            app.push(StepperScreen(app, f"{TITLE} · your score", "Your stars", 0, 0, 999,
                                   lambda stars: stars_set(hearts, stars)), replace=True)

        app.push(StepperScreen(app, f"{TITLE} · your score", "Your filled hearts", hearts_start, 0,
                               HEARTS_TRACK, hearts_set))

    # ----- drawing -----
    def draw(self, canvas: Canvas) -> None:
        state = self.state
        options = state.options
        view = self.view
        if options is None:  # a journal cut off before its setup entry
            canvas.paragraph("No game set up. Hold OK for the menu.", 1)
        elif view == "sheet":
            draw_overview(canvas, options.sheet, state.arthur)
        elif view == "arthur-sheet":
            if self.page == OVERVIEW:
                draw_overview(canvas, options.sheet, state.arthur)
            else:
                row = self.page - 1
                draw_row_page(canvas, options.sheet.rows[row], state.arthur.rows[row], row)
        elif view == "turn" and state.last is not None:  # the turn view follows his turn
            self._draw_turn(canvas, options, state.last)
        elif view == "cross":
            canvas.paragraph("Arthur crosses too: cross one space on your sheet", 0)
            # on the last turn that news takes the place of the reminder of why
            last = ending.is_last_turn(state)
            canvas.center(3 * LINE_H + 2, "Then your last turn!" if last else "(as for one ✗ face)")
        elif view == "dice":
            self._draw_dice(canvas, options)
        elif view == "final":
            who = "You filled your 50!" if state.player_filled else "Arthur filled his 50!"
            canvas.center(1, who)
            canvas.center(LINE_H + 3, "Equal turns played.")
            canvas.center(2 * LINE_H + 5, "Count your hearts")
            canvas.center(3 * LINE_H + 5, "and stars.")
        elif view == "result":
            self._draw_result(canvas, state)
        elif view == "own-sheet" and state.own is not None:
            draw_overview(canvas, options.sheet, state.own.shown())

    @staticmethod
    def _draw_turn(canvas: Canvas, options: rules.Options, turn: rules.Turn) -> None:
        circled = turn.marks[0]
        skewer = SKEWER_SHORT[SKEWERS[circled.row]]
        canvas.center(0, f"Red die: {options.tile.names[turn.face]}")
        # the space's place as an ordinal ("3rd space"), never a bare number a table could take
        # for the hearts printed in it; the hearts it gives follow as "+4♥"
        where = "row full" if circled.space < 0 else f"{ordinal(circled.space + 1)} space"
        canvas.center(LINE_H, f"{skewer}: {where}")
        gain = f"+{circled.hearts}♥"
        if circled.stars:
            gain += f" {rules.star_text(circled.stars)}"
        canvas.big(2 * LINE_H + 1, gain)
        if circled.tokens:
            # the token itself is discarded; what the table sees is where its crosses went
            token = options.sheet.rows[circled.row].bonuses[circled.space].label()
            crossed = turn.marks[1:]
            # the spaces by name, else by the overview's short names ("3-kind 2nd"), else
            # counted: the sheet (▼) shows where they went
            lines = [f"{token}: ✗ {marks_text(crossed, names)}" for names in (SKEWER_SHORT, OVERVIEW_NAMES)]
            line = next((text for text in lines if SMALL.width(text) <= WIDTH),
                        f"{token}: ✗ {plural(len(crossed), 'space')}")
            if not crossed:
                line = f"{token}: no space left"
            canvas.center(4 * LINE_H, line)

    def _draw_dice(self, canvas: Canvas, options: rules.Options) -> None:
        names = options.tile.names
        shown = ["✗" if face == "cross" else names.get(face, "?") if face else "?" for face in self.dice]
        # the five white dice, then the red one after "red"
        text = "  ".join(shown[:5]) + (f"  red {shown[5]}" if len(shown) > 5 else "")
        below = canvas.paragraph(text, 0)
        crosses = self.dice[:5].count("cross")
        canvas.center(below * LINE_H + 2, f"✗ {crosses}", MEDIUM)

    @staticmethod
    def _draw_result(canvas: Canvas, state: rules.State) -> None:
        if state.player_score is None:  # the result follows the player's score
            return
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


def gift_text(gift: tuple[Mark, ...]) -> tuple[str, ...]:
    """The crosses the player's dice gave Arthur as the lines of a two-line toast: each space
    by name and place, never split over two lines ("Pair 4th"), by the short names if need be
    ("Full 4th"), or, when even they would not fit, how many and where to see them."""
    stars = sum(m.stars for m in gift)
    gained = f" +{rules.star_text(stars)}" if stars else ""
    for names in (SKEWER_SHORT, OVERVIEW_NAMES):
        items = [f"{names[SKEWERS[m.row]]} {ordinal(m.space + 1)}" for m in gift]
        items[-1] += gained
        for lines in (SMALL.wrap_items([f"Arthur crosses {items[0]}", *items[1:]], TOAST_LINE),
                      ["Arthur crosses", *SMALL.wrap_items(items, TOAST_LINE)]):
            if len(lines) <= 2 and all(SMALL.width(line) <= TOAST_LINE for line in lines):
                return tuple(lines)
    counted = f"{plural(len(gift), 'space')}{gained}"
    return ("Arthur crosses", SMALL.first_fit((f"{counted} (▼ rows)", counted), TOAST_LINE))


def marks_text(marks: tuple[Mark, ...], names: Mapping[str, str] = SKEWER_SHORT) -> str:
    """Crosses in words, e.g. ``Pair 3rd, 3 of a kind 1st +★★``: skewer and the space's place
    (an ordinal, never a number that could be read as its hearts), then stars."""
    text = ", ".join(f"{names[SKEWERS[m.row]]} {ordinal(m.space + 1)}" for m in marks)
    stars = sum(m.stars for m in marks)
    return f"{text} +{rules.star_text(stars)}" if stars else text
