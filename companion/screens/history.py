"""Home → History: the last games, one game's result, its final screens and a step-by-step
replay, all read-only; and the export to a USB stick.

A game from history is shown with the game's own screens through :class:`ReadOnlyTable`: a
Table whose session is the replayed state, whose clock stands at the moment shown and whose
dispatch changes nothing, so no press can reach the live session or the journal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.facts import Seat
from companion.contract.rules import Action
from companion.contract.spec import GameSpec, Place, Screen, Session
from companion.frame.canvas import WIDTH, Canvas
from companion.frame.font import SMALL
from companion.records.bgstats import export_to_drive
from companion.records.export import bgg_ids, removable_drive
from companion.records.history import Played, reading
from companion.records.roster import RosterError
from companion.ui.widgets import InfoScreen, MenuItem, MenuScreen, is_press
from companion.ui.words import plural

from .me import ask_me, who_is_me

if TYPE_CHECKING:
    import random

    from companion.contract.config import Config
    from companion.contract.input import ButtonEvent, SensorStatus
    from companion.contract.spec import BoxTable, Table

LIST_LINES = 5  # rows of a menu between the title and the hint
LIMIT = 50  # games the list shows, the last first
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
READ_ONLY = ("Read-only:", "a game from history")


def short_name(app: BoxTable, key: str) -> str:
    """A game's short name, or its key for a game this box does not know."""
    spec = app.games.specs.get(key)
    return spec.short if spec else key


def day(seconds: float) -> str:
    """ "20 Nov" (the box's own month names: the same on every machine)."""
    t = time.localtime(seconds)
    return f"{t.tm_mday} {MONTHS[t.tm_mon - 1]}"


def length(seconds: float | None) -> str:
    return "-" if seconds is None else plural(round(seconds / 60), "min", "min")


class _Never:
    def cancel(self) -> None:
        pass


class _Frozen:
    """The clock of a moment in a recorded game: time stands still in history, so nothing
    scheduled ever comes due."""

    def __init__(self, at: float) -> None:
        self.at_time = at

    def now(self) -> float:
        return self.at_time

    def at(self, when: float, fn: Callable[[], None]) -> _Never:
        return _Never()


class _RecordedGames:
    """The games as a recorded game's screens see them: its replayed session, and no game
    to start or resume."""

    def __init__(self, app: BoxTable, session: Session[Any]) -> None:
        self._app = app
        self.session = session

    @property
    def specs(self) -> Mapping[str, GameSpec[Any]]:
        return self._app.games.specs

    def start(self, key: str, first_action: Action | None = None) -> bool:
        self._app.toast(*READ_ONLY)
        return False

    def resume(self, game_id: int | None = None) -> None:
        self._app.toast(*READ_ONLY)

    def shown(self) -> bool:
        return False

    def roster_names(self) -> list[str]:
        return self._app.games.roster_names()


class ReadOnlyTable:
    """The box as a recorded game's screens see it (a :class:`Table`): the box's screens, words
    and settings, but the game is a replayed state that no press can change and the clock
    stands at the moment shown."""

    def __init__(self, app: BoxTable, spec: GameSpec[Any], actions: list[Action]) -> None:
        self._app = app
        self.games = _RecordedGames(app, Session(spec, None, list(actions), spec.rules.replay(actions)))
        self.clock = _Frozen(moment(actions))
        self._root: Screen | None = None
        self.origin = app.stack[-1] if app.stack else None  # where leaving the game returns
        self.quiet = True  # a screen's own bookkeeping while it is built says nothing

    # ----- what the box has, as it is ------------------------------------------------------
    @property
    def rng(self) -> random.Random:
        return self._app.rng

    @property
    def config(self) -> Config:
        return self._app.config

    @property
    def sensor(self) -> SensorStatus:
        return self._app.sensor

    @property
    def state_dir(self) -> Path | None:
        return self._app.state_dir

    def refuse(self, reason: str) -> None:
        self._app.refuse(reason)

    def toast(self, *lines: str, error: bool = False) -> None:
        self._app.toast(*lines, error=error)

    def beep(self, pattern: str) -> None:
        self._app.beep(pattern)

    def push(self, screen: Screen, replace: bool = False) -> None:
        self._app.push(screen, replace)

    def pop(self) -> None:
        self._app.pop()

    def pop_to(self, to: Screen | Place | None) -> None:
        """The game's root is the recorded game's; its "back to the menu" (the Café's OK on its
        result) returns to the history it was opened from."""
        self._app.pop_to(self._root if to is Place.GAME else self.origin if to is Place.HOME
                         else to)

    def on_top(self, screen: Screen) -> bool:
        return self._app.on_top(screen)

    # ----- what a recorded game cannot do --------------------------------------------------
    def dispatch(self, action: Action) -> bool:
        if not self.quiet:
            self._app.toast(*READ_ONLY)
        return False

    def screen(self) -> Screen:
        """The game's own root screen for the state held."""
        self.quiet = True
        screen = self.games.session.spec.screens.play(self)
        screen.on_enter()
        self.quiet = False
        self._root = screen
        return screen


if TYPE_CHECKING:  # mypy checks that a recorded game's screens get all a Table promises
    def _as_table(table: ReadOnlyTable) -> Table:
        return table


def moment(actions: list[Action]) -> float:
    """The clock reading of the last action that carries one (a Café round's), else 0."""
    for action in reversed(actions):
        at = action.get("at")
        if isinstance(at, (int, float)) and not isinstance(at, bool):
            return float(at)
    return 0.0


class HistoryScreen(MenuScreen):
    """The last games (date, game, result) with Stats and Export first; OK opens one."""

    app: BoxTable

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "History", [])
        self.games: list[Played] = []

    def on_enter(self) -> None:
        self.games = reading(self.app.state_dir, lambda book: book.games(limit=LIMIT), [])
        self.items = [MenuItem("Stats", self._stats, "▶"), MenuItem("Export to USB", self._export)]
        # The date and game stay whole; a result naming a long-named winner shows what fits
        # beside them (less room when the list scrolls: its bar takes 4 px).
        right = WIDTH - (4 if len(self.items) + len(self.games) > LIST_LINES else 0)
        for played in self.games:
            label = f"{day(played.started_at)} {short_name(self.app, played.game)}"
            detail = SMALL.elide(result(played), right - 7 - SMALL.width(label))
            self.items.append(MenuItem(label, partial(self._open_game, played), detail))
        if not self.games:
            self.items.append(MenuItem("No games yet", lambda: None))
        self.selected = min(self.selected, len(self.items) - 1)

    def _stats(self) -> None:
        from .stats import StatsScreen

        self.app.push(StatsScreen(self.app))

    def _open_game(self, played: Played) -> None:
        self.app.push(GameScreen(self.app, played))

    def _export(self) -> None:
        drive = removable_drive()
        if drive is None:
            self.app.toast("No USB drive:", "plug one in, then OK")
            return
        try:
            asked = who_is_me(self.app)[0] if self.app.state_dir is not None else True
        except RosterError:
            asked = True
        if asked:
            self._write(drive)
        else:  # the first export: who the play file's "me" is, asked once
            ask_me(self.app, lambda: self._write(drive))

    def _write(self, drive: Path) -> None:
        ids = bgg_ids(self.app.config)
        try:
            paths = reading(self.app.state_dir,
                            lambda book: export_to_drive(book, drive, ids=ids), None)
        except OSError:
            self.app.refuse("USB drive refused:\nis it read-only?")
            return
        if paths is None:
            self.app.toast("No games yet")
            return
        self.app.toast(f"Saved to {drive.name}:", paths[0].name)
        self.app.beep("ok")


def result(played: Played) -> str:
    """The list's short result: "Dee 55", "won R3", "lost 59-64"; or why there is none
    ("saved": unfinished, resumable from the saved games)."""
    if played.status == "playing":
        return "saved"
    if played.status == "abandoned":
        return "dropped"
    return played.short or "?"


class GameScreen(InfoScreen):
    """One game: its result, length and players, then its final screens and its replay."""

    app: BoxTable

    hint = "▲▼ move  OK open"

    def __init__(self, app: BoxTable, played: Played) -> None:
        self.played = played
        self.seats: list[Seat] = []
        self.facts: list[tuple[str, str]] = []
        found = reading(app.state_dir, lambda book: book.game(played.id), None)
        if found is not None:  # a summary that cannot be read comes without a headline
            self.played, self.seats = found[0], found[1]
        super().__init__(app, f"{short_name(app, played.game)} · {day(played.started_at)}",
                         self._rows)

    def _rows(self) -> list[tuple[str, str]]:
        p = self.played
        rows = [("Final screens ▶", ""), ("Step through ▶", "")]
        if p.status == "playing":
            rows += [("Unfinished", ""), ("Resume: Saved games", "")]
        elif p.status == "abandoned":
            rows.append(("Dropped unfinished", ""))
        elif p.headline is None:
            rows.append(("Cannot read this game", ""))
        else:
            rows.append(("Result", p.short or "?"))
        rows.append(("Length", length(p.seconds)))
        rows += [(f"{s.name}{' ★' if s.winner else ''}", "" if s.score is None else str(s.score))
                 for s in self.seats]
        return rows

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            if self.selected in (0, 1):
                self._show(step=self.selected == 1)
            return True
        return super().on_button(event)

    def _show(self, step: bool) -> None:
        app = self.app
        spec = app.games.specs.get(self.played.game)
        actions = reading(app.state_dir, lambda book: book.actions(self.played.id), None)
        if actions is None:
            app.toast("Cannot read", "this game")
            return
        if not actions:  # a play imported from a play file: results, no actions
            app.toast("An imported play:", "no actions to show")
            return
        if spec is None:
            app.toast("This box does not", "know this game")
            return
        try:
            screen = StepScreen(app, spec, actions) if step else ReadOnlyTable(
                app, spec, actions).screen()
        except Exception:  # a game the rules of this release no longer replay
            app.toast("This game does not", "replay here")
            return
        app.push(screen)


class StepScreen(Screen):
    """The game replayed action by action with its own screens: OK next, BACK previous."""

    app: BoxTable

    def __init__(self, app: BoxTable, spec: GameSpec[Any], actions: list[Action]) -> None:
        super().__init__(app)
        self.spec, self.actions = spec, actions
        # Where each step ends: after every action the table made or saw; the box's silent
        # steps (the Café's clock readings) go with the step before them.
        self.ends = [0] + [i + 1 for i, action in enumerate(actions)
                           if spec.rules.follow_up(action, actions[:i]) != ""]
        if self.ends[-1] != len(actions):
            self.ends.append(len(actions))
        self.step = 0
        self.inner = self._build()

    def _build(self) -> Screen:
        return ReadOnlyTable(self.app, self.spec, self.actions[:self.ends[self.step]]).screen()

    @property
    def title(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        return self.inner.title

    @property
    def hint(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        steps = len(self.ends) - 1
        if self.step == 0:
            return f"0/{steps}  OK next step"
        last = self.ends[self.step] - 1
        while last > self.ends[self.step - 1] and \
                self.spec.rules.follow_up(self.actions[last], self.actions[:last]) == "":
            last -= 1  # the step's own action, not the reading after it
        before = self.spec.rules.replay(self.actions[:last])
        said = self.spec.rules.describe_action(self.actions[last], before)
        # What the step did, in the game's own words of any length: as much as the line holds.
        return SMALL.elide(f"{self.step}/{steps} {said}", WIDTH - 2)

    def draw(self, canvas: Canvas) -> None:
        self.inner.draw(canvas)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK") and self.step < len(self.ends) - 1:
            self.step += 1
        elif is_press(event, "BACK") and self.step > 0:
            self.step -= 1
        elif event.button in ("UP", "DOWN"):
            return self.inner.on_button(event)  # scroll the game's own lists
        elif event.button in ("ACTION",):
            self.app.toast(*READ_ONLY)
            return True
        else:
            return event.button == "OK"
        self.inner = self._build()
        return True

