"""What every Makan Mania screen shares: the game's root screen as its views see it
(:class:`Root`, :class:`View`), the game's key, preset names and tray words, question flows, and
the words for the title bar, prices, dice and what a turn gives."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.contract.spec import Screen, running_session
from companion.ui.widgets import MessageScreen, StepperScreen
from companion.ui.words import plural

from . import rules

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table
    from companion.frame.canvas import Canvas


KEY = "makan"
ABILITY_TEXT = {
    "private_drink": "private drink", "jump_88": "jump to 88", "jump_1": "jump to 1",
    "double": "double table", "face_bonus": "face points", "drink_bonus": "drink points",
}
FOOD_MAX = 150


class Root(Screen):
    """The game's root screen as its views see it: the state, where the table is on the
    screen (the row chosen, the round whose scoreboard was seen, the Queue's page, the turns
    whose gains were taken, when the turn came on screen), and playing an action."""

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        self.board_seen = 1   # the round whose scoreboard was closed with OK
        self.selected = 0     # drink in the Queue, player at scoring
        self.drinks_open = False  # the Queue shows the turn first, its drinks a press away
        self.taken: set[tuple[int, int]] = set()
        self.turn_shown_at = app.clock.now()

    @property
    def state(self) -> rules.State:
        return running_session(self.app.games, rules.State).state

    def rows(self) -> int:
        """The rows UP and DOWN go through: the drinks on sale in the Queue, else the players."""
        s = self.state
        if s.phase == "queue":
            return len(rules.visible_slots(s, rules.turn_of(s)))
        return len(s.players)

    def on_enter(self) -> None:
        self.selected = max(0, min(self.selected, self.rows() - 1))

    def commit(self, action: dict[str, Any]) -> bool:
        """Play ``action`` from the root (the questions over it are over with)."""
        self.app.pop_to(self)
        phase, turn = self.state.phase, self.state.turn
        done = self.app.dispatch(action)
        if done:
            self.app.beep("tick")
            if self.state.phase != phase:
                self.selected, self.drinks_open = 0, False   # a new step starts at its top
            if (self.state.phase, self.state.turn) != (phase, turn):
                self.turn_shown_at = self.app.clock.now()   # see TURN_SEEN_S
            self.on_enter()
        return done

    def notice(self, title: str, lines: list[str]) -> None:
        """Something the table must do (move trays, take coins, pick again): it waits for OK,
        and that OK is the press that shows the next turn was seen (see TURN_SEEN_S)."""
        self.app.push(MessageScreen(self.app, title, lines))
        self.turn_shown_at = -math.inf


class View:
    """One view of the root screen: what it shows and what its buttons do. Made for one draw
    or one press; a button a view has no use for is left to the box (False)."""

    hint = ""

    def __init__(self, root: Root) -> None:
        self.root, self.app = root, root.app

    @property
    def state(self) -> rules.State:
        return self.root.state

    def draw(self, canvas: Canvas) -> None:
        raise NotImplementedError

    def ok(self) -> bool:
        return False

    def action(self) -> bool:
        return False

    def back(self) -> bool:
        return False

    def move(self, event: ButtonEvent) -> bool:
        """UP or DOWN."""
        return False


def _ask_numbers(app: Table, questions: list[tuple[str, str, int, int]],
                 on_done: Callable[[list[int]], None]) -> None:
    """Ask (title, prompt, start, high) numbers one after another; BACK returns to the last one."""
    answers: list[int] = []

    def ask(k: int) -> None:
        title, prompt, start, high = questions[k]

        def answered(value: int) -> None:
            del answers[k:]
            answers.append(value)
            if k + 1 < len(questions):
                ask(k + 1)
            else:
                on_done(answers)

        app.push(StepperScreen(app, title, prompt, start, 0, high, answered))

    ask(0)


def _where(state: rules.State) -> str:
    """The title bar's start on every game screen: game and round (UX: say where we are)."""
    return f"Makan R{state.round}" if state.phase in ("reveal", "rush", "jumps", "queue") else "Makan"


def _price(state: rules.State, key: str) -> str:
    """A drink's price for the current player: dice after discount, in words so a die is never
    taken for a coin, and/or coins."""
    drink, dice = state.book.by_key[key], rules.dice_price(state, key)
    parts = ([plural(dice, 'die')] if dice is not None else []) + (
        [f"{drink.coins}¤"] if drink.coins is not None else [])
    return "/".join(parts)


def _turn_steps(state: rules.State, taken: bool = False) -> list[str]:
    """What the table does now for the player whose turn it is, one short line each: the coins
    their table and drinks take from the pile (Table 88's pot coin comes from the pile too, not
    from the player), the bonus die, and the dice discount left for their drinks. A gain the
    pile could not pay says so on its own line; once ``taken`` (the table moved on to the
    drinks) the gains read as done, so nobody takes them twice."""
    gained = state.gained
    tick = "✓ " if taken else ""
    steps = []
    if gained.pot_out:
        steps.append(f"{tick}{'Took' if taken else 'Take'} the 88 pot: {gained.pot_out}¤")
    if gained.coins:
        steps.append(f"✓ Took {gained.coins}¤ from pile" if taken
                     else f"Take {gained.coins}¤ from the pile")
    if gained.short:
        steps.append(f"Pile empty: {gained.short}¤ unpaid")
    if gained.pot_in:
        steps.append(f"{tick}88 pot +{gained.pot_in}¤ from pile")
    if gained.pot_short:
        steps.append("Pile empty: no 88 coin")
    if gained.bonus:
        dice = plural(gained.bonus, "bonus die", "bonus dice")
        steps.append(f"✓ {dice} for R{state.round + 1}" if taken
                     else f"Take {dice} (R{state.round + 1})")
    if state.discount:
        steps.append(f"{plural(state.discount, 'die')} discount left")
    return steps or ["Nothing to take"]


def unspent_words(name: str, dice: int, got: int) -> list[str]:
    """What the table does at the end of a turn: "For each leftover die unspent during your
    turn, earn 1 coin", paid from the pile as far as it goes, and said when it cannot."""
    lines = [f"{name}:", f"{plural(dice, 'unspent die', 'unspent dice')},"]
    if not got:
        return [*lines, "no coin: pile is empty"]
    lines.append(f"take {plural(got, 'coin')} from pile")
    return lines if got == dice else [*lines, f"pile empty, {dice - got} unpaid"]
