"""The games the box knows: every ``table_companion.games`` entry point (a game's installed
package names its ``GameSpec``; the three games of this package register the same way), in
home-menu order, and the config sections they declare."""

from __future__ import annotations

import json
import logging
import sys
from importlib.metadata import entry_points
from typing import Any

from companion.contract.config import Field
from companion.contract.spec import CONTRACT, GameSpec

log = logging.getLogger(__name__)

GROUP = "table_companion.games"
# The games registered but left out, by key, with why (``companion doctor`` lists them).
BROKEN: dict[str, str] = {}


def discover(group: str = GROUP) -> dict[str, GameSpec[Any]]:
    """The registered games by key, in menu order. A game that does not load, is no spec, or
    was written for another version of the plugin contract is left out with a log line: one
    broken plugin never keeps the box from starting."""
    found: list[GameSpec[Any]] = []
    for entry in entry_points(group=group):
        try:
            spec = entry.load()
        except Exception as exc:
            log.exception("game %s (%s) does not load; left out", entry.name, entry.value)
            BROKEN[entry.name] = " ".join(str(exc).split()) or type(exc).__name__
            continue
        if not isinstance(spec, GameSpec) or spec.key != entry.name:
            log.error("game %s (%s) is not a GameSpec of that key; left out", entry.name, entry.value)
            BROKEN[entry.name] = f"{entry.value} is not the GameSpec of {entry.name}"
            continue
        if spec.contract != CONTRACT:
            log.error("game %s (%s) is written for plugin contract %s, not %s; left out",
                      entry.name, entry.value, spec.contract, CONTRACT)
            BROKEN[entry.name] = (f"written for plugin contract {spec.contract}; this box has "
                                  f"contract {CONTRACT} (see docs/games.md)")
            continue
        if any(other.key == spec.key for other in found):
            log.error("game %s is registered twice; the second (%s) left out", spec.key, entry.value)
            continue
        found.append(spec)
    return {spec.key: spec for spec in sorted(found, key=lambda spec: (spec.order, spec.title))}


GAMES: dict[str, GameSpec[Any]] = discover()


def config_sections(games: dict[str, GameSpec[Any]] | None = None) -> dict[str, dict[str, Field]]:
    """The ``[games.<key>]`` config sections the games declare, in menu order."""
    return {key: dict(spec.config) for key, spec in (GAMES if games is None else games).items()
            if spec.config}


def dice_sets(games: dict[str, GameSpec[Any]] | None = None) -> dict[str, tuple[str, ...]]:
    """The die kinds each game's sensor watches, by game key (games without dice left out)."""
    return {key: spec.dice for key, spec in (GAMES if games is None else games).items()
            if spec.dice}


def main() -> int:
    """``python -m companion.games.catalog``: the games this version takes and those it leaves
    out with why, as JSON (asked of a new slot by the updater, for the plugins it carries)."""
    print(json.dumps({"games": list(GAMES), "left_out": BROKEN}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
