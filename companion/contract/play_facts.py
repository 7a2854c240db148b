"""What a game tells the exports about its plays: the facts a play-keeping app (BG Stats) and a
spreadsheet need that the rules and the summary do not say.

Each game's spec owns its own (``play_facts`` in its spec's ``records``); its BoardGameGeek id is a setting
of the game's config section (``bgg_id``), so a user can link a game the box does not know the
id of. The exports loop over the registered games and never name one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.contract.config import Field, between

# The largest BoardGameGeek id the config accepts: BGG's ids are well below this.
BGG_ID_MAX = 99_999_999


def bgg_id_field(default: int) -> Field:
    """A game's ``bgg_id`` setting: 0 leaves the game unlinked (a custom game in BG Stats)."""
    return Field(default, int, "the game's BoardGameGeek id (the number in its boardgamegeek.com "
                 "address; 0: none), carried into the BG Stats play file and the CSV",
                 between(0, BGG_ID_MAX))


def _nothing(final: Mapping[str, Any]) -> str:
    return ""


def _no_rounds(final: Mapping[str, Any]) -> int:
    return 0


def _no_variant(board: str) -> str | None:
    return None


@dataclass(frozen=True)
class PlayFacts:
    """How a finished game of this kind reads in a play file and a spreadsheet."""

    name: str = ""                  # the game's whole name in files ("": the spec's title)
    bgg_name: str = ""              # the game's name on BoardGameGeek ("": the name above)
    bgg_year: int = 0               # the year BoardGameGeek gives it (0: unknown)
    no_points: bool = False         # no scores are kept
    # The variant and difficulty played ("Double Trouble", "Lunch"), from the final state.
    board: Callable[[Mapping[str, Any]], str] = _nothing
    # The rounds (or turns) the game lasted, from the final state; 0 when not counted.
    rounds: Callable[[Mapping[str, Any]], int] = _no_rounds
    # The summaries' variant (what the stats group by) of a play whose ``board`` says it: a
    # play imported from a play file has no final state.
    variant: Callable[[str], str | None] = _no_variant
