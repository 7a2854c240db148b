"""The settings the box follows: the config's, over them what was set on the box or the phone
page (kept in the journal), used at once by the buzzer, the panel and the press decoder."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.contract.config import ConfigError
from companion.contract.input import PressDecoder, PressTiming
from companion.records import cards
from companion.records import settings as store

from ..games.catalog import config_sections

if TYPE_CHECKING:
    from pathlib import Path

    from companion.contract.config import Config
    from companion.contract.spec import GameSpec
    from hardware.bundle import Hardware

    from .play import Play

log = logging.getLogger(__name__)


class BoxSettings:
    """The volume, contrast and long press as set now (``values``), and the house rules set
    on the phone, which go into the config's game sections."""

    def __init__(self, config: Config, games: dict[str, GameSpec[Any]], hardware: Hardware,
                 game: Play, state_dir: Path | None) -> None:
        self._config = config
        self._games = games
        self._hardware = hardware
        self._game = game  # whose journal keeps the settings
        self._state_dir = state_dir
        self._card_paths = cards.installer_paths(config, games)  # config.toml's
        self.values: dict[str, Any] = {
            "volume": config.buzzer.volume,
            "contrast": config.display.contrast,
            "long_press_s": float(config.buttons.long_press_s),
        }
        self.values.update({k: v for k, v in self.saved().items() if k in self.values})
        self.decoder = PressDecoder(
            PressTiming(long_press_s=self.values["long_press_s"], debounce_s=0.03))

    def saved(self) -> dict[str, Any]:
        """The journal's settings (set here or on the phone page) that pass the config's checks,
        which override the config's (About lists them, as ``companion doctor`` does); the house
        rules among them go into the config's game sections, which setups read."""
        journal = self._game.journal
        if journal is None:
            return {}
        # The card files saved on the phone page, read by the next setup (a game in progress
        # carries its own in its setup action).
        try:
            cards.apply(self._config, self._state_dir, self._games, self._card_paths)
        except OSError as exc:  # the state directory unreadable: the files read so far stay
            log.warning("card files saved on the phone not looked at: %s", exc)
        try:
            rows = journal.settings()
        except Exception:  # a settings row we cannot read must not stop the box
            log.exception("could not read saved settings")
            return {}
        fields = store.settable(config_sections(self._games))
        valid = {}
        for key, value in rows.items():
            if key in fields:
                try:
                    valid[key] = store.check(fields[key], value)
                except ConfigError:
                    log.warning("saved setting %s = %r left out: it fails its check", key, value)
        store.apply_games(self._config, valid, fields)
        return valid

    def follow(self) -> bool:
        """What the phone page set since the last look: used at once, as if set here (a game in
        progress keeps its setup's options). True when the frame may show a change."""
        saved = self.saved()
        changed = False
        for key in ("volume", "contrast", "long_press_s"):
            if key in saved and saved[key] != self.values[key]:
                self._use(key, saved[key])
                changed = True
        return changed

    def change(self, key: str, value: Any) -> None:
        """Apply a setting now and keep it across restarts."""
        self._use(key, value)
        self._game.write(lambda j: j.save_setting(key, value))

    def _use(self, key: str, value: Any) -> None:
        self.values[key] = value
        if key == "volume":
            self._hardware.buzzer.set_volume(value)
        elif key == "contrast":
            self._hardware.display.set_contrast(value)
        elif key == "long_press_s":
            self.decoder.timing = replace(self.decoder.timing, long_press_s=value)
