"""What makes a player's name: the name editor, the roster, the games' setups and the phone page
keep to the same rules. Pure, below the UI: the roster imports it."""

from __future__ import annotations

from collections.abc import Iterable

MAX_LETTERS = 10  # a name is shown beside scores and prices: ten letters fit any line


def same_name(a: str, b: str) -> bool:
    """Two names the table would read as one ("ana" and "Ana ")."""
    return a.strip().casefold() == b.strip().casefold()


def unique_names(names: Iterable[str]) -> list[str]:
    """``names`` in order without repeats (as :func:`same_name` sees them) or blanks."""
    kept: list[str] = []
    for name in names:
        if name.strip() and not any(same_name(name, k) for k in kept):
            kept.append(name)
    return kept

