"""The box's configuration: :mod:`companion.contract.config`'s sections plus the ``[games.<key>]``
sections of the registered games, composed here so that the config module knows no game."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.contract import config
from companion.contract.config import DEVICE_STATE_DIR, SCHEMA, Config, ConfigError, ConfigErrors
from companion.games.catalog import config_sections

__all__ = ["DEVICE_STATE_DIR", "SCHEMA", "Config", "ConfigError", "ConfigErrors", "example_toml",
           "load", "parse"]


def load(path: Path | str | None = None, *, required: bool = False) -> Config:
    """Load and validate a config file, game sections included."""
    return config.load(path, required=required, games=config_sections())


def parse(raw: Mapping[str, Any], path: Path | str = "<config>") -> Config:
    """Validate an already-parsed TOML document, game sections included."""
    return config.parse(raw, path, games=config_sections())


def example_toml() -> str:
    """The example config file, with every game's section."""
    return config.example_toml(config_sections())
