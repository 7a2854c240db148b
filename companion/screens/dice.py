"""Settings → Dice: the dice sensor's status, a search for smart dice in reach and pairing one
to a colour, and the paired dice (OK on one forgets it, after asking)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from companion.records.dice import KINDS
from companion.ui.widgets import ChoiceScreen, ConfirmScreen, MenuItem, MenuScreen, is_press

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import BoxTable
    from companion.frame.canvas import Canvas


class DiceScreen(MenuScreen):
    """The status, "Find dice", then each paired die with its charge or "missing"."""

    app: BoxTable

    def __init__(self, app: BoxTable, status: Callable[[], None]) -> None:
        super().__init__(app, "Dice", [])
        self._status = status
        self.on_enter()

    def on_enter(self) -> None:
        dice = self.app.dice
        self.items = [MenuItem("Status", self._status),
                      MenuItem("Find dice", self._find, "..." if dice.searching else "")]
        self.items += [MenuItem(label, partial(self._forget, index, label), detail)
                       for index, (label, detail) in enumerate(dice.paired_rows())]
        self.selected = min(self.selected, len(self.items) - 1)

    def draw(self, canvas: Canvas) -> None:
        self.on_enter()  # a die's charge and connection change while the screen shows
        super().draw(canvas)

    def _find(self) -> None:
        refused = self.app.dice.search()
        if refused:
            self.app.refuse(refused)
        else:
            self.app.push(FoundScreen(self.app))

    def _forget(self, index: int, label: str) -> None:
        app = self.app
        app.push(ConfirmScreen(app, "Forget die", f"Forget {label}? It no longer reads "
                               "the table.", lambda: app.toast(app.dice.forget(index))))


class FoundScreen(MenuScreen):
    """The dice the search found, each with its signal; OK on one asks the colour it is."""

    app: BoxTable
    hint = "▲▼ move  OK pair"

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Find dice", [])

    def _rows(self) -> None:
        self.items = [MenuItem(name, partial(self._pair, index, name), detail)
                      for index, (name, detail) in enumerate(self.app.dice.found_rows())]
        self.selected = min(self.selected, max(0, len(self.items) - 1))

    def draw(self, canvas: Canvas) -> None:
        self._rows()
        dice = self.app.dice
        if dice.searching:
            canvas.line(0, "Searching...")
            canvas.line(1, "Roll each die to wake it")
        elif not self.items:
            canvas.line(0, dice.problem or "No dice found")
            canvas.line(1, "Roll each die to wake it")
            canvas.line(2, "OK: search again")
        else:
            super().draw(canvas)

    def on_button(self, event: ButtonEvent) -> bool:
        self._rows()
        dice = self.app.dice
        if dice.searching:
            return False
        if not self.items and is_press(event, "OK"):
            refused = dice.search()
            if refused:
                self.app.refuse(refused)
            return True
        return super().on_button(event)

    def _pair(self, index: int, name: str) -> None:
        app = self.app

        def pair_as(kind: int) -> None:
            app.pop()
            try:
                app.toast(app.dice.pair(index, KINDS[kind]))
            except ValueError as exc:
                app.refuse(str(exc))

        app.push(ChoiceScreen(app, "Pair as", name, [kind.capitalize() for kind in KINDS],
                              pair_as))
