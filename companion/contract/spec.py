"""The contract between a game and the box: its spec, the session, and the table its screens use.

Rules are pure: ``apply(state, action) -> new state`` or :class:`RuleError`; no I/O, no clock,
no RNG. Actions are JSON objects (``{"type": ...}``); the journal stores them and
``companion replay`` reads them, so the vocabulary is documented per game in ``docs/``.
Screens get a :class:`Table`, the narrow part of the box they may ask for things, which
:class:`companion.box.app.App` implements; nothing here or in a game imports the app.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol

from companion.contract.config import Config, Field
from companion.contract.input import ButtonEvent, SensorStatus

from .cards import CardFile
from .facts import DoctorCheck, Example, LiveView, Records
from .rules import Action, Rules, StateT

if TYPE_CHECKING:
    from companion.contract.saved_games import SavedEntry
    from companion.frame.canvas import Canvas


class Lazy:
    """A function or class named ``"package.module:name"``, imported on its first call: a spec
    names its screens this way so that its rules load without Pillow and luma."""

    __slots__ = ("_found", "target")

    def __init__(self, target: str) -> None:
        self.target = target
        self._found: Callable[..., Any] | None = None

    def resolve(self) -> Callable[..., Any]:
        """The named object, imported now if it was not yet."""
        if self._found is None:
            module, _, name = self.target.partition(":")
            self._found = getattr(importlib.import_module(module), name)
        return self._found

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.target!r})"


# The version of this contract between a game and the box: a game's spec says which it was
# written for, and the catalog leaves out a game written for another (docs/games.md).
CONTRACT = 2


@dataclass(frozen=True, kw_only=True)
class Screens:
    """A game's screens: the setup screen, before any action, and the root screen of a game in
    progress, given as Lazy references to its screens module (which draws with Pillow)."""

    new_game: Callable[[Table], Screen]
    play: Callable[[Table], Screen]
    # Named screens for screenshots and the screen walk: name -> steps from the home menu
    # (see companion.simulator.walk for the step syntax).
    walk: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    example: Example | None = None          # a game the screen walk seeds History with


@dataclass(frozen=True, kw_only=True)
class GameSpec(Generic[StateT]):
    """Everything the box knows of a game, in groups: its rules, screens, records, Live page,
    card data and doctor check. The box, the history, the phone page and the doctor read only
    these, never a game's state; ``StateT`` is the game's state type, which its rules and Live
    view share."""

    contract: int                           # the CONTRACT it was written for
    key: str                                # CLI and journal name: makan, cafe, miams
    title: str                              # shown on screens
    rules: Rules[StateT]
    screens: Screens
    short: str = ""                         # lists' few letters ("Makan"); "" = title
    order: int = 100                        # its place on the home menu, lowest first
    config: Mapping[str, Field] = field(default_factory=dict)
    records: Records = field(default_factory=Records)
    live: LiveView[StateT] | None = None    # the phone's Live page
    # Its printed-card data files, which the phone's Settings offer as forms.
    cards: tuple[CardFile, ...] = ()
    doctor: DoctorCheck | None = None       # ``companion doctor``'s check of its files
    dice: tuple[str, ...] = ()              # the die kinds its sensor watches, in order
    # Its own ``companion`` commands: name -> module with ``register(subparsers)``.
    commands: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.title)


@dataclass
class Session(Generic[StateT]):
    """The game being played: its actions are the truth, ``state`` their replay."""

    spec: GameSpec[StateT]
    game_id: int | None
    actions: list[Action]
    state: StateT


class Scheduled(Protocol):
    """A call waiting on :meth:`Clock.at`."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The box's monotonic clock, as a screen reads it, and its deadlines."""

    def now(self) -> float: ...

    def at(self, when: float, fn: Callable[[], None]) -> Scheduled:
        """Call ``fn`` on the loop thread once the clock reaches ``when``."""


class Place(Enum):
    """Where :meth:`Table.pop_to` may go besides a screen of its own."""

    GAME = "the game's root screen"  # the questions and menus over the game are over with
    HOME = "the home menu"           # the game is left; a running game stays saved


class Games(Protocol):
    """The games the box knows and the one being played: a setup starts its own game by its
    key, a screen reads the running game's session."""

    @property
    def specs(self) -> Mapping[str, GameSpec[Any]]: ...
    @property
    def session(self) -> Session[Any] | None: ...

    def start(self, key: str, first_action: Action | None = None) -> bool:
        """Start game ``key``, journaling ``first_action`` (its setup) when given."""

    def resume(self, game_id: int | None = None) -> None:
        """Continue saved game ``game_id`` (None: the game in memory)."""

    def shown(self) -> bool:
        """A game is running and its root screen is on the stack."""

    def roster_names(self) -> list[str]:
        """Names of recent players, the last used first (empty without a journal)."""


def running_session(games: Games, state_type: type[StateT]) -> Session[StateT]:
    """The session a game's screen shows, whose state is its game's ``state_type``: a game's
    screens are made for a running game of their own."""
    session = games.session
    if session is None or not isinstance(session.state, state_type):
        raise RuntimeError(f"a screen of a game of {state_type.__name__} without that game")
    return session


class Table(Protocol):
    """What a game's screen may ask of the box: to play an action, to say something, to move
    between screens; the clock, the box's dice, the config, the sensor and the games.

    The screen stack itself is not here: a screen pushes, pops and asks whether it is on top."""

    # Read-only for a screen (properties, so the box may hold richer types behind them).
    @property
    def clock(self) -> Clock: ...
    @property
    def rng(self) -> random.Random: ...          # the box's dice; the result goes into the action
    @property
    def config(self) -> Config: ...
    @property
    def sensor(self) -> SensorStatus: ...
    @property
    def games(self) -> Games: ...
    @property
    def state_dir(self) -> Path | None: ...      # where a game may keep a file of its own

    def dispatch(self, action: Action) -> bool:
        """Apply a game action: refused with a reason, or journaled and then shown."""

    def refuse(self, reason: str) -> None:
        """An illegal choice: a reason on screen and an error beep; nothing changes."""

    def toast(self, *lines: str, error: bool = False) -> None:
        """Show up to two short lines over the screen for a moment."""

    def beep(self, pattern: str) -> None:
        """Play a named buzzer pattern (tick, warn, alarm, error, ok)."""

    def push(self, screen: Screen, replace: bool = False) -> None:
        """Show ``screen`` over the top one (``replace``: instead of it)."""

    def pop(self) -> None: ...

    def pop_to(self, to: Screen | Place | None) -> None:
        """Pop the screens above ``to`` (a screen, the game's root or the home menu), back to
        it; None or a screen no longer shown: back to the home menu's screen, the game kept."""

    def on_top(self, screen: Screen) -> bool:
        """``screen`` is the one shown (no question or menu over it)."""


class DicePairing(Protocol):
    """The smart dice paired on the box (Settings → Dice): a search for the dice in reach that
    runs off the loop, and pairing or forgetting one."""

    searching: bool
    problem: str  # why the last search found nothing ("" when it ran)

    def search(self) -> str:
        """Start a search; "" when it started, else why it cannot."""

    def found_rows(self) -> list[tuple[str, str]]:
        """The dice the last search found: (make and name, signal or "paired")."""

    def paired_rows(self) -> list[tuple[str, str]]:
        """The paired dice in die order: (kind, make and address's end; charge or "missing")."""

    def pair(self, index: int, kind: str) -> str:
        """Pair found die ``index`` as ``kind`` and say so; ValueError when refused."""

    def forget(self, index: int) -> str:
        """Forget paired die ``index`` and say so."""


class BoxTable(Table, Protocol):
    """What the box's own screens (home, saved games, settings, history, About) ask besides:
    the stack they draw over, the settings, the saved games and the journal's health."""

    @property
    def settings(self) -> dict[str, Any]: ...    # volume, contrast, long_press_s as set on the box
    @property
    def stack(self) -> list[Screen]: ...
    @property
    def journal_ok(self) -> bool: ...
    @property
    def dice(self) -> DicePairing: ...

    def saved_games(self) -> list[SavedEntry]:
        """Every unfinished game, the one played last first."""

    def discard(self, game_id: int | None) -> None:
        """Drop a saved game from the resume list (it stays in history)."""

    def journal_health(self) -> tuple[str, str | None, str]:
        """The journal's state ("ok", "disk full: 26 held", "none"), the name a damaged
        journal was kept under at start-up, if any, and the file the play the disk refused
        is written to ("" when none: the disk takes writes, or it is held in memory only)."""

    def journal_saved_words(self) -> str:
        """What the last frame says of the games: "Games are saved." or where held play is."""

    def change_setting(self, key: str, value: Any) -> None:
        """Apply a setting now and keep it across restarts."""

    def saved_settings(self) -> dict[str, Any]:
        """The settings set on the box or the phone page, over the config's."""


class Screen:
    """One screen of the box. Subclasses draw their body and react to presses.

    ``on_button`` returns True when it used the press; unused presses get the defaults
    (BACK short = leave the screen).
    """

    title: str = ""
    hint: str = ""
    owns_long_ok: bool = False  # a screen that asks first may take long OK for itself

    def __init__(self, app: Table) -> None:
        self.app = app

    def draw(self, canvas: Canvas) -> None:
        raise NotImplementedError

    def on_button(self, event: ButtonEvent) -> bool:
        return False

    def on_enter(self) -> None:
        """Called when the screen becomes the top one (again)."""

    def on_sensor(self, event: Any) -> None:
        """A dice-sensor event reached this screen."""

    def on_leave(self) -> None:
        """The table leaves the game for the home menu (called on the game's root screen)."""

    def on_state_changed(self) -> None:
        """The game state changed under the screen (undo or resume): rebuild from it."""

    def name(self) -> str:
        """A stable name, used by the screenshot command and the screen walk."""
        return type(self).__name__
