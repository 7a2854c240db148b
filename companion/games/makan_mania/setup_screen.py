"""Makan Mania's quick setup: players, their names (from the roster of recent players or
typed), trays, drinks typed in or dealt, house options, checked against the data files the
config names."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.config import ConfigError
from companion.contract.names import MAX_LETTERS, same_name, unique_names
from companion.frame.font import SMALL
from companion.ui.name_editor import COMMON_NAMES, NamePicker
from companion.ui.widgets import (
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    StepperScreen,
)

from . import data, rules
from .view import ABILITY_TEXT, KEY

if TYPE_CHECKING:
    from companion.contract.spec import Table

MAX_PLAYERS = 6


@dataclass
class Choices:
    """What the table chose on the setup screen; kept while the box runs, so leaving the
    screen and coming back (or the next game) starts from the same choices."""

    count: int = 4
    names: list[str] = field(default_factory=list)   # one per possible seat, all different
    trays: list[str] = field(default_factory=list)   # tray colours in seat order
    trays_chosen: bool = False
    deal: bool = False


# One draft per box (the screen is made anew each time it opens); gone when the box stops.
_DRAFTS: weakref.WeakKeyDictionary[Any, Choices] = weakref.WeakKeyDictionary()


def _choices(app: Table, colours: list[str]) -> Choices:
    """The box's draft, or a new one: the last players' names first, then common names."""
    draft = _DRAFTS.get(app)
    if draft is None:
        names = unique_names([*app.games.roster_names(), *COMMON_NAMES])
        draft = _DRAFTS[app] = Choices(names=[n for n in names if len(n) <= MAX_LETTERS][:MAX_PLAYERS])
    if sorted(draft.trays) != sorted(colours):  # the trays file changed since: file order again
        draft.trays, draft.trays_chosen = list(colours), False
    return draft


def _names_shown(names: list[str], width: int) -> str:
    """As many whole names as fit in ``width`` pixels, then how many more: "Ana Ben +2"."""
    for shown in range(len(names), 0, -1):
        text = " ".join(names[:shown]) + (f" +{len(names) - shown}" if shown < len(names) else "")
        if SMALL.width(text) <= width:
            return text
    return f"+{len(names)}"


class SetupScreen(MenuScreen):
    """Start at once with the shown choices, or change players, names, trays or drink mode."""

    wraps = False

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Makan Mania setup", [])
        # The data files are read here, not at import: a bad file is shown, never a crash.
        settings: dict[str, Any] = app.config.games.get(KEY, {})
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
        self.chosen = _choices(app, [t.colour for t in self.tray_cards])
        if self.problem or self.stand_in:  # never shown as fact: the table checks its cards
            self.title = "Makan ⚠ bad data" if self.problem else "Makan ⚠ stand-in"
        self.on_enter()

    @property
    def count(self) -> int:
        return self.chosen.count

    @property
    def trays(self) -> list[str]:
        return self.chosen.trays

    def names(self) -> list[str]:
        return self.chosen.names[:self.count]

    def on_enter(self) -> None:
        chosen = self.chosen
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Players:", self._players, str(chosen.count)),
            MenuItem("Names:", self._edit_names, _names_shown(self.names(), 80)),
            MenuItem("Trays:", self._pick_trays, "picked" if chosen.trays_chosen else "file order"),
            MenuItem("Drinks:", self._toggle_deal, "box deals" if chosen.deal else "I type them in"),
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
        settings: dict[str, Any] = self.app.config.games.get(KEY, {})
        options = {k: v for k, v in settings.items() if k in rules.Options.CHOICES or k == "coin_supply"}
        ability = {t.colour: t.ability for t in self.tray_cards}
        players = [{"name": n, "tray": t, "ability": ability[t]}
                   for n, t in zip(self.names(), self.trays, strict=False)]
        return {"type": "setup", "players": players, "drinks": "deal" if self.chosen.deal else "enter",
                "options": options, "drink_table": [d.as_dict() for d in self.drinks],
                "stand_in": self.stand_in}

    def _start(self) -> None:
        if self.problem:
            self._explain_data()
            return
        if self.chosen.deal:  # a deck too small for 5 rounds is refused now, not in round 3
            ability = {t.colour: t.ability for t in self.tray_cards}
            private = "private_drink" in (ability[t] for t in self.trays[:self.count])
            problem = data.deck_problem(self.drinks, self.count, private, rules.ROUNDS)
            if problem:
                self.app.refuse(problem)
                return
        self.app.games.start(KEY, self.action())

    def _players(self) -> None:
        def chosen(value: int) -> None:
            self.chosen.count = value
            self.app.pop()

        self.app.push(StepperScreen(self.app, "Makan · Players", "How many players?", self.count, 2,
                                    MAX_PLAYERS, chosen))

    def _edit_names(self) -> None:
        self.app.push(NamesScreen(self.app, self.chosen))

    def _toggle_deal(self) -> None:
        self.chosen.deal = not self.chosen.deal
        self.on_enter()

    def _pick_trays(self) -> None:
        names = self.names()
        picked: list[str] = []  # the colours chosen so far, in order

        def ask(k: int) -> None:
            free = [t for t in self.tray_cards if t.colour not in picked[:k]]

            def chosen(index: int) -> None:
                del picked[k:]
                picked.append(free[index].colour)
                if k + 1 < self.count:
                    ask(k + 1)
                else:
                    self.chosen.trays = picked + [t.colour for t in self.tray_cards
                                                  if t.colour not in picked]
                    self.chosen.trays_chosen = True
                    self.app.pop_to(self)
                    self.on_enter()

            # "?": the colour-to-ability link is a stand-in, not read from a printed card
            labels = [f"{t.name}: {ABILITY_TEXT[t.ability]}{'' if t.printed else '?'}" for t in free]
            self.app.push(ChoiceScreen(self.app, f"Makan · Tray {k + 1}", f"{names[k]}'s tray:",
                                       labels, chosen))

        ask(0)


class NamesScreen(MenuScreen):
    """Each player's name; OK on one offers recent and common names or typing a new one."""

    hint = "OK change  BACK done"

    def __init__(self, app: Table, chosen: Choices) -> None:
        super().__init__(app, "Makan · Names", [])
        self.chosen = chosen
        self.on_enter()

    def on_enter(self) -> None:
        names = self.chosen.names[:self.chosen.count]
        self.items = [MenuItem(f"Player {i + 1}:", partial(self._edit, i), name)
                      for i, name in enumerate(names)]
        self.items.append(MenuItem("Done ▶", self.app.pop))

    def _edit(self, seat: int) -> None:
        names = self.chosen.names
        others = [n for i, n in enumerate(names[:self.chosen.count]) if i != seat]

        def named(name: str) -> None:
            # A seat not playing now keeps its name different too: hand it the old one.
            for i in range(self.chosen.count, len(names)):
                if same_name(names[i], name):
                    names[i] = names[seat]
            names[seat] = name
            self.app.pop_to(self)

        self.app.push(NamePicker(self.app, f"Makan · Player {seat + 1}", names[seat], others, named,
                                 MAX_LETTERS))
