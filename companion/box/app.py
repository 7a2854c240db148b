"""The box: one thread owns all state; inputs only post events onto its queue.

The loop waits for the next event or the next deadline (a point on the clock, never a
per-tick counter), turns pin edges into presses and presses into the top screen's calls, and
hands sensor events to the game. This module owns the loop, its deadlines and input;
:class:`App` holds the parts that own the rest: the screen stack (:mod:`.stack`), the game
session and its journal (:mod:`.session`), the idle panel and drawing (:mod:`.panel`) and the
settings (:mod:`.settings`). It implements
:class:`companion.contract.spec.Table`, all that screens may use.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from companion.contract.config import Config
from companion.contract.input import ButtonEvent, SensorStatus
from companion.contract.rules import Action, RuleError
from companion.contract.saved_games import SavedEntry
from companion.contract.spec import BoxTable, GameSpec, Place, Screen, Session
from firmware_bridge.events import (
    DiceSettled,
    DieRolling,
    SensorHealth,
    SensorNews,
    SensorOffline,
    SensorOnline,
)
from hardware.bundle import Hardware
from hardware.buttons import PinEdge
from hardware.ports import Clock as HardwareClock

from ..games.catalog import GAMES
from ..journal.check import Finding
from ..journal.journal import Journal
from ..ui.journal_words import note_text
from ..ui.widgets import ConfirmScreen
from .events import Call, Stop
from .panel import Panel
from .session import GameSession
from .settings import BoxSettings
from .stack import ScreenStack

log = logging.getLogger(__name__)
SETTINGS_S = 1.0   # how often the box looks for settings the phone page changed

SENSOR_EVENTS = (SensorOnline, SensorOffline, DieRolling, DiceSettled, SensorHealth)


@dataclass(order=True)
class Timer:
    at: float
    seq: int
    fn: Callable[[], bool | None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class BoxClock:
    """The hardware's clock with the loop's deadlines: the screens' :class:`Clock`."""

    def __init__(self, clock: HardwareClock, at: Callable[[float, Callable[[], bool | None]], Timer]):
        self._clock = clock
        self.at = at

    def now(self) -> float:
        return self._clock.now()


@dataclass(frozen=True)
class _Decoded:
    """A press decoded on the loop thread, handled like any other event."""

    event: ButtonEvent


class App:
    """The box. Screens get it as their :class:`~companion.contract.spec.Table`: dispatch,
    push/pop, toast, beep, the clock and its deadlines. It owns the loop, its deadlines, input and
    settings, and holds the parts that own the rest: the screen stack (``screens``), the games
    with the session and its journal (``games``) and the panel (``panel``)."""

    def __init__(
        self,
        hardware: Hardware,
        events: queue.SimpleQueue,
        config: Config,
        journal: Journal | None,
        *,
        journal_note: Finding | None = None,
        rng: random.Random | None = None,
        state_dir: Path | None = None,
        games: dict[str, GameSpec] | None = None,
    ) -> None:
        self.hardware = hardware
        self.clock = BoxClock(hardware.clock, self.schedule)
        self.events = events
        self.config = config
        self.rng = rng or random.Random()
        self.state_dir = state_dir
        self.sensor = SensorStatus(configured=bool(config.sensor.port))
        self.screens = ScreenStack(hardware.clock, self.beep)
        self.games = GameSession(self, self.screens, journal, GAMES if games is None else games,
                                 self.clock)
        self.box_settings = BoxSettings(config, self.games.specs, hardware, self.games, state_dir)
        self.settings = self.box_settings.values
        self.decoder = self.box_settings.decoder
        self.panel = Panel(hardware, config, self.settings, self.sensor, self.screens,
                           lambda: self.journal_ok, self._recover)
        self.errors = 0  # unexpected exceptions recovered from (tests expect none)
        self._timers: list[Timer] = []
        self._timer_seq = itertools.count()
        self._swallow: set[str] = set()  # buttons whose press only woke the screen
        self._running = False
        self._startup_note = journal_note

    # ----- what the parts own, as the screens and the tests read it -----------------------
    @property
    def stack(self) -> list[Screen]:
        return self.screens.screens

    @property
    def game_root(self) -> Screen | None:
        return self.screens.game_root

    @property
    def session(self) -> Session | None:
        return self.games.session

    @property
    def journal(self) -> Journal | None:
        return self.games.journal

    @property
    def journal_ok(self) -> bool:
        return self.games.journal_ok

    def push(self, screen: Screen, replace: bool = False) -> None:
        if replace:
            self.screens.replace(screen)
        else:
            self.screens.push(screen)

    def pop(self) -> None:
        self.screens.pop()

    def pop_to(self, to: Screen | Place | None) -> None:
        if to is Place.HOME:
            self.go_home()
        else:
            self.screens.pop_to(self.screens.game_root if to is Place.GAME else to)

    def on_top(self, screen: Screen) -> bool:
        return self.screens.top is screen

    def toast(self, *lines: str, error: bool = False) -> None:
        self.screens.toast(*lines, error=error)

    def notice(self, *lines: str, error: bool = False) -> None:
        self.screens.notice(*lines, error=error)

    def refuse(self, reason: str) -> None:
        self.screens.refuse(reason)

    def beep(self, pattern: str) -> None:
        self.hardware.buzzer.play(pattern)

    def dispatch(self, action: Action) -> bool:
        return self.games.dispatch(action)

    def undo(self) -> bool:
        return self.games.undo()

    def saved_games(self) -> list[SavedEntry]:
        return self.games.saved_games()

    def discard(self, game_id: int | None) -> None:
        self.games.discard(game_id)

    def journal_health(self) -> tuple[str, str | None]:
        return self.games.journal_health()

    def journal_saved_words(self) -> str:
        return self.games.journal_saved_words()

    def go_home(self, ask: bool = False) -> None:
        """Back to the home menu; a running game stays saved and can be resumed there."""
        def leave() -> None:
            if self.game_root is not None and self.session is not None:
                self.game_root.on_leave()  # e.g. the Café pauses a running round
            self.games.leave()
            self.screens.home_only()

        session = self.session
        if ask and self.games.shown() and session and not session.spec.rules.is_finished(session.state):
            self.push(ConfirmScreen(self, "Menu", "Leave the game? It stays saved.", leave))
        else:
            leave()

    # ----- the panel ----------------------------------------------------------------------
    @property
    def idle_state(self) -> str:
        return self.panel.idle_state

    @property
    def last_frame(self) -> Image.Image | None:
        return self.panel.last_frame

    @property
    def frame_listeners(self) -> list[Callable[[Image.Image], None]]:
        return self.panel.frame_listeners

    def status_icons(self) -> str:
        return self.panel.status_icons()

    def render(self) -> Image.Image:
        return self.panel.render()

    # ----- settings (owned by BoxSettings) -----------------------------------------------
    def saved_settings(self) -> dict[str, Any]:
        return self.box_settings.saved()

    def follow_settings(self) -> bool:
        return self.box_settings.follow()

    def change_setting(self, key: str, value: Any) -> None:
        self.box_settings.change(key, value)

    # ----- start, loop, stop --------------------------------------------------------------
    def start(self) -> None:
        """Show the first frame: the home menu, and the resume question if a game was cut off."""
        from ..screens.home import HomeScreen, opening_screens

        self.hardware.buzzer.set_volume(self.settings["volume"])
        self.hardware.display.set_contrast(self.settings["contrast"])
        self.screens.start(HomeScreen(self))
        for screen in opening_screens(self):
            self.push(screen)
        if self._startup_note:
            self.notice(note_text(self._startup_note), error=True)
        if self.journal is not None:
            self.games.journal_news()
            self.every(SETTINGS_S, self.follow_settings)
        self._running = True
        self.render()

    def post(self, event: object) -> None:
        """Thread-safe: hand an input to the loop."""
        self.events.put(event)

    def run(self) -> None:
        """Run until :class:`Stop`, blocking on the queue until the next deadline."""
        if not self._running:
            self.start()
        while self._running:
            timeout = None
            deadline = self.next_deadline()
            if deadline is not None:
                timeout = max(0.0, deadline - self.clock.now())
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                event = None
            if event is not None:
                self._handle(event)
            self._fire_due()
            self.panel.redraw()

    def pump(self) -> None:
        """Handle every queued event and every deadline due now, without blocking (tests)."""
        if not self._running:
            self.start()
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                break
            self._handle(event)
        self._fire_due()
        self.panel.redraw()

    def stop(self) -> None:
        self._running = False

    @property
    def running(self) -> bool:
        return self._running

    def shutdown(self, message: str = "Powered off") -> None:
        """Close the journal cleanly (a last try to write what it holds), show a last frame
        that says whether everything was saved, release the hardware."""
        from ..screens.system import PoweredOffScreen

        if self.journal is not None:
            self.journal.close()
        self.screens.only(PoweredOffScreen(self, message))
        self.hardware.display.set_power(True)
        self.render()
        self.hardware.close()

    def _handle(self, event: object) -> None:
        self.screens.dirty = True
        try:
            self._dispatch_event(event)
        except Exception:
            self._recover(f"event {event!r}")

    def _recover(self, where: str) -> None:
        """A bug must not take the box down or show a traceback: log it, go home, carry on.

        The game is safe in the journal; the home menu offers to resume it.
        """
        log.exception("unexpected error during %s", where)
        self.errors += 1
        if self.stack:
            self.screens.home_only()
        self.toast("Sorry, that went wrong.", "The game is saved.", error=True)

    def _dispatch_event(self, event: object) -> None:
        if isinstance(event, PinEdge):
            self._on_edge(event)
        elif isinstance(event, SENSOR_EVENTS):
            self._on_sensor(event)
        elif isinstance(event, SensorNews):  # the link's coalesced news, handled in place
            for news in event.take():
                self._on_sensor(news)
        elif isinstance(event, _Decoded):
            self._on_button(event.event)
        elif isinstance(event, Call):
            event.fn()
        elif isinstance(event, Stop):
            self._running = False
        else:
            log.warning("unknown event %r", event)

    # ----- deadlines ----------------------------------------------------------------------
    def schedule(self, at: float, fn: Callable[[], bool | None]) -> Timer:
        """Call ``fn`` on the loop thread once the clock reaches ``at``."""
        timer = Timer(at, next(self._timer_seq), fn)
        heapq.heappush(self._timers, timer)
        return timer

    def every(self, interval: float, fn: Callable[[], bool | None]) -> None:
        """Call ``fn`` every ``interval`` seconds from the loop (e.g. the watchdog ping); it
        returns False when it changed nothing on the screen."""

        def again() -> bool | None:
            self.schedule(self.clock.now() + interval, again)
            return fn()

        self.schedule(self.clock.now() + interval, again)

    def next_deadline(self) -> float | None:
        while self._timers and self._timers[0].cancelled:
            heapq.heappop(self._timers)
        candidates = [
            self._timers[0].at if self._timers else None,
            self.decoder.next_deadline(),
            self.screens.toast_ends,
            self.panel.idle_deadline(),
        ]
        return min((c for c in candidates if c is not None), default=None)

    def _fire_due(self) -> None:
        """Run what is due; anything that runs may change the frame (a timer redraws the
        Café clock's digits when its whole second changes), unless it says it did not (False)."""
        now = self.clock.now()
        for event in self.decoder.poll(now):
            if event.button not in self._swallow:
                self._handle(_Decoded(event))
        while self._timers and self._timers[0].at <= now:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                try:
                    if timer.fn() is not False:
                        self.screens.dirty = True
                except Exception:
                    self.screens.dirty = True
                    self._recover(f"timer {timer.fn!r}")
        ends = self.screens.toast_ends
        if ends is not None and now >= ends:
            self.screens.clear_toast(now)
        self.panel.update_idle(now)

    # ----- input --------------------------------------------------------------------------
    def _on_edge(self, edge: PinEdge) -> None:
        if edge.pressed and self.panel.woken_by(edge.at):
            self._swallow.add(edge.button)  # this press only wakes the screen
        for event in self.decoder.feed(edge):
            if event.button not in self._swallow:
                self._on_button(event)
        if not edge.pressed:
            self._swallow.discard(edge.button)

    def _on_button(self, event: ButtonEvent) -> None:
        now = self.clock.now()
        self.panel.touched(now)
        self.screens.clear_toast(now)
        top = self.stack[-1]
        if event.button == "OK" and event.kind == "long" and not top.owns_long_ok:
            self.go_home(ask=True)
            return
        if event.button == "BACK" and event.kind == "long" and self.games.shown():
            self.undo()
            return
        try:
            handled = top.on_button(event)
        except RuleError as exc:
            self.refuse(str(exc))
            return
        if not handled and event.button == "BACK":
            self.screens.back()

    def _on_sensor(self, event: object) -> None:
        if isinstance(event, SensorOnline):
            self.sensor.online = True
            self.sensor.sensor_id, self.sensor.firmware = event.sensor_id, event.firmware
            self.sensor.kinds = event.kinds
        elif isinstance(event, SensorOffline):
            self.sensor.online = False
            self.sensor.last_problem = event.reason
        elif isinstance(event, DiceSettled):
            self.sensor.faces = event.faces
        elif isinstance(event, SensorHealth):
            self.sensor.counters = dict(event.counters)
            self.sensor.last_problem = event.last_problem or self.sensor.last_problem
            return  # bookkeeping for the settings screen; nothing for a game to do
        for screen in {id(s): s for s in (self.stack[-1], self.game_root) if s}.values():
            screen.on_sensor(event)


if TYPE_CHECKING:  # mypy checks that the app is all the screens are promised
    def _as_table(app: App) -> BoxTable:
        return app
