"""History → Stats: each player's games, wins, win rate and best score, and each game's own
figures (Makan averages and drinks, the Café's rounds and Double Trouble, Miams per
difficulty). Read from the summaries, never by replaying games."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.records.history import Book, Line, reading
from companion.ui.widgets import InfoScreen, MenuItem, MenuScreen

if TYPE_CHECKING:
    from collections.abc import Callable

    from companion.games.base import Table

TITLES = {"makan": "Makan", "cafe": "Café", "miams": "Miams"}


def read_lines(app: Table, read: Callable[[Book], list[Line]]) -> list[tuple[str, str]]:
    """The rows ``read`` makes from the journal now; one row saying so when there are none."""
    lines = reading(app.state_dir, read, [])
    return [(line.label, line.value) for line in lines] or [("No games yet", "")]


class StatsScreen(MenuScreen):
    """Players (the most played first), then one entry per game."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Stats", [])

    def on_enter(self) -> None:
        players = reading(self.app.state_dir, Book.players, [])
        self.items = [MenuItem(name, lambda n=name: self._player(n), str(games))
                      for name, games in players]
        self.items += [
            MenuItem("Makan: scores ▶", lambda: self._show("Stats · Makan", Book.makan_lines)),
            MenuItem("Café: the table ▶", lambda: self._show("Stats · Café", Book.cafe_lines)),
            MenuItem("Miams: vs Arthur ▶", lambda: self._show("Stats · Miams", Book.miams_lines)),
        ]
        self.selected = min(self.selected, len(self.items) - 1)

    def _player(self, name: str) -> None:
        self._show(f"Stats {name}", lambda book: book.player_lines(name, TITLES))  # fits any name

    def _show(self, title: str, read: Callable[[Book], list[Line]]) -> None:
        rows = read_lines(self.app, read)
        self.app.push(InfoScreen(self.app, title, lambda: rows))
