"""The games the box knows, in home-menu order, and the config sections they declare."""

from __future__ import annotations

from companion.config import Field

from . import crazy_cafe, makan_mania, miams
from .base import GameSpec

GAMES: dict[str, GameSpec] = {
    spec.key: spec for spec in (makan_mania.SPEC, crazy_cafe.SPEC, miams.SPEC)
}


def config_sections(games: dict[str, GameSpec] | None = None) -> dict[str, dict[str, Field]]:
    """The ``[games.<key>]`` config sections the games declare, in menu order."""
    return {key: dict(spec.config) for key, spec in (GAMES if games is None else games).items()
            if spec.config}
