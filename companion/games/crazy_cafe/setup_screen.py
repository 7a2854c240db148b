"""The Café's setup screen: The Next Level, special menus, how dice are rolled, round length."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from companion.contract.rules import Action
from companion.contract.spec import Screen
from companion.ui.widgets import MenuItem, MenuScreen, StepperScreen

from . import rules
from .options import BAR
from .rules import KINDS
from .view import DICE_NAMES, mmss, setting

if TYPE_CHECKING:
    from collections.abc import Callable

    from companion.contract.spec import Table


_CHOICES = ("double_trouble", "special_menus", "dice", "seconds")
# One draft per box (the screen is made anew each time it opens); gone when the box stops.
_DRAFTS: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


class SetupScreen(MenuScreen):
    """Start first, then the choices: The Next Level, special menus, dice, round length."""

    wraps = False
    # The choices (_CHOICES), kept per table between visits.
    double_trouble: bool
    special_menus: bool
    dice: str
    seconds: int

    def __init__(self, app: Table) -> None:
        super().__init__(app, f"{BAR} · setup", [])
        # The table's last choices on this box (BACK and back in keeps them).
        self.__dict__.update(_DRAFTS.get(app) or {
            "double_trouble": False, "special_menus": False, "dice": "box",
            "seconds": int(setting(app, "round_seconds"))})
        self.on_enter()

    def on_enter(self) -> None:
        _DRAFTS[self.app] = {key: getattr(self, key) for key in _CHOICES}
        on_off = {True: "On", False: "Off"}
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Double Trouble", self._toggle("double_trouble"), on_off[self.double_trouble]),
            MenuItem("Special menus", self._toggle("special_menus"), on_off[self.special_menus]),
            MenuItem("Dice", self._next_dice, DICE_NAMES[self.dice]),
            MenuItem("Round", self._next_length, mmss(self.seconds)),
        ]

    def _toggle(self, name: str) -> Callable[[], None]:
        def flip() -> None:
            setattr(self, name, not getattr(self, name))
            self.on_enter()

        return flip

    def _next_dice(self) -> None:
        # Sensor dice only when a sensor is configured: without one no roll would ever arrive.
        modes = [m for m in rules.DICE_MODES if m != "sensor" or self.app.sensor.configured]
        self.dice = modes[(modes.index(self.dice) + 1) % len(modes)] if self.dice in modes else modes[0]
        self.on_enter()

    def _next_length(self) -> None:
        """UP/DOWN change the length by 30 s, 1:00 to 10:00."""
        def chosen(seconds: int) -> None:
            self.seconds = seconds
            self.app.pop()
            self.on_enter()

        low, high = rules.ROUND_S_RANGE
        self.app.push(StepperScreen(self.app, f"{BAR} · setup", "Round length", self.seconds,
                                    low, high, chosen, step=30, shown=mmss))

    def _start(self) -> None:
        action: Action = {"type": "setup", "round_seconds": self.seconds,
                          "double_trouble": self.double_trouble,
                          "special_menus": self.special_menus, "dice": self.dice,
                          "standing_double": setting(self.app, "standing_double")}
        if self.dice == "box":
            # "Roll all 4 dice once": the setup roll, never a Double Trouble.
            action["faces"] = [self.app.rng.choice(rules.FACES_OF[k]) for k in KINDS]
        app = self.app
        if app.games.shown():
            # A saved game that never got its setup (journals from before the setup became
            # final), shown by this screen as its root: set this one up rather than starting
            # another. (A setup opened from the home menu is no game's root: none is shown.)
            if app.dispatch(action):
                app.games.resume()
            return
        app.games.start("cafe", action)


def new_game(app: Table) -> Screen:
    return SetupScreen(app)
