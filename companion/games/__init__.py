"""The games the box knows. Each lives in its own package and registers a GameSpec."""

from __future__ import annotations

import importlib

from companion import config

from .base import GameSpec, RuleError

__all__ = ["GAMES", "GameSpec", "RuleError", "register"]

GAMES: dict[str, GameSpec] = {}

# One line per game package; the home menu lists them in this order.
_PACKAGES: tuple[str, ...] = ("makan_mania", "crazy_cafe", "miams")


def register(spec: GameSpec) -> GameSpec:
    GAMES[spec.key] = spec
    if spec.config:
        config.GAME_SCHEMAS[spec.key] = dict(spec.config)
    return spec


for _name in _PACKAGES:
    importlib.import_module(f"{__name__}.{_name}")
