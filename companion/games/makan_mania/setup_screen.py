"""Makan Mania's quick setup: players, names, trays, drinks entered or dealt, house options,
checked against the data files the config names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import ConfigError
from companion.ui.widgets import (
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    StepperScreen,
)

from . import data, rules
from .view import ABILITY_TEXT, KEY, PRESET_NAMES, _back_to

if TYPE_CHECKING:
    from companion.games.base import Table


class SetupScreen(MenuScreen):
    """Start at once with the shown defaults, or change players, names, trays or drink mode."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Makan Mania setup", [])
        self.count = 4
        self.preset = True
        self.deal = False
        # The data files are read here, not at import: a bad file is shown, never a crash.
        settings = app.config.games.get(KEY, {})
        self.problem = ""
        try:
            self.tray_cards = data.load_trays(settings.get("trays") or data.TRAYS_FILE)
            drinks_file = settings.get("drinks") or data.DRINKS_FILE
            self.drinks = data.load_drinks(drinks_file)
            self.stand_in = [f"{t.colour} tray" for t in self.tray_cards if not t.printed]
            if not data.copies_printed(drinks_file):
                self.stand_in.append("deck copies")
        except ConfigError as exc:
            self.problem = f"{Path(exc.path).name}: {exc.key}"
            self.tray_cards, self.drinks, self.stand_in = (), (), []
        self.trays = [t.colour for t in self.tray_cards]
        if self.problem or self.stand_in:  # never shown as fact: the table checks its cards
            self.title = "Makan Mania ⚠ bad data" if self.problem else "Makan Mania ⚠ stand-in"
        self.trays_chosen = False
        self.on_enter()

    def names(self) -> list[str]:
        return [PRESET_NAMES[i] if self.preset else f"P{i + 1}" for i in range(self.count)]

    def on_enter(self) -> None:
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Players", self._players, str(self.count)),
            MenuItem("Names", self._toggle_names, "Ana.." if self.preset else "P1.."),
            MenuItem("Trays", self._pick_trays, "chosen" if self.trays_chosen else "in order"),
            MenuItem("Drinks", self._toggle_deal, "box deals" if self.deal else "enter"),
        ]
        if self.problem or self.stand_in:
            self.items.append(MenuItem("⚠ Bad data file" if self.problem else "⚠ Stand-in values",
                                       self._explain_data))

    def _explain_data(self) -> None:
        if self.problem:
            self.app.toast(self.problem[:21], "see companion doctor")
        else:
            self.app.toast("Trays, deck: check", "docs/makan_mania.md")

    def action(self) -> dict[str, Any]:
        """The setup action these choices make, with the [games.makan] house rules."""
        settings = self.app.config.games.get(KEY, {})
        options = {k: v for k, v in settings.items() if k in rules.Options.CHOICES or k == "coin_supply"}
        ability = {t.colour: t.ability for t in self.tray_cards}
        players = [{"name": n, "tray": t, "ability": ability[t]}
                   for n, t in zip(self.names(), self.trays, strict=False)]
        return {"type": "setup", "players": players, "drinks": "deal" if self.deal else "enter",
                "options": options, "drink_table": [d.as_dict() for d in self.drinks],
                "stand_in": self.stand_in}

    def _start(self) -> None:
        if self.problem:
            self._explain_data()
            return
        self.app.new_game(self.app.games[KEY], self.action())

    def _players(self) -> None:
        def chosen(value: int) -> None:
            self.count = value
            self.app.pop()

        self.app.push(StepperScreen(self.app, "Makan · Players", "How many players?", self.count, 2, 6,
                                    chosen))

    def _toggle_names(self) -> None:
        self.preset = not self.preset
        self.on_enter()

    def _toggle_deal(self) -> None:
        self.deal = not self.deal
        self.on_enter()

    def _pick_trays(self) -> None:
        names, picked = self.names(), []

        def ask(k: int) -> None:
            free = [t for t in self.tray_cards if t.colour not in picked[:k]]

            def chosen(index: int) -> None:
                del picked[k:]
                picked.append(free[index].colour)
                if k + 1 < self.count:
                    ask(k + 1)
                else:
                    self.trays = picked + [t.colour for t in self.tray_cards if t.colour not in picked]
                    self.trays_chosen = True
                    _back_to(self.app, self)
                    self.on_enter()

            # "?": the colour-to-ability link is a stand-in, not read from a printed card
            labels = [f"{t.name}: {ABILITY_TEXT[t.ability]}{'' if t.printed else '?'}" for t in free]
            self.app.push(ChoiceScreen(self.app, f"Makan · {names[k]}'s tray", "Tray colour:", labels,
                                       chosen))

        ask(0)
