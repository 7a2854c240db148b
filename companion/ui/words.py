"""Words the screens share: one way to count things, so no screen says "1 coins"."""

from __future__ import annotations

# Nouns whose plural is not the singular plus "s".
_IRREGULAR = {"die": "dice", "dice": "dice", "person": "people"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` with its noun in the right number: "1 coin", "2 coins", "0 dice", "1 die"."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {many or _IRREGULAR.get(noun, noun + 's')}"
