"""Dice and orders during a round: an order done (which side, which dice were on it) and the
list of dice on orders with the +/- corrections of the order counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.contract.rules import Action
from companion.ui.widgets import ChoiceScreen, MenuItem, MenuScreen, is_press

from . import rules
from .timer import TimesUpScreen, _reroll, act, roll_freed
from .view import FACE_LABELS, ShowsClock, _state

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table


def _order_done(app: Table, side: str, dice: tuple[int, ...] | None) -> None:
    action: Action = {"type": "order_done", "side": side, "at": app.clock.now()}
    if dice is not None:
        action["dice"] = list(dice)
    if act(app, action):
        state = _state(app)
        app.beep("ok")
        if state.phase != "running":  # the last open order: the round is done, say so
            app.push(TimesUpScreen(app, state.rounds[-1]))
        elif state.to_roll and rules.setup_of(state).dice == "box":
            roll_freed(app)


def start_order_done(app: Table) -> None:
    """ACTION (or hold ACTION): which side, which dice, then the order is done."""
    state = _state(app)
    if state.phase != "running":
        app.refuse("Paused: press OK\nto go on" if state.phase == "paused" else "No round running")
        return

    def with_side(side: str) -> None:
        if rules.setup_of(state).dice == "manual":
            _order_done(app, side, None)
        else:
            app.push(DicePickScreen(app, side))

    if state.light and state.dark:
        def choose(index: int) -> None:
            app.pop()
            with_side(rules.SIDES[index])

        app.push(SideScreen(app, "Order done", "Which side was it?", ["Light side", "Dark side"],
                            choose))
    else:
        with_side("light" if state.light else "dark")


class SideScreen(ShowsClock, ChoiceScreen):
    """Which side the order done was on, with the time left."""


class TableScreen(ShowsClock, MenuScreen):
    """Dice on orders (box and sensor dice) and +/- order corrections; BACK returns."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Dice & orders", [])
        self.hint = "OK change  ◆ roll dice" if rules.setup_of(_state(app)).dice == "box" else (
            "OK change  BACK back")
        self.on_enter()

    def on_enter(self) -> None:
        app = self.app
        state = _state(app)
        if state.phase not in ("running", "paused"):
            self.items = []
            return
        items: list[MenuItem] = []
        if rules.setup_of(state).dice != "manual":
            for i in range(4):
                face = FACE_LABELS.get(state.faces[i] or "", "?")
                items.append(MenuItem(f"Die {i + 1} {face}", self._toggle(i),
                                      "on order" if state.placed[i] else "free"))
        for sign, verb in (("+", "add_order"), ("-", "remove_order")):
            for side in rules.SIDES:
                items.append(MenuItem(f"{sign}1 {side} order", self._correct(verb, side),
                                      str(state.light if side == "light" else state.dark)))
        # Last, so UP from the top reaches it: the same as hold ACTION, in every dice mode.
        items.append(MenuItem("Order done", self._order_done, "hold◆"))
        self.items = items
        self.selected = min(self.selected, len(items) - 1)

    def _toggle(self, die: int) -> Any:
        def toggle() -> None:
            placed = not _state(self.app).placed[die]
            act(self.app, {"type": "place", "die": die, "placed": placed})
            self.on_enter()

        return toggle

    def _order_done(self) -> None:
        self.app.pop()
        start_order_done(self.app)

    def _correct(self, verb: str, side: str) -> Any:
        def correct() -> None:
            act(self.app, {"type": verb, "side": side})
            self.on_enter()

        return correct

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "ACTION") and rules.setup_of(_state(self.app)).dice == "box":
            self.app.pop()
            _reroll(self.app)
            return True
        if not self.items:
            return False
        return super().on_button(event)


class DicePickScreen(ShowsClock, MenuScreen):
    """Order done with box or sensor dice: which dice were on it (they are rolled again)."""

    hint = "OK tick  ◆ confirm"

    def __init__(self, app: Table, side: str) -> None:
        super().__init__(app, "Which dice?", [])
        self.side = side
        state = _state(app)
        self.picked = {i for i in range(4) if state.placed[i]}
        if len(self.picked) > 1:
            self.picked = set()  # dice may lie on several orders: ask, do not guess
        self.on_enter()

    def on_enter(self) -> None:
        state = _state(self.app)
        items = []
        for i in range(4):
            face = FACE_LABELS.get(state.faces[i] or "", "?")
            mark = "✓" if i in self.picked else ("on order" if state.placed[i] else "")
            items.append(MenuItem(f"Die {i + 1} {face}", self._tick(i), mark))
        items.append(MenuItem("Order done", self._confirm))
        self.items = items

    def _tick(self, die: int) -> Any:
        def tick() -> None:
            self.picked ^= {die}
            self.on_enter()

        return tick

    def _confirm(self) -> None:
        if not self.picked:
            # "... and at least one dice!": stay here, with the clock running behind.
            self.app.refuse("Tick the dice on it:\nat least one")
            return
        self.app.pop()
        _order_done(self.app, self.side, tuple(sorted(self.picked)))

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "ACTION"):
            self._confirm()
            return True
        return super().on_button(event)
