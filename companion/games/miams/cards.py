"""Miams' sheet and tile files as the phone's Settings offer them as forms."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.contract.cards import FLAG, NUMBER, NUMBERS, TEXT, TEXTS, CardFile, Value
from firmware_bridge.faces import RED

from .sheet import DEFAULT_SHEET, DEFAULT_TILE, MAX_NAME, SKEWER_NAMES, SKEWERS, load_sheet, load_tile

_SHEET_VALUES = {
    "name": Value(TEXT, doc="a short name (20 letters at most)"),
    "stand_in": Value(FLAG, doc="false once every value is copied from your printed sheet"),
    "catch_up": Value(TEXTS, doc='the catch-up spaces\' icons: "-" (none), red, reroll or stars:N'),
    **{key: value for skewer in SKEWERS for key, value in (
        (f"rows.{skewer}.hearts", Value(NUMBERS, doc=f"{SKEWER_NAMES[skewer]}: each space's hearts")),
        (f"rows.{skewer}.bonus", Value(TEXTS, doc="the icon below each space")),
        (f"rows.{skewer}.end", Value(NUMBER, doc="the end-of-row value")))},
}
_TILE_VALUES = {
    "name": Value(TEXT, doc="a short name (20 letters at most)"),
    "stand_in": Value(FLAG, doc="false once copied from your solo mini-board"),
    **{f"faces.{face}": Value(TEXT, SKEWERS, "the skewer Arthur scores on this red face")
       for face in RED},
    **{f"names.{face}": Value(TEXT, doc=f"its name on the screen ({MAX_NAME} letters at most)",
                              optional=True) for face in RED},
}


def _all_but_marks(values: Mapping[str, Value]) -> Callable[[Mapping[str, Any]], list[str]]:
    """Every value but the name and the stand-in mark, while the file says it is a stand-in."""
    return lambda doc: [key for key in values if key not in ("name", "stand_in")
                        ] if doc.get("stand_in") is not False else []


CARDS = (
    CardFile("sheet", "Sheet", DEFAULT_SHEET, load_sheet, _SHEET_VALUES,
             _all_but_marks(_SHEET_VALUES), "Arthur's score sheet: hearts, bonus icons and "
             "end values, which the rulebook does not print."),
    CardFile("tile", "Solo tile", DEFAULT_TILE, load_tile, _TILE_VALUES,
             _all_but_marks(_TILE_VALUES), "Which skewer each red-die face makes Arthur score."),
)
