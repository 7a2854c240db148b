"""What every Makan Mania screen shares: the game's key, preset names and tray words, question
flows, and the words for the title bar, prices, dice and what a turn gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.ui.widgets import (
    Screen,
    StepperScreen,
)
from companion.ui.words import plural

from . import rules

if TYPE_CHECKING:
    from companion.games.base import Table


KEY = "makan"
ABILITY_TEXT = {
    "private_drink": "private drink", "jump_88": "jump to 88", "jump_1": "jump to 1",
    "double": "double table", "face_bonus": "face points", "drink_bonus": "drink points",
}
FOOD_MAX = 150


def _back_to(app: Table, screen: Screen) -> None:
    """Close the question screens a flow pushed, back to ``screen``."""
    while app.stack[-1] is not screen and len(app.stack) > 1:
        app.pop()


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
