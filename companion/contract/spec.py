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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from companion.config import Config, Field
from companion.input import ButtonEvent, SensorStatus

from .cards import CardFile
from .facts import DoctorCheck, Example, LiveView, Stats, Summary
from .play_facts import PlayFacts
from .rules import Action

if TYPE_CHECKING:
    from companion.saved_games import SavedEntry
    from companion.ui.canvas import Canvas


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


@dataclass(frozen=True)
class GameSpec:
    key: str                                   # CLI and journal name: makan, cafe, miams
    title: str                                 # shown on screens
    initial_state: Callable[[], Any]
    apply: Callable[[Any, Action], Any]
    is_finished: Callable[[Any], bool]
    summary: Callable[[Any], dict[str, Any]]   # final state as JSON, for replay
    describe: Callable[[Any], str]             # "round 3", for the resume question
    # "Ben bought Cola", for "Undone: ..." and "Can't undo: ...", given the action and the
    # state it was applied to (which says whose turn it was and what a slot held).
    describe_action: Callable[[Action, Any], str]
    # The setup screen, before any action, and the root screen of a game in progress; a game
    # gives them as Lazy references to its screens module, which draws with Pillow.
    new_game: Callable[[Table], Screen]
    play: Callable[[Table], Screen]
    is_undoable: Callable[[Action], bool] = lambda action: True
    # A step the box adds by itself right after the table's action (the Café's reroll of the
    # dice an order freed, its clock readings), which undo takes back with that action:
    # ``follow_up(action, earlier actions)`` gives the words the undo toast adds for it
    # ("its reroll"; "" for a step the table never sees), or None for an action of its own.
    follow_up: Callable[[Action, Sequence[Action]], str | None] = lambda action, earlier: None
    # What the box journals in the same change as an undo, given the state the undo leaves and
    # the box's clock reading now (the Café's fresh clock reading): ``after_undo(state, now)``.
    after_undo: Callable[[Any, float], list[Action]] = lambda state, now: []
    config: Mapping[str, Field] = field(default_factory=dict)
    # Named screens for screenshots and the screen walk: name -> steps from the home menu
    # (see companion.simulator.walk for the step syntax).
    walk: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # A whole game replayed at once, where the rules do it faster than action by action (the
    # same handlers on one draft); None: apply each action in turn.
    replay_all: Callable[[Iterable[Action]], Any] | None = None
    # What the box shows of it beyond its own screens: every part is optional, and the box,
    # the history, the phone page and the doctor read only these, never a game's state.
    short: str = ""                                 # lists' few letters ("Makan"); "" = title
    order: int = 100                                # its place on the home menu, lowest first
    # A finished game's summary from its ``summary`` JSON and its setup action ({} if none).
    summarise: Callable[[dict[str, Any], Action], Summary] | None = None
    stats: Stats | None = None                      # its own figures under History → Stats
    cooperative: bool = False                       # one shared result: the whole table wins or loses
    live: LiveView | None = None                    # the phone's Live page
    doctor: DoctorCheck | None = None               # ``companion doctor``'s check of its files
    # Its printed-card data files, which the phone's Settings offer as forms.
    cards: tuple[CardFile, ...] = ()
    example: Example | None = None                  # a game the screen walk seeds History with
    # How its finished plays read in a BG Stats play file and the CSV (its BGG id is its
    # config section's ``bgg_id``).
    play_facts: PlayFacts = field(default_factory=PlayFacts)
    dice: tuple[str, ...] = ()                      # the die kinds its sensor watches, in order
    # Its own ``companion`` commands: name -> module with ``register(subparsers)``.
    commands: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.short:
            object.__setattr__(self, "short", self.title)

    @classmethod
    def from_rules(cls, key: str, title: str, rules: ModuleType, **screens_and_data: Any) -> GameSpec:
        """A spec whose rules functions are the conventional names of a pure ``rules`` module
        (``replay`` is optional, and ``replay_all`` given by name replaces it); the screens
        (Lazy references), config and walk are given by name."""
        return cls(
            key=key, title=title, initial_state=rules.initial_state, apply=rules.apply,
            is_finished=rules.is_finished, summary=rules.summary, describe=rules.describe,
            describe_action=rules.describe_action, is_undoable=rules.is_undoable,
            **{"replay_all": getattr(rules, "replay", None), "follow_up": getattr(
                rules, "follow_up", cls.follow_up), "after_undo": getattr(
                rules, "after_undo", cls.after_undo), **screens_and_data},
        )

    def last_step(self, actions: Sequence[Action]) -> tuple[int, str]:
        """How many actions at the end of ``actions`` undo as one step (the table's last action
        and the follow-ups after it), and the words the toast adds: " and its reroll"."""
        start = len(actions) - 1
        words: list[str] = []
        while start > 0:
            said = self.follow_up(actions[start], actions[:start])
            if said is None:
                break
            if said:
                words.insert(0, said)
            start -= 1
        return len(actions) - start, "".join(f" and {said}" for said in words)

    def replay(self, actions: Iterable[Action]) -> Any:
        """The state after ``actions`` from a fresh game; raises RuleError on a bad one."""
        if self.replay_all is not None:
            return self.replay_all(actions)
        state = self.initial_state()
        for action in actions:
            state = self.apply(state, action)
        return state


@dataclass
class Session:
    """The game being played: its actions are the truth, ``state`` their replay."""

    spec: GameSpec
    game_id: int | None
    actions: list[Action]
    state: Any


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
    def specs(self) -> Mapping[str, GameSpec]: ...
    @property
    def session(self) -> Session | None: ...

    def start(self, key: str, first_action: Action | None = None) -> bool:
        """Start game ``key``, journaling ``first_action`` (its setup) when given."""

    def resume(self, game_id: int | None = None) -> None:
        """Continue saved game ``game_id`` (None: the game in memory)."""

    def shown(self) -> bool:
        """A game is running and its root screen is on the stack."""

    def roster_names(self) -> list[str]:
        """Names of recent players, the last used first (empty without a journal)."""


def running_session(games: Games) -> Session:
    """The session a game's screen shows: a game's screens are made for a running game."""
    if games.session is None:
        raise RuntimeError("a game's screen without a game")
    return games.session


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


class BoxTable(Table, Protocol):
    """What the box's own screens (home, saved games, settings, history, About) ask besides:
    the stack they draw over, the settings, the saved games and the journal's health."""

    @property
    def settings(self) -> dict[str, Any]: ...    # volume, contrast, long_press_s as set on the box
    @property
    def stack(self) -> list[Screen]: ...
    @property
    def journal_ok(self) -> bool: ...

    def saved_games(self) -> list[SavedEntry]:
        """Every unfinished game, the one played last first."""

    def discard(self, game_id: int | None) -> None:
        """Drop a saved game from the resume list (it stays in history)."""

    def journal_health(self) -> tuple[str, str | None]:
        """The journal's state ("ok", "disk full: 26 held", "none") and the name a damaged
        journal was kept under at start-up, if any."""

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
