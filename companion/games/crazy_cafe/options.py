"""The Café's name and its ``[games.cafe]`` config section: what the spec and the screens share,
kept apart from the screens so that the spec loads without Pillow."""

from __future__ import annotations

from companion.contract.config import Field, one_of
from companion.contract.play_facts import bgg_id_field

from . import rules

TITLE = "Crazy Café"  # the spec's title, on the home menu
BAR = "Café"          # the title bar's name, short enough beside every status icon

# The same range holds a setup action's round_seconds (rules._setup) and the setup screen.
CONFIG = {
    "round_seconds": rules.ROUND_SECONDS,
    "standing_double": Field("once", str, "a double of two dice both on orders flips one order "
                             "when it is new (once) or on every reroll while it stands (every)",
                             one_of(*rules.STANDING_DOUBLE)),
    "bgg_id": bgg_id_field(394751),  # boardgamegeek.com/boardgame/394751
}
