"""What every Makan Mania screen shares: the game's key, preset names and tray words, question
flows, and the words for the title bar, prices, counts and a turn's gains."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.ui.widgets import (
    Screen,
    StepperScreen,
)

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
    """A drink's price for the current player: dice after discount and/or coins."""
    drink, dice = state.book.by_key[key], rules.dice_price(state, key)
    parts = ([f"{dice}d"] if dice is not None else []) + (
        [f"{drink.coins}¤"] if drink.coins is not None else [])
    return "/".join(parts)


def _count(number: int, one: str, many: str) -> str:
    """A count with its noun: 1 die, 2 dice."""
    return f"{number} {one if number == 1 else many}"


def _gain_text(gained: rules.Gained) -> str:
    """What the table does at the start of a turn: "Take 2¤", "Put 1¤ on 88"."""
    parts = []
    if gained.pot_out:
        parts.append(f"Take 88 pot {gained.pot_out}¤")
    if gained.coins:
        parts.append(f"Take {gained.coins}¤")
    if gained.pot_in:
        parts.append(f"Put {gained.pot_in}¤ on 88")
    if gained.short:
        parts.append(f"pile short {gained.short}¤")
    return ", ".join(parts) or ("Discount turn" if gained.discount else "No table coins")
