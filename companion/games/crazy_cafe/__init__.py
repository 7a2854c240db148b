"""3 Minute Crazy Café: the round timer, order counts, win/lose and Double Trouble."""

from __future__ import annotations

from companion.games.base import GameSpec

from . import rules, screens

SPEC = GameSpec.from_rules(
    rules.KEY, screens.TITLE, rules,
    new_game=screens.new_game, play=screens.play, config=screens.CONFIG, walk=screens.WALK,
)
