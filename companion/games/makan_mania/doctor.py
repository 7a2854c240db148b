"""``companion doctor``'s check of Makan Mania's data: the trays and drinks files, and a deck
that lasts the largest game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.contract.config import Config
from companion.contract.facts import FAIL, OK, Finding, worded


def check_data(cfg: Config) -> list[Finding]:
    """Makan Mania's trays and drinks files load (the configured ones where the config has them),
    and the drinks deck lasts every round of the largest game when the box deals."""
    return [check(cfg)]


def check(cfg: Config) -> Finding:
    try:
        from . import data, rules

        settings: Any = cfg.games.get("makan", {})
        # A [games.makan] path, where this version has one, else the file shipped with the box.
        trays_file, drinks_file = settings.get("trays"), settings.get("drinks")
        trays = data.load_trays(Path(trays_file)) if trays_file else data.load_trays()
        drinks = data.load_drinks(Path(drinks_file)) if drinks_file else data.load_drinks()
        copies_printed = data.copies_printed(drinks_file or data.DRINKS_FILE)
    except Exception as exc:  # DataError or ConfigError from the loader; import-time loads too
        detail, fix = worded(exc)
        return Finding("makan", FAIL, f"{detail}; Makan Mania cannot start",
                       fix or "correct that key (docs/makan_mania.md), or reinstall the package")
    # Six players hold every tray, the private-drink one too: the most drinks a game reveals.
    short = data.deck_problem(drinks, len(trays), True, rules.ROUNDS)
    if short:
        return Finding("makan", FAIL, f"{drinks_file or data.DRINKS_FILE}: copies: "
                       f"{' '.join(short.split())} when {len(trays)} players and the private drink "
                       "are dealt; \"box deals\" would run out",
                       "raise the copies to your printed deck's counts (36 cards), see "
                       "docs/makan_mania.md")
    valid = f"{len(trays)} trays and {len(drinks)} drinks valid"
    guessed = [tray.colour for tray in trays if not tray.printed]
    stand_in = [f"{' '.join(guessed)} trays"] if guessed else []
    if not copies_printed:
        stand_in.append("deck copies")
    if not stand_in:
        return Finding("makan", OK, valid)
    # Still ok, as on the setup screen: the game runs, but these values are not the cards' own.
    return Finding("makan", OK, f"{valid}, with stand-ins to check against your cards: "
                   f"{', '.join(stand_in)} (docs/makan_mania.md)")
