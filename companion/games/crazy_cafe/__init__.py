"""3 Minute Crazy Café: the round timer, order counts, win/lose and Double Trouble."""

from __future__ import annotations

from companion.games import register
from companion.games.base import GameSpec

from . import rules, screens

SPEC = register(
    GameSpec(
        key="cafe",
        title=screens.TITLE,
        initial_state=rules.initial_state,
        apply=rules.apply,
        is_finished=rules.is_finished,
        summary=rules.summary,
        describe=rules.describe,
        describe_action=rules.describe_action,
        new_game=screens.new_game,
        play=screens.play,
        is_undoable=rules.is_undoable,
        config=screens.CONFIG,
        walk=screens.WALK,
    )
)
