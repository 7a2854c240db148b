"""Arthur's marks as the rules keep them (counts and crossed bits) against the sheet read row by row."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.miams import rules
from companion.games.miams.sheet import CIRCLE, CROSS, FIRST_COLUMN_STARS, HEARTS_TRACK

SHEET = rules.DEFAULT_SHEET


@st.composite
def sheet_rows(draw: st.DrawFn) -> tuple[str, ...]:
    """Marks that fit the stand-in sheet: each row up to its length, circles and crosses."""
    return tuple(draw(st.text(alphabet="ox", max_size=size)) for size in SHEET.sizes)


@given(rows=sheet_rows(), hearts=st.integers(0, 50), stars=st.integers(0, 99), column=st.booleans())
def test_a_side_gives_back_the_rows_it_was_built_from(rows, hearts, stars, column):
    """"Circle the leftmost free box (meaning it is neither ticked nor circled)": each space is
    free, circled or crossed, and a side keeps exactly which, through copies too."""
    side = rules.Side(rows, hearts, stars, column)
    assert side.rows == rows
    assert (side.hearts, side.stars, side.column) == (hearts, stars, column)
    assert copy.deepcopy(side) == side and pickle.loads(pickle.dumps(side)) == side
    assert repr(rows) in repr(side)


@pytest.mark.parametrize("rows", [("z",), ("o" * 13,), ("",) * 7])
def test_a_side_refuses_what_no_sheet_holds(rows):
    """"neither ticked nor circled": a space holds a circle or a cross, and a row at most 12."""
    with pytest.raises(ValueError):
        rules.Side(rows, 0, 0, False)


@given(rows=sheet_rows(), hearts=st.integers(0, 50), column=st.booleans(),
       row=st.integers(0, 5), how=st.sampled_from([CIRCLE, CROSS]))
def test_mark_follows_the_sheet_space_by_space(rows, hearts, column, row, how):
    """"Circle the leftmost free box ... If you had already crossed off or circled all spaces of
    the row, you still obtain hearts: as many as the value at the end of the row." "take a Star
    token for each Heart you cannot fill" "You also gain 3 stars for crossing or circling all the
    spaces in the first column." Checked against the sheet's own rows, not the rules' tables."""
    side = rules.Side(rows, hearts, 5, column)
    layout = SHEET.rows[row]
    space = len(rows[row])
    if space == len(layout.hearts) and how == CROSS:
        with pytest.raises(ValueError):
            rules.mark(SHEET, side, row, how)
        assert side == rules.Side(rows, hearts, 5, column)  # a refused mark changes nothing
        return
    made = rules.mark(SHEET, side, row, how)  # marks ``side`` in place
    if space == len(layout.hearts):
        value, bonus, space, new_rows = layout.end, None, -1, rows
    else:
        value = layout.hearts[space] if how == CIRCLE else 0
        bonus = layout.bonuses[space]
        new_rows = (*rows[:row], rows[row] + how, *rows[row + 1:])
    filled = min(value, HEARTS_TRACK - hearts)
    gained = (bonus.stars if bonus else 0) + value - filled
    first_column = space == 0 and not column and all(new_rows)
    gained += FIRST_COLUMN_STARS if first_column else 0
    assert side == rules.Side(new_rows, hearts + filled, 5 + gained, column or first_column)
    assert made == rules.Mark(row, space, how, filled, gained, bonus.tokens if bonus else 0)
