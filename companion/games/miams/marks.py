"""A score sheet's marks, pure: a :class:`Side` (the marks, hearts and stars of one sheet:
Arthur's, or the player's own when the box keeps it) and marking its spaces by the rulebook."""

from __future__ import annotations

from .sheet import (
    COUNT,
    COUNT_BITS,
    FIRST_COLUMN_STARS,
    HEARTS_TRACK,
    Mark,
    Sheet,
    every_row_started,
    pack_rows,
    unpack_rows,
)

# A Mark is built positionally: NamedTuple's generated __new__ costs more than the rest of a mark.
_new = tuple.__new__


class Side:
    """A sheet's marks (each skewer row, left to right), hearts and stars: Arthur's, or the
    simulated player's own.

    Built from readable rows, ``Side(("xo", "", ...), hearts, stars, column)``; the marks are
    kept as two ints (see sheet.pack_rows) so that marking a space is an addition. The rules
    change a Side in place, and only in a draft (see :func:`apply`).
    """

    __slots__ = ("column", "counts", "crossed", "hearts", "stars")

    def __init__(self, rows: tuple[str, ...] = (), hearts: int = 0, stars: int = 0,
                 column: bool = False) -> None:
        self.counts, self.crossed = pack_rows(rows)
        self.hearts = hearts
        self.stars = stars
        self.column = column            # the first-column stars are settled (taken, or ruled out)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Side):
            return NotImplemented
        return (self.counts, self.crossed, self.hearts, self.stars, self.column) == (
            other.counts, other.crossed, other.hearts, other.stars, other.column)

    def __repr__(self) -> str:
        return f"Side(rows={self.rows!r}, hearts={self.hearts}, stars={self.stars}, column={self.column})"

    @property
    def rows(self) -> tuple[str, ...]:
        """Per row a string of marks, "o" circled, "x" crossed, from the left."""
        return unpack_rows(self.counts, self.crossed)



def mark(sheet: Sheet, side: Side, row: int, how: str, bonus: bool = True) -> Mark:
    """Circle or cross the leftmost free space of ``row`` on ``side``, in place, and return the
    mark; a circle on a full row scores its end.

    "Circle the leftmost free box ... Fill as many Hearts ... as the value of the space you
    circled. Take the Bonus token ... If you had already crossed off or circled all spaces of
    the row, you still obtain hearts: as many as the value at the end of the row."
    """
    return mark_spot(sheet, side, row << COUNT_BITS | side.counts >> (COUNT_BITS * row) & COUNT, how, bonus)


def mark_spot(sheet: Sheet, side: Side, at: int, how: str, bonus: bool = True) -> Mark:
    """:func:`mark` at a row's spot (``sheet.spot``), as the sheet's choice tables give it. A
    cross on a full row raises ValueError and leaves ``side`` as it was."""
    if (step := sheet.steps[how][at]) is None:
        raise ValueError("a full row has no space to cross")
    made, counted, crossed, most_hearts, value, got = step
    side.counts += counted
    if crossed:
        side.crossed |= crossed
    hearts = side.hearts
    if hearts <= most_hearts and bonus:
        # the usual mark: not in the first column, every heart fits, the bonus is taken
        side.hearts = hearts + value
        side.stars += got
        return made
    if not bonus:
        got = 0
    filled = HEARTS_TRACK - hearts
    if value < filled:
        filled = value
    side.hearts = hearts + filled
    # "take a Star token for each Heart you cannot fill"
    got += value - filled
    space = made.space
    if space == 0 and not side.column and every_row_started(side.counts):
        got += FIRST_COLUMN_STARS
        side.column = True
    elif bonus and filled == value:
        side.stars += got
        return made  # a first column mark like any other
    side.stars += got
    tokens = made.tokens if bonus else 0
    return _new(Mark, (made.row, space, how, filled, got, tokens))
