"""Words the screens share: one way to count things, so no screen says "1 coins", and what
makes a player's name (the name editor, the roster and the phone page keep to the same rules).

Pure: importing it loads no font, so the rules, the roster and the phone page can use it."""

from __future__ import annotations

from collections.abc import Iterable

MAX_LETTERS = 10  # a name is shown beside scores and prices: ten letters fit any line

# Nouns whose plural is not the singular plus "s".
_IRREGULAR = {"die": "dice", "dice": "dice", "person": "people"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` with its noun in the right number: "1 coin", "2 coins", "0 dice", "1 die"."""
    return f"{count} {noun_for(count, noun, many)}"


def noun_for(count: int, noun: str, many: str | None = None) -> str:
    """The noun alone in the number ``count`` asks for, for a count drawn apart from it."""
    return noun if count == 1 else many or _IRREGULAR.get(noun, noun + "s")


def first_upper(text: str) -> str:
    """``text`` with its first letter a capital and the rest as written: "I/O error", where
    ``str.capitalize`` would lower the rest ("I/o error")."""
    return text[:1].upper() + text[1:]


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

