"""When the player's turn can end the Miams game, pure: whether their track could be full
after it, so the box asks only then, and whether it is the game's last (docs/rulings.md)."""

from __future__ import annotations

from typing import Protocol

from .sheet import HEARTS_TRACK, Sheet


class _Track(Protocol):
    @property
    def hearts(self) -> int: ...


class _Options(Protocol):
    @property
    def sheet(self) -> Sheet: ...


class State(Protocol):
    """What these checks read of a game's state, a ``rules.State`` (rules reads
    :func:`is_last_turn` from here, so this module does not import it)."""

    @property
    def phase(self) -> str: ...
    @property
    def arthur(self) -> _Track: ...
    @property
    def options(self) -> _Options | None: ...
    @property
    def player_turns(self) -> int: ...


def richest(sheet: Sheet) -> int:
    """The most hearts one mark fills on ``sheet``: its richest space or end-of-row value."""
    return max(map(max, sheet.values))


def may_fill_by(turn: int, most: int) -> bool:
    """Can a track be full after ``turn`` turns of at most ``most`` hearts each?

    "Fill as many Hearts on your Hearts track as the value of the space you circled" (on a
    full row, "the value at the end of the row"): circling is the only way hearts fill, one
    space a turn, so a track holds at most ``turn * most`` hearts."""
    return turn * most >= HEARTS_TRACK


def is_last_turn(state: State) -> bool:
    """The player's turn is the game's last: Arthur has filled his 50 ("take turns until
    everyone has taken the same number of turns"; he plays first)."""
    return state.phase == "player" and state.arthur.hearts >= HEARTS_TRACK


def player_may_fill(state: State, most: int = 0) -> bool:
    """Whether "is your track full?" can matter this turn: the track could be full after it
    (at the sheet's richest value a turn, or ``most``, the richest the player typed in for
    their own sheet), and the turn is not already the last (then the game ends after it
    whatever the answer)."""
    if state.options is None or is_last_turn(state):
        return False
    return may_fill_by(state.player_turns + 1, max(most, richest(state.options.sheet)))
