"""The box: one thread owns all state; inputs only post events onto its queue.

The loop waits for the next event or the next deadline (a point on the clock, never a
per-tick counter), turns pin edges into presses and presses into the top screen's calls, and
hands sensor events to the game. This module owns the loop, its deadlines, input and settings;
:class:`App` also takes the screen stack (:mod:`.stack`), the game session and its journal
(:mod:`.session`) and the idle panel and drawing (:mod:`.panel`). It implements
:class:`companion.contract.spec.Table`, all that screens may use.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PIL import Image

from companion.contract.rules import RuleError
from companion.contract.spec import GameSpec, Screen, Session
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

from .. import cards
from ..config import Config
from ..games.catalog import GAMES
from ..input import ButtonEvent, PressDecoder, PressTiming, SensorStatus
from ..journal import health_file
from ..journal.journal import Journal
from .events import Call, Stop
from .panel import Panel
from .session import GameSession, SavedGames
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


@dataclass(frozen=True)
class _Decoded:
    """A press decoded on the loop thread, handled like any other event."""

    event: ButtonEvent


class App(ScreenStack, GameSession, Panel):
    """The box. Screens get it as their :class:`~companion.contract.spec.Table`: dispatch, undo,
    push/pop, toast, beep, schedule."""

    def __init__(
        self,
        hardware: Hardware,
        events: queue.Queue,
        config: Config,
        journal: Journal | None,
        *,
        journal_note: str | None = None,
        rng: random.Random | None = None,
        state_dir: Path | None = None,
        games: dict[str, GameSpec] | None = None,
    ) -> None:
        self.hardware = hardware
        self.clock = hardware.clock
        self.events = events
        self.config = config
        self.journal = journal
        self.rng = rng or random.Random()
        self.state_dir = state_dir
        self.games = GAMES if games is None else games
        self._card_paths = cards.installer_paths(config, self.games)  # config.toml's
        self.sensor = SensorStatus(configured=bool(config.sensor.port))
        self.settings = self._load_settings()
        self.decoder = PressDecoder(
            PressTiming(long_press_s=self.settings["long_press_s"], debounce_s=0.03)
        )
        self.stack: list[Screen] = []
        self.session: Session | None = None
        self._saved = SavedGames()
        self._retrying = False
        self._played_at = 0.0
        self.health_dir = health_file.runtime_dir()
        self._published_health = ""
        self.game_root: Screen | None = None
        self.frame_listeners: list[Callable[[Image.Image], None]] = []
        self.frames_shown = 0
        self.errors = 0  # unexpected exceptions recovered from (tests expect none)
        self.display_errors = 0
        self._timers: list[Timer] = []
        self._timer_seq = itertools.count()
        self._toast: tuple[list[str], float] | None = None
        self._notice_until = float("-inf")
        self._toast_next: list[str] | None = None
        self._last_input = self.clock.now()
        self._idle = "awake"  # awake | dim | blank
        self._swallow: set[str] = set()  # buttons whose press only woke the screen
        self._running = False
        self._startup_note = journal_note
        self.last_frame: Image.Image | None = None
        self._dirty = True  # something may have changed the frame since it was last drawn

    # ----- settings -----------------------------------------------------------------------
    def _load_settings(self) -> dict[str, Any]:
        settings = {
            "volume": self.config.buzzer.volume,
            "contrast": self.config.display.contrast,
            "long_press_s": float(self.config.buttons.long_press_s),
        }
        settings.update({k: v for k, v in self._saved_settings().items() if k in settings})
        return settings

    def saved_settings(self) -> dict[str, Any]:
        """The settings set on the box or the phone page that override the config's (About
        lists them, as ``companion doctor`` does)."""
        return self._saved_settings()

    def _saved_settings(self) -> dict[str, Any]:
        """The journal's settings (set here or on the phone page) that pass the config's checks;
        the house rules among them go into the config's game sections, which setups read."""
        from .. import settings as store
        from ..games.catalog import config_sections

        if self.journal is None:
            return {}
        # The card files saved on the phone page, read by the next setup (a game in progress
        # carries its own in its setup action).
        try:
            cards.apply(self.config, self.state_dir, self.games, self._card_paths)
        except OSError as exc:  # the state directory unreadable: the files read so far stay
            log.warning("card files saved on the phone not looked at: %s", exc)
        try:
            rows = self.journal.settings()
        except Exception:  # a settings row we cannot read must not stop the box
            log.exception("could not read saved settings")
            return {}
        fields = store.settable(config_sections(self.games))
        valid = {}
        for key, value in rows.items():
            if key in fields:
                try:
                    valid[key] = store.check(fields[key], value)
                except store.ConfigError:
                    log.warning("saved setting %s = %r left out: it fails its check", key, value)
        store.apply_games(self.config, valid, fields)
        return valid

    def follow_settings(self) -> bool:
        """What the phone page set since the last look: used at once, as if set here (a game in
        progress keeps its setup's options). True when the frame may show a change."""
        saved = self._saved_settings()
        changed = False
        for key in ("volume", "contrast", "long_press_s"):
            if key in saved and saved[key] != self.settings[key]:
                self._use_setting(key, saved[key])
                changed = True
        return changed

    def change_setting(self, key: str, value: Any) -> None:
        """Apply a setting now and keep it across restarts."""
        self._use_setting(key, value)
        self._journal_write(lambda j: j.save_setting(key, value))

    def _use_setting(self, key: str, value: Any) -> None:
        self.settings[key] = value
        if key == "volume":
            self.hardware.buzzer.set_volume(value)
        elif key == "contrast":
            self.hardware.display.set_contrast(value)
        elif key == "long_press_s":
            self.decoder.timing = replace(self.decoder.timing, long_press_s=value)

    # ----- start, loop, stop --------------------------------------------------------------
    def start(self) -> None:
        """Show the first frame: the home menu, and the resume question if a game was cut off."""
        from ..screens.home import HomeScreen, ResumeScreen

        self.hardware.buzzer.set_volume(self.settings["volume"])
        self.hardware.display.set_contrast(self.settings["contrast"])
        self.stack = [HomeScreen(self)]
        saved = self.saved_games()
        if saved:
            self.push(ResumeScreen(self, saved))
        if self._startup_note:
            self.notice(self._startup_note, error=True)
        if self.journal is not None:
            self._journal_news()
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
            self.redraw()

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
        self.redraw()

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
        self.stack = [PoweredOffScreen(self, message)]
        self._toast = None
        self.hardware.display.set_power(True)
        self.render()
        self.hardware.close()

    def _handle(self, event: object) -> None:
        self._dirty = True
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
        home = self.stack[0] if self.stack else None
        if home is not None:
            self.stack = [home]
            self.game_root = None
            home.on_enter()
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
            self._toast[1] if self._toast else None,
            self._idle_deadline(),
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
                        self._dirty = True
                except Exception:
                    self._dirty = True
                    self._recover(f"timer {timer.fn!r}")
        if self._toast and now >= self._toast[1]:
            self.clear_toast(now)
        self._update_idle(now)

    # ----- input --------------------------------------------------------------------------
    def _on_edge(self, edge: PinEdge) -> None:
        if edge.pressed:
            if self._idle != "awake":
                self._swallow.add(edge.button)  # this press only wakes the screen
                self._wake()
            self._last_input = edge.at
        for event in self.decoder.feed(edge):
            if event.button not in self._swallow:
                self._on_button(event)
        if not edge.pressed:
            self._swallow.discard(edge.button)

    def _on_button(self, event: ButtonEvent) -> None:
        self._last_input = self.clock.now()
        self.clear_toast(self._last_input)
        top = self.stack[-1]
        if event.button == "OK" and event.kind == "long" and not top.owns_long_ok:
            self.go_home(ask=True)
            return
        if event.button == "BACK" and event.kind == "long" and self.in_game():
            self.undo()
            return
        try:
            handled = top.on_button(event)
        except RuleError as exc:
            self.refuse(str(exc))
            return
        if not handled and event.button == "BACK":
            self.back()

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
