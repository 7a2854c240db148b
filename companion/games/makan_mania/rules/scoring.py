"""Makan Mania's final scoring: food points, die faces, pairings, the tray bonus and coins."""

from __future__ import annotations

from operator import attrgetter

from companion.contract.rules import Action, whole

from ..data import Drink
from .state import State, _err, _needs


def _score(state: State, action: Action) -> None:
    players = state.players
    who = whole(action, "player", 0, len(players) - 1, "Player")
    p = players[who]
    if p.score is not None:
        raise _err(f"{p.name} is scored")
    food = whole(action, "food", 0, 300, "Food points")
    owned = [state.book.by_key[k] for k in p.drinks]
    wants_snacks, wants_meals, faces = _needs(owned, p.ability)
    snacks = whole(action, "snacks", 0, 60, "Snacks") if wants_snacks else 0
    meals = whole(action, "meals", 0, 60, "Meals") if wants_meals else 0
    raw_faces = action.get("faces", {})
    if not isinstance(raw_faces, dict):
        raise _err("Faces must be counts", 'by face: {"1": 2, ...}')
    counts = {face: whole(raw_faces, *_FACE_FIELDS[face]) for face in faces}
    face_points = pair_points = 0
    for d in owned:
        for face in d.faces:
            face_points += counts[face]
    if snacks or meals:
        pair_points = _pairs(owned, "snack", snacks) + _pairs(owned, "meal", meals)
    tray = 0
    if p.ability == "face_bonus":
        tray = max(counts.values())
    elif p.ability == "drink_bonus":
        tray = len(p.drinks)
    breakdown = (("Food", food), ("Faces", face_points), ("Pairs", pair_points),
                 ("Tray", tray), ("Coins", p.coins))
    p.score = breakdown
    state.phase = "scoring" if None in map(_score_of, players) else "over"


# Die face -> whole's arguments for its count: the key in a score action's "faces", the range
# and its name in a refusal.
_FACE_FIELDS = {f: (str(f), 0, 60, f"Face {f} count") for f in range(1, 7)}
_score_of = attrgetter("score")


def _pairs(owned: list[Drink], kind: str, cards: int) -> int:
    """Points of pairing drinks matched with unpaired cards, best drinks first."""
    values = sorted((d.amount for d in owned if d.pairs_with == kind), reverse=True)
    return sum(values[:cards])
