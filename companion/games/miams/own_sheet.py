"""The player's own sheet, pure, when the table asks the box to keep it ("Track my sheet too"):
the player tells the box what they marked each turn and the box scores it by the rulebook.

A tracked turn is one ``player`` action with three more fields, in the order the rulebook plays
them (docs/miams.md):

- ``"crossed": "pair"`` the row the player crossed for Arthur's turn ("During the AI's Crossing
  phase, you always play as if the AI had obtained one Cross face. Cross off your own game sheet
  like in a multiplayer game."); left out only when no row has a free space;
- ``"scored": "three"`` the skewer circled in their Scoring phase, ``"catch_up"`` for a
  Catch-up space (``"catch_up": N`` its place, 0 first; the first free one when left out), or
  left out when they marked nothing;
- ``"paid": N`` the stars spent in their Buy phase (0 when left out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.contract.rules import Action, RuleError, whole

from .marks import Side, mark
from .sheet import CIRCLE, CROSS, SKEWER_SHORT, SKEWERS, Sheet

CATCH_UP = "catch_up"
TURN_FIELDS = ("crossed", "scored", "catch_up", "paid")
MAX_PAID = 99      # no Yums card costs more; a typo of 1000 stars is refused, not spent


@dataclass(slots=True)
class OwnSheet:
    """The player's sheet: its marks, hearts and the stars it gave (``side``), the Catch-up
    spaces crossed, the stars spent buying Yums cards, and the red die and reroll tokens taken."""

    side: Side = field(default_factory=Side)
    catch_up: tuple[int, ...] = ()
    paid: int = 0
    tokens: int = 0

    @property
    def stars(self) -> int:
        """The Star tokens held: every star the sheet gave, less those spent."""
        return self.side.stars - self.paid

    def shown(self) -> Side:
        """The sheet as the overview draws a side: its stars those held."""
        side = Side((), self.side.hearts, self.stars, self.side.column)
        side.counts, side.crossed = self.side.counts, self.side.crossed
        return side

    def copy(self) -> OwnSheet:
        side = Side((), self.side.hearts, self.side.stars, self.side.column)
        side.counts, side.crossed = self.side.counts, self.side.crossed
        return OwnSheet(side, self.catch_up, self.paid, self.tokens)


@dataclass(frozen=True, slots=True)
class OwnTurn:
    """What the player marked in one turn, checked against their sheet."""

    crossed: int | None
    scored: int | None          # a skewer row, or None
    catch_up: int | None        # a Catch-up space, or None
    paid: int


def free_rows(sheet: Sheet, side: Side) -> list[int]:
    """The rows with a free space to cross ("the leftmost space that is neither crossed off nor
    circled")."""
    rows = side.rows
    return [row for row in range(len(SKEWERS)) if len(rows[row]) < sheet.sizes[row]]


def read_turn(action: Action, sheet: Sheet, own: OwnSheet) -> OwnTurn:
    """The tracked fields of a ``player`` action, or RuleError with a reason for the screen."""
    free = free_rows(sheet, own.side)
    crossed = action.get("crossed")
    if crossed is None:
        if free:
            raise RuleError("Which row did\nyou cross?")
        row = None
    else:
        row = _row(crossed, "Crossed")
        if row not in free:
            raise RuleError(f"{SKEWER_SHORT[SKEWERS[row]]} is full:\ncross another row")
    scored = action.get("scored")
    catch_up = None
    if scored == CATCH_UP:
        left = [i for i in range(len(sheet.catch_up)) if i not in own.catch_up]
        if not left:
            raise RuleError("No Catch-up\nspace is free")
        catch_up = whole(action, "catch_up", 0, len(sheet.catch_up) - 1, "Catch-up", left[0])
        if catch_up in own.catch_up:
            raise RuleError("That Catch-up\nspace is crossed")
        scored_row = None
    else:
        if "catch_up" in action:
            raise RuleError("Catch-up space\nwithout catch_up")
        scored_row = None if scored is None else _row(scored, "Scored")
    paid = whole(action, "paid", 0, MAX_PAID, "Paid", 0)
    return OwnTurn(row, scored_row, catch_up, paid)


def _row(value: Any, what: str) -> int:
    if not isinstance(value, str) or value not in SKEWERS:
        raise RuleError(f"{what}: not a skewer")
    return SKEWERS.index(value)


def play_turn(sheet: Sheet, own: OwnSheet, turn: OwnTurn) -> None:
    """Mark the turn on ``own``, a draft's copy, in place: the cross for Arthur's turn, the
    Scoring phase, then the Buy phase. RuleError (``own`` then unusable) when the stars paid
    are more than the player holds.

    "cross off the leftmost free space ... on the row of their choice, and obtain only the
    bonus tokens depicted on the crossed off space"; "Circle the leftmost free box ... on the
    row of the skewer you obtained"; "If you cannot score a skewer, you may instead cross off a
    free Catch-up space. You then obtain the Bonus token printed below the space."; "Pay the
    cost printed next to the card you want to buy."
    """
    side = own.side
    if turn.crossed is not None:
        own.tokens += mark(sheet, side, turn.crossed, CROSS).tokens
    if turn.scored is not None:
        own.tokens += mark(sheet, side, turn.scored, CIRCLE).tokens
    elif turn.catch_up is not None:
        bonus = sheet.catch_up[turn.catch_up]
        side.stars += bonus.stars
        own.tokens += bonus.tokens
        own.catch_up = tuple(sorted((*own.catch_up, turn.catch_up)))
    if turn.paid > own.stars:
        raise RuleError(f"You hold {own.stars}★:\nyou cannot pay {turn.paid}")
    own.paid += turn.paid


def summary(own: OwnSheet) -> dict[str, Any]:
    """The player's sheet for ``companion replay``, its rows as Arthur's are shown."""
    return {
        "hearts": own.side.hearts, "stars": own.stars, "score": own.side.hearts + own.stars,
        "stars_gained": own.side.stars, "stars_paid": own.paid,
        "first_column_bonus": own.side.column, "tokens_taken": own.tokens,
        "catch_up": list(own.catch_up),
        "rows": {SKEWERS[i]: marks for i, marks in enumerate(own.side.rows)},
    }
