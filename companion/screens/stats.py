"""History → Stats: each player's games, wins, win rate and best score, and each game's own
figures (its spec's ``stats``). Read from the summaries, never by replaying games."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from companion.contract.facts import Line, Stats
from companion.records.history import Book, reading
from companion.ui.widgets import InfoScreen, MenuItem, MenuScreen
from companion.ui.words import player_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    from companion.contract.spec import BoxTable


def read_lines(app: BoxTable, read: Callable[[Book], list[Line]]) -> list[tuple[str, str]]:
    """The rows ``read`` makes from the journal now; one row saying so when there are none."""
    lines = reading(app.state_dir, read, [])
    return [(line.label, line.value) for line in lines] or [("No games yet", "")]


class StatsScreen(MenuScreen):
    """Players (the most played first), then one entry per game."""

    app: BoxTable

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Stats", [])

    def on_enter(self) -> None:
        players = reading(self.app.state_dir, Book.players, [])
        self.items = [MenuItem(name, partial(self._player, name), str(games))
                      for name, games in players]
        self.items += [
            MenuItem(f"{spec.short}: {stats.heading} ▶", self._opener(f"Stats · {spec.short}", stats))
            for spec in self.app.games.specs.values() if (stats := spec.records.stats) is not None]
        self.selected = min(self.selected, len(self.items) - 1)

    def _player(self, name: str) -> None:
        shorts = {key: spec.short for key, spec in self.app.games.specs.items()}
        # "Stats Name" fits any name
        self._show(f"Stats {name}", lambda book: player_lines(book.player_record(name), shorts))

    def _opener(self, title: str, stats: Stats) -> Callable[[], None]:
        return lambda: self._show(title, lambda book: stats.lines(book.read))

    def _show(self, title: str, read: Callable[[Book], list[Line]]) -> None:
        rows = read_lines(self.app, read)
        self.app.push(InfoScreen(self.app, title, lambda: rows))
