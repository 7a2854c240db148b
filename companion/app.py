"""The loop: one thread owns all state; inputs only post events onto its queue.

The loop waits for the next event or the next deadline (a point on the clock, never a
per-tick counter), turns presses into game actions, journals each action before showing
its result, and redraws the frame, which the display writes only when it changed.
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

from firmware_bridge.events import (
    DiceSettled,
    DieRolling,
    SensorHealth,
    SensorNews,
    SensorOffline,
    SensorOnline,
)
from hardware.buttons import ButtonEvent, PinEdge, PressDecoder, PressTiming
from hardware.ports import Buttons, Buzzer, Clock, Display

from .config import Config
from .events import Call, Stop
from .games import GAMES, GameSpec, RuleError
from .games.base import Action
from .journal import Journal, JournalError, SavedGame
from .ui.canvas import compose
from .ui.widgets import ConfirmScreen, Screen

log = logging.getLogger(__name__)

SENSOR_EVENTS = (SensorOnline, SensorOffline, DieRolling, DiceSettled, SensorHealth)
TOAST_S = 2.5
DIM_CONTRAST = 8


@dataclass
class Hardware:
    """The adapters the app drives, built by :mod:`hardware.device` or :mod:`hardware.sim`."""

    clock: Clock
    display: Display
    buzzer: Buzzer
    buttons: Buttons | None = None
    extras: dict[str, Any] = field(default_factory=dict)  # e.g. the simulator's pin factory

    def close(self) -> None:
        if self.buttons is not None:
            self.buttons.close()
        self.buzzer.close()
        self.display.close()


@dataclass
class Session:
    """The game being played: its actions are the truth, ``state`` their replay."""

    spec: GameSpec
    game_id: int | None
    actions: list[Action]
    state: Any


@dataclass(order=True)
class Timer:
    at: float
    seq: int
    fn: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


@dataclass(frozen=True)
class _Decoded:
    """A press decoded on the loop thread, handled like any other event."""

    event: ButtonEvent


@dataclass
class SensorStatus:
    """What the settings screen tells about the dice sensor; kept up to date by its events."""

    configured: bool = False
    online: bool = False
    sensor_id: str = ""
    firmware: str = ""
    kinds: tuple[str, ...] = ()
    last_problem: str = ""
    counters: dict[str, int] = field(default_factory=dict)
    faces: tuple[str | None, ...] = ()  # the last settled set, in die order


class App:
    """The box. Screens get it as their context: dispatch, undo, push/pop, toast, beep, schedule."""

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
        self.journal_ok = journal is not None
        self.rng = rng or random.Random()
        self.state_dir = state_dir
        self.games = GAMES if games is None else games
        self.sensor = SensorStatus(configured=bool(config.sensor.port))
        self.settings = self._load_settings()
        self.decoder = PressDecoder(
            PressTiming(long_press_s=self.settings["long_press_s"], debounce_s=0.03)
        )
        self.stack: list[Screen] = []
        self.session: Session | None = None
        self.resumable: SavedGame | None = None
        self.game_root: Screen | None = None
        self.frame_listeners: list[Callable[[Image.Image], None]] = []
        self.frames_shown = 0
        self.errors = 0  # unexpected exceptions recovered from (tests expect none)
        self.display_errors = 0
        self._timers: list[Timer] = []
        self._timer_seq = itertools.count()
        self._toast: tuple[list[str], float] | None = None
        self._last_input = self.clock.now()
        self._idle = "awake"  # awake | dim | blank
        self._swallow: set[str] = set()  # buttons whose press only woke the screen
        self._running = False
        self._startup_note = journal_note
        self.last_frame: Image.Image | None = None

    # ----- settings -----------------------------------------------------------------------
    def _load_settings(self) -> dict[str, Any]:
        settings = {
            "volume": self.config.buzzer.volume,
            "contrast": self.config.display.contrast,
            "long_press_s": float(self.config.buttons.long_press_s),
        }
        if self.journal is not None:
            try:
                saved = self.journal.settings()
            except Exception:  # a settings row we cannot read must not stop the box
                log.exception("could not read saved settings")
                saved = {}
            settings.update({k: v for k, v in saved.items() if _valid_setting(k, v)})
        return settings

    def change_setting(self, key: str, value: Any) -> None:
        """Apply a setting now and keep it across restarts."""
        self.settings[key] = value
        if key == "volume":
            self.hardware.buzzer.set_volume(value)
        elif key == "contrast":
            self.hardware.display.set_contrast(value)
        elif key == "long_press_s":
            self.decoder.timing = replace(self.decoder.timing, long_press_s=value)
        if self.journal is not None and self.journal_ok:
            try:
                self.journal.save_setting(key, value)
            except JournalError as exc:
                self._journal_failed(str(exc))

    # ----- start, loop, stop --------------------------------------------------------------
    def start(self) -> None:
        """Show the first frame: the home menu, and the resume question if a game was cut off."""
        from .screens.home import HomeScreen, ResumeScreen

        self.hardware.buzzer.set_volume(self.settings["volume"])
        self.hardware.display.set_contrast(self.settings["contrast"])
        self.stack = [HomeScreen(self)]
        if self.journal is not None:
            self._find_resumable()
            if self.resumable is not None:
                self.push(ResumeScreen(self))
        if self._startup_note:
            self.toast(self._startup_note, error=True)
        self._running = True
        self.render()

    def _find_resumable(self) -> None:
        try:
            saved = self.journal.unfinished()
        except Exception as exc:
            log.exception("could not read the journal")
            self._journal_failed(f"read failed ({exc.__class__.__name__})")
            return
        if saved is None:
            return
        spec = self.games.get(saved.game)
        if spec is None:
            return  # a game this version does not know stays in history
        try:
            spec.describe(spec.replay(saved.actions))
        except Exception as exc:  # a journal from another version, or hand-edited: keep it aside
            log.warning("saved game %s does not replay: %r", saved.id, exc)
            self._journal_write(lambda j: j.set_status(saved.id, "abandoned"))
            self._startup_note = "Saved game could not be replayed; kept in history"
            return
        self.resumable = saved

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
            self.render()

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
        self.render()

    def stop(self) -> None:
        self._running = False

    @property
    def running(self) -> bool:
        return self._running

    def shutdown(self, message: str = "Powered off") -> None:
        """Show a last frame, close the journal cleanly, release the hardware."""
        from .screens.system import PoweredOffScreen

        self.stack = [PoweredOffScreen(self, message)]
        self._toast = None
        self.hardware.display.set_power(True)
        self.render()
        if self.journal is not None:
            self.journal.close()
        self.hardware.close()

    def _handle(self, event: object) -> None:
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
    def schedule(self, at: float, fn: Callable[[], None]) -> Timer:
        """Call ``fn`` on the loop thread once the clock reaches ``at``."""
        timer = Timer(at, next(self._timer_seq), fn)
        heapq.heappush(self._timers, timer)
        return timer

    def every(self, interval: float, fn: Callable[[], None]) -> None:
        """Call ``fn`` every ``interval`` seconds from the loop (e.g. the watchdog ping)."""

        def again() -> None:
            fn()
            self.schedule(self.clock.now() + interval, again)

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
        now = self.clock.now()
        for event in self.decoder.poll(now):
            if event.button not in self._swallow:
                self._handle(_Decoded(event))
        while self._timers and self._timers[0].at <= now:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                try:
                    timer.fn()
                except Exception:
                    self._recover(f"timer {timer.fn!r}")
        if self._toast and now >= self._toast[1]:
            self._toast = None
        self._update_idle(now)

    # ----- idle dimming -------------------------------------------------------------------
    def _keeps_awake(self) -> bool:
        return any(getattr(screen, "keeps_awake", False) for screen in self.stack)

    def _idle_deadline(self) -> float | None:
        if self._keeps_awake() or self._idle == "blank":
            return None
        minutes = self.config.display.dim_after_min if self._idle == "awake" else (
            self.config.display.blank_after_min
        )
        return self._last_input + minutes * 60

    def _update_idle(self, now: float) -> None:
        if self._keeps_awake():
            if self._idle != "awake":
                self._wake()
            self._last_input = now
            return
        idle_s = now - self._last_input
        if self._idle == "awake" and idle_s >= self.config.display.dim_after_min * 60:
            self._idle = "dim"
            self.hardware.display.set_contrast(DIM_CONTRAST)
        if self._idle == "dim" and idle_s >= self.config.display.blank_after_min * 60:
            self._idle = "blank"
            self.hardware.display.set_power(False)

    def _wake(self) -> None:
        self._idle = "awake"
        self.hardware.display.set_power(True)
        self.hardware.display.set_contrast(self.settings["contrast"])

    @property
    def idle_state(self) -> str:
        return self._idle

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
        self._toast = None
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

    # ----- screens ------------------------------------------------------------------------
    def push(self, screen: Screen) -> None:
        self.stack.append(screen)
        screen.on_enter()

    def pop(self) -> None:
        if len(self.stack) > 1:
            self.stack.pop()
            self.stack[-1].on_enter()

    def replace(self, screen: Screen) -> None:
        self.stack[-1] = screen
        screen.on_enter()

    def back(self) -> None:
        """BACK on a screen that did not use it: leave it, but never the game's root."""
        top = self.stack[-1]
        if top is self.game_root:
            self.toast("Hold BACK to undo", "Hold OK for the menu")
        else:
            self.pop()

    def in_game(self) -> bool:
        return self.session is not None and self.game_root in self.stack

    def go_home(self, ask: bool = False) -> None:
        """Back to the home menu; a running game stays saved and can be resumed there."""
        home = self.stack[0]

        def leave() -> None:
            self.stack = [home]
            self.game_root = None
            if self.session and self.session.spec.is_finished(self.session.state):
                self.session = None
            home.on_enter()

        running = self.in_game() and not self.session.spec.is_finished(self.session.state)
        if ask and running:
            self.push(ConfirmScreen(self, "Menu", "Leave the game? It stays saved.", leave))
        else:
            leave()

    def toast(self, *lines: str, error: bool = False) -> None:
        """Show up to two short lines over the screen for a moment."""
        wrapped: list[str] = []
        for line in lines:
            wrapped += _wrap(line)
        self._toast = (wrapped[:2], self.clock.now() + TOAST_S)
        if error:
            self.beep("error")

    def refuse(self, reason: str) -> None:
        """An illegal choice: a two-line reason and an error beep; nothing changes."""
        self.toast(reason, error=True)

    def beep(self, pattern: str) -> None:
        self.hardware.buzzer.play(pattern)

    # ----- games --------------------------------------------------------------------------
    def new_game(self, spec: GameSpec, first_action: Action | None = None) -> bool:
        """Start ``spec`` (the previous unfinished game is kept as history)."""
        state = spec.initial_state()
        actions: list[Action] = []
        if first_action is not None:
            try:
                state = spec.apply(state, first_action)
            except RuleError as exc:
                self.refuse(str(exc))
                return False
            actions.append(first_action)
        game_id = None
        if self.journal is not None and self.journal_ok:
            try:
                game_id = self.journal.new_game(spec.key)
                for action in actions:
                    self.journal.append(game_id, action, spec.is_undoable(action))
            except JournalError as exc:
                self._journal_failed(str(exc))
        self.resumable = None
        self.session = Session(spec, game_id, actions, state)
        self._show_game()
        return True

    def resume(self) -> None:
        """Continue the game in memory, or the one the journal found at start-up."""
        if self.session is None and self.resumable is not None:
            saved = self.resumable
            spec = self.games[saved.game]
            self.session = Session(spec, saved.id, list(saved.actions), spec.replay(saved.actions))
            self.resumable = None
        if self.session is not None:
            self._show_game()

    def abandon_resumable(self) -> None:
        """Keep the cut-off game in history but stop offering it."""
        if self.resumable is not None:
            saved = self.resumable
            self._journal_write(lambda j: j.set_status(saved.id, "abandoned"))
            self.resumable = None

    def _show_game(self) -> None:
        self.game_root = self.session.spec.play(self)
        self.stack = [self.stack[0], self.game_root]
        self.game_root.on_enter()

    def dispatch(self, action: Action) -> bool:
        """Apply a game action: refused with a reason, or journaled and then shown."""
        session = self.session
        if session is None:
            raise RuntimeError("dispatch without a game")
        try:
            new_state = session.spec.apply(session.state, action)
        except RuleError as exc:
            self.refuse(str(exc))
            return False
        if session.game_id is not None and self.journal_ok:
            try:
                self.journal.append(session.game_id, action, session.spec.is_undoable(action))
                if session.spec.is_finished(new_state):
                    self.journal.set_status(session.game_id, "finished")
            except JournalError as exc:
                self._journal_failed(str(exc))
        session.actions.append(action)
        session.state = new_state
        return True

    def undo(self) -> bool:
        """Take back the last action and say what was undone; dice rolls stay."""
        session = self.session
        if session is None or not session.actions:
            self.toast("Nothing to undo")
            return False
        last = session.actions[-1]
        if not session.spec.is_undoable(last):
            # Dice the table has seen (and what the clock decided) stay, as in boardgame.io.
            before = session.spec.replay(session.actions[:-1])
            self.refuse(f"Can't undo: {session.spec.describe_action(last, before)}")
            return False
        was_finished = session.spec.is_finished(session.state)
        if session.game_id is not None and self.journal_ok:
            try:
                self.journal.pop_last(session.game_id)
                if was_finished:
                    self.journal.set_status(session.game_id, "playing")
            except JournalError as exc:
                self._journal_failed(str(exc))
        session.actions.pop()
        session.state = session.spec.replay(session.actions)
        while self.stack[-1] is not self.game_root and len(self.stack) > 1:
            self.stack.pop()
        if self.game_root is not None:
            self.game_root.on_state_changed()
        self.toast(f"Undone: {session.spec.describe_action(last, session.state)}")
        self.beep("ok")
        return True

    # ----- journal trouble ----------------------------------------------------------------
    def _journal_write(self, write: Callable[[Journal], None]) -> None:
        if self.journal is None or not self.journal_ok:
            return
        try:
            write(self.journal)
        except JournalError as exc:
            self._journal_failed(str(exc))

    def _journal_failed(self, reason: str) -> None:
        """Keep playing in memory; say so on screen and in the title bar."""
        log.error("journal off: %s", reason)
        self.journal_ok = False
        self.toast("Journal off:", f"{reason}; game kept in memory", error=True)

    # ----- drawing ------------------------------------------------------------------------
    def status_icons(self) -> str:
        icons = ""
        if self.sensor.configured:
            icons += "◎" if self.sensor.online else "⊘"
        if self.settings["volume"] == 0:
            icons += "🔇"
        if not self.journal_ok:
            icons += "⚠"
        return icons

    def render(self) -> Image.Image:
        """Draw the top screen; the display skips the write when nothing changed."""
        top = self.stack[-1]
        toast = self._toast[0] if self._toast else None
        try:
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        except Exception:
            self._recover(f"drawing {top.name()}")
            top = self.stack[-1]
            toast = self._toast[0] if self._toast else None
            image = compose(top.title, self.status_icons(), top.hint, top.draw, toast)
        self.last_frame = image
        try:
            written = self.hardware.display.show(image)
        except Exception:  # a loose wire or a bus error: log it and try again with the next frame
            self.display_errors += 1
            if self.display_errors in (1, 10, 100) or self.display_errors % 1000 == 0:
                log.exception("display write failed (%d times)", self.display_errors)
            return image
        if written:
            self.frames_shown += 1
            for listener in self.frame_listeners:
                listener(image)
        return image


def _valid_setting(key: str, value: Any) -> bool:
    """A setting saved by an older version, or edited by hand, must pass the config's checks."""
    from .config import SCHEMA

    section = {"volume": "buzzer", "contrast": "display", "long_press_s": "buttons"}.get(key)
    if section is None:
        return False
    field = SCHEMA[section][key]
    kinds = field.kind if isinstance(field.kind, tuple) else (field.kind,)
    if isinstance(value, bool) or not isinstance(value, kinds):
        return False
    return field.check is None or field.check(value) is None


def _wrap(text: str) -> list[str]:
    from .ui.canvas import WIDTH
    from .ui.font import SMALL

    return SMALL.wrap(text, WIDTH - 10)
