"""Die kinds and their face names, defined once for the sensor, the firmware and the games."""

from __future__ import annotations

from collections.abc import Mapping

# Café: "Yellow die = dishes", "Blue die = drinks ... and bill".
YELLOW = ("burger", "donut", "pizza", "fries", "salad", "cake")
BLUE = ("cola", "milkshake", "coffee", "juice", "water", "bill")
# Miams: "a white die has five fruit faces and one cross face; the red die swaps the cross for
# a marshmallow (wild)". The rulebook does not name the fruits, so they are numbered; the
# player's sheet file may give them display names.
FRUITS = ("fruit1", "fruit2", "fruit3", "fruit4", "fruit5")
WHITE = (*FRUITS, "cross")
RED = (*FRUITS, "marshmallow")

FACES: dict[str, tuple[str, ...]] = {
    "yellow": YELLOW,
    "blue": BLUE,
    "white": WHITE,
    "red": RED,
}


def faces_of(kind: str) -> tuple[str, ...]:
    """The six face names of a die kind (KeyError for an unknown kind)."""
    return FACES[kind]


def kinds_of(spec: str, sets: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """Die kinds from the name of one of ``sets`` (a game's dice, in die order, as each game
    declares them) or a comma list (yellow,blue); ValueError if unknown."""
    sets = sets or {}
    kinds = sets.get(spec) or tuple(k.strip() for k in spec.split(",") if k.strip())
    unknown = [k for k in kinds if k not in FACES]
    if unknown or not kinds:
        named = f"{', '.join(sets)} or " if sets else ""
        raise ValueError(f"unknown die kind {unknown[0] if unknown else spec!r}; "
                         f"use {named}a list of {', '.join(FACES)}")
    return kinds
