"""The games: their contract with the box (:mod:`.base`), one package per game, and the list
of them the box offers (:mod:`.catalog`). Importing this package imports no game."""

from __future__ import annotations

from companion.contract.rules import RuleError
from companion.contract.spec import GameSpec

__all__ = ["GameSpec", "RuleError"]
