"""What the screens are given: the contract's :class:`~companion.contract.spec.BoxTable`, made
of the box's parts. A screen's action goes to :class:`~companion.box.play.Play`, whose
:class:`~companion.box.play.Outcome` is shown here (:meth:`ScreenTable.show`): the stack says
what to say and changes the screens as the outcome asks. Everything else a screen asks is the
part's own answer: the stack's moves, the buzzer, the settings, the saved games."""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.rules import Action
from companion.contract.spec import GameSpec, Place, Screen, Session

from ..ui.widgets import ConfirmScreen
from .play import Change, Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping

    from companion.contract.config import Config
    from companion.contract.input import SensorStatus
    from companion.contract.saved_games import SavedEntry
    from companion.contract.spec import BoxTable, Clock
    from hardware.bundle import Hardware

    from .dice import BoxDice
    from .play import Play
    from .settings import BoxSettings
    from .stack import ScreenStack


class ScreenTable:
    """The box as the screens see it; ``games`` is the same object seen as the contract's
    :class:`~companion.contract.spec.Games`."""

    def __init__(self, stack: ScreenStack, play: Play, settings: BoxSettings, hardware: Hardware,
                 clock: Clock, *, config: Config, rng: random.Random, sensor: SensorStatus,
                 state_dir: Path | None, dice: BoxDice) -> None:
        self._stack, self._play, self._settings, self._hardware = stack, play, settings, hardware
        self.clock, self.config, self.rng = clock, config, rng
        self.sensor, self.state_dir, self.dice = sensor, state_dir, dice

    # ----- play, and its outcome shown ----------------------------------------------------
    def dispatch(self, action: Action) -> bool:
        return self.show(self._play.apply(action))

    def undo(self) -> bool:
        return self.show(self._play.undo())

    def start(self, key: str, first_action: Action | None = None) -> bool:
        return self.show(self._play.start(key, first_action))

    def resume(self, game_id: int | None = None) -> None:
        self.show(self._play.resume(game_id))

    def show(self, outcome: Outcome) -> bool:
        """Say what the outcome says and change the screens as it asks; whether it was accepted."""
        game = outcome.game
        if outcome.change is Change.SHOW and game is not None:
            self._stack.show_game(game.screens.play(self))
        elif outcome.change is Change.GAME:
            self._stack.game_changed()
        elif outcome.change is Change.SETUP and game is not None:
            self._stack.start(self._stack.home)
            self._stack.push(game.screens.new_game(self))
        if outcome.say:
            self._stack.toast(*outcome.say, error=outcome.error)
        if outcome.beep:
            self._hardware.buzzer.play(outcome.beep)
        return outcome.accepted

    # ----- the games, as the contract's Games ---------------------------------------------
    @property
    def games(self) -> ScreenTable:
        return self

    @property
    def specs(self) -> Mapping[str, GameSpec[Any]]:
        return self._play.specs

    @property
    def session(self) -> Session[Any] | None:
        return self._play.session

    def shown(self) -> bool:
        """A game is running and its root screen is on the stack."""
        return self._play.session is not None and self._stack.shows_game()

    def roster_names(self) -> list[str]:
        return self._play.roster_names()

    # ----- moving between screens ---------------------------------------------------------
    def push(self, screen: Screen, replace: bool = False) -> None:
        if replace:
            self._stack.replace(screen)
        else:
            self._stack.push(screen)

    def pop(self) -> None:
        self._stack.pop()

    def pop_to(self, to: Screen | Place | None) -> None:
        if to is Place.HOME:
            self.go_home()
        else:
            self._stack.pop_to(self._stack.game_root if to is Place.GAME else to)

    def on_top(self, screen: Screen) -> bool:
        return self._stack.top is screen

    def go_home(self, ask: bool = False) -> None:
        """Back to the home menu; a running game stays saved and can be resumed there."""
        def leave() -> None:
            if self._stack.game_root is not None and self._play.session is not None:
                self._stack.game_root.on_leave()  # e.g. the Café pauses a running round
            self._play.leave()
            self._stack.home_only()

        session = self._play.session
        if ask and self.shown() and session and not session.spec.rules.is_finished(session.state):
            self._stack.push(ConfirmScreen(self, "Menu", "Leave the game? It stays saved.", leave))
        else:
            leave()

    # ----- saying --------------------------------------------------------------------------
    def toast(self, *lines: str, error: bool = False) -> None:
        self._stack.toast(*lines, error=error)

    def refuse(self, reason: str) -> None:
        self._stack.refuse(reason)

    def beep(self, pattern: str) -> None:
        self._hardware.buzzer.play(pattern)

    # ----- what the box's own screens ask besides ----------------------------------------
    @property
    def stack(self) -> list[Screen]:
        return self._stack.screens

    @property
    def settings(self) -> dict[str, Any]:
        return self._settings.values

    @property
    def journal_ok(self) -> bool:
        return self._play.journal_ok

    def saved_games(self) -> list[SavedEntry]:
        return self._play.saved_games()

    def discard(self, game_id: int | None) -> None:
        self._play.discard(game_id)

    def journal_health(self) -> tuple[str, str | None, str]:
        return self._play.journal_health()

    def journal_saved_words(self) -> str:
        return self._play.journal_saved_words()

    def change_setting(self, key: str, value: Any) -> None:
        self._settings.change(key, value)

    def saved_settings(self) -> dict[str, Any]:
        return self._settings.saved()


if TYPE_CHECKING:  # mypy checks that the table is all the screens are promised
    def _as_table(table: ScreenTable) -> BoxTable:
        return table
