"""The player's turn when the box keeps their sheet ("Track my sheet too"): what they crossed for
Arthur, the crosses on their dice, what they scored and the stars they paid, asked one after
the other and sent as one ``player`` action (docs/miams.md#both-sheets-track-my-sheet-too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from companion.contract.rules import RuleError
from companion.ui.widgets import ChoiceScreen, StepperScreen
from companion.ui.words import ordinal

from . import rules
from .own_sheet import CATCH_UP, MAX_PAID, OwnSheet, free_rows
from .sheet import SKEWER_SHORT, SKEWERS, Sheet

if TYPE_CHECKING:
    from companion.contract.spec import Table

NOTHING = "Nothing"


def next_space(sheet: Sheet, own: OwnSheet, row: int) -> str:
    """A row's next free space on the player's sheet, "3rd 2♥", or "end 3♥" once it is full."""
    layout, marked = sheet.rows[row], len(own.side.rows[row])
    if marked >= len(layout.hearts):
        return f"end {layout.end}♥"
    return f"{ordinal(marked + 1)} {layout.hearts[marked]}♥"


class TrackedTurn:
    """The questions of one tracked turn, each screen replacing the last; ``send`` dispatches
    the turn's action and says whether the rules took it."""

    def __init__(self, app: Table, state: rules.State, title: str, crosses: int,
                 send: Callable[[dict[str, Any]], bool]) -> None:
        assert state.own is not None  # asked only in a game that keeps the player's sheet
        self.app, self.state, self.own, self.title = app, state, state.own, title
        self.sheet = rules.options_of(state).sheet
        self.crosses_start, self.send = crosses, send
        self.turn: dict[str, Any] = {"type": "player"}

    def start(self) -> None:
        """Which row the player crossed for Arthur's turn (skipped when every row is full)."""
        free = free_rows(self.sheet, self.own.side)
        if not free:
            self._ask_crosses(replace=False)
            return

        def chosen(index: int) -> None:
            self.turn["crossed"] = SKEWERS[free[index]]
            self._ask_crosses(replace=True)

        self.app.push(ChoiceScreen(
            self.app, self.title, "I crossed for Arthur:",
            [SKEWER_SHORT[SKEWERS[row]] for row in free], chosen,
            details=[next_space(self.sheet, self.own, row) for row in free]))

    def _ask_crosses(self, replace: bool) -> None:
        def crosses_set(crosses: int) -> None:
            self.turn["crosses"] = crosses
            self._ask_scored()

        self.app.push(StepperScreen(self.app, self.title, "Crosses on your dice",
                                    self.crosses_start, 0, 5, crosses_set), replace=replace)

    def _ask_scored(self) -> None:
        """The skewer circled, a Catch-up space, or nothing (each row with its next space)."""
        left = [i for i in range(len(self.sheet.catch_up)) if i not in self.own.catch_up]
        labels = [SKEWER_SHORT[skewer] for skewer in SKEWERS]
        details = [next_space(self.sheet, self.own, row) for row in range(len(SKEWERS))]
        if left:
            labels.append("Catch-up space")
            details.append(f"{len(left)} free")
        labels.append(NOTHING)

        def chosen(index: int) -> None:
            if index < len(SKEWERS):
                self.turn["scored"] = SKEWERS[index]
            elif labels[index] != NOTHING:
                self._ask_catch_up(left)
                return
            self._ask_paid()

        self.app.push(ChoiceScreen(self.app, self.title, "I scored:", labels, chosen,
                                   details=details), replace=True)

    def _ask_catch_up(self, left: list[int]) -> None:
        def chosen(index: int) -> None:
            self.turn["scored"], self.turn["catch_up"] = CATCH_UP, left[index]
            self._ask_paid()

        bonuses = [self.sheet.catch_up[i].label() or "no bonus" for i in left]
        self.app.push(ChoiceScreen(self.app, self.title, "Catch-up space:",
                                   [f"Catch-up {ordinal(i + 1)}" for i in left], chosen,
                                   details=bonuses), replace=True)

    def _ask_paid(self) -> None:
        """The stars paid in the Buy phase, asked only when the player holds some after the
        turn's marks (the rules work them out: the box never counts stars twice)."""
        try:
            held = rules.apply(self.state, self.turn).own
        except RuleError as exc:
            self.app.pop()
            self.app.refuse(str(exc))
            return
        stars = held.stars if held is not None else 0
        if stars <= 0:
            self._send(0)
            return
        self.app.push(StepperScreen(self.app, self.title, "Stars paid to buy", 0, 0,
                                    min(stars, MAX_PAID), self._send, unit="★"), replace=True)

    def _send(self, paid: int) -> None:
        self.app.pop()
        if paid:
            self.turn["paid"] = paid
        self.send(self.turn)
