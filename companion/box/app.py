"""The box: one thread owns all state; inputs only post events onto its queue.

The loop waits for the next event or the next deadline (a point on the clock, never a
per-tick counter), turns pin edges into presses and presses into the top screen's calls, and
hands sensor events to the game. This module owns the loop, its deadlines and input;
:class:`App` holds and wires the parts that own the rest: the screen stack (:mod:`.stack`),
play and its journal (:mod:`.play`), the panel (:mod:`.panel`), the settings
(:mod:`.settings`) and the table the screens are given (:mod:`.table`).

A press, the whole way (docs/architecture.md): ``run`` → ``_on_edge`` → ``_on_button`` → the
top screen's ``on_button`` → ``table.dispatch`` → ``Play.apply`` (the rules, the journal) →
``table.show`` (its :class:`~companion.box.play.Outcome` on the stack) → back in ``run``,
``panel.redraw`` draws one frame.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import queue
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.appliance import hotspot_state
from companion.contract.config import Config
from companion.contract.input import ButtonEvent, SensorStatus
from companion.contract.rules import RuleError
from companion.contract.spec import GameSpec
from companion.records.dice import SEARCH_MARK
from companion.records.settings import CHANGED_MARK, HANDED
from firmware_bridge.events import (
    DiceBattery,
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
from .dice import BoxDice
from .events import Call, Stop
from .panel import Health, Panel
from .play import Play
from .settings import BoxSettings
from .stack import ScreenStack
from .table import ScreenTable
from .updates import (
    install_question,
    is_news,
    is_release,
    plugins_health,
    set_aside_health,
    spool_of,
    update_health,
)
from .watch import FolderWatch, Watched

log = logging.getLogger(__name__)
SENSOR_EVENTS = (SensorOnline, SensorOffline, DieRolling, DiceSettled, SensorHealth, DiceBattery)


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
    """The box's loop, its deadlines and input, and the parts it wires once: the devices
    (``hardware``), the ``clock``, the screen ``stack``, ``play``, the ``panel``, the
    ``settings`` and the ``table`` the screens are given."""

    def __init__(
        self,
        hardware: Hardware,
        events: queue.SimpleQueue[Any],
        config: Config,
        journal: Journal | None,
        *,
        journal_note: Finding | None = None,
        rng: random.Random | None = None,
        state_dir: Path | None = None,
        games: dict[str, GameSpec[Any]] | None = None,
    ) -> None:
        self.hardware = hardware
        self.clock = BoxClock(hardware.clock, self.schedule)
        self.events = events
        self.sensor = SensorStatus(configured=bool(config.sensor.port or config.dice.smart))
        self.stack = ScreenStack(hardware.clock, hardware.buzzer.play)
        self.play = Play(journal, GAMES if games is None else games, self.clock)
        self.settings = BoxSettings(config, self.play.specs, hardware, self.play, state_dir)
        self.panel = Panel(hardware, config, self.settings.values, self.stack, self._recover)
        self.dice = BoxDice(config, hardware, events.put, self.play, self.sensor, state_dir,
                            unpaired=self.panel.forget)
        self.play.tell = self.panel.tell
        self.panel.tell(Health("journal", self.play.journal_ok))
        self.table = ScreenTable(self.stack, self.play, self.settings, hardware, self.clock,
                                 config=config, rng=rng or random.Random(), sensor=self.sensor,
                                 state_dir=state_dir, dice=self.dice)
        self.errors = 0  # unexpected exceptions recovered from (tests expect none)
        self._timers: list[Timer] = []
        self._timer_seq = itertools.count()
        self._swallow: set[str] = set()  # buttons whose press only woke the screen
        self._running = False
        self._startup_note = journal_note
        self.watch = FolderWatch(self._told_by_files(state_dir))
        self.dice.start()

    # ----- start, loop, stop --------------------------------------------------------------
    def start(self) -> None:
        """Show the first frame: the home menu, and the resume question if a game was cut off."""
        from ..screens.home import HomeScreen, opening_screens

        self.hardware.buzzer.set_volume(self.settings.values["volume"])
        self.hardware.display.set_contrast(self.settings.values["contrast"])
        self.stack.start(HomeScreen(self.table))
        for screen in opening_screens(self.table):
            self.stack.push(screen)
        if self._startup_note:
            self.stack.notice(note_text(self._startup_note), error=True)
        for news in (plugins_health(), set_aside_health()):
            if news is not None:
                self.panel.tell(news)
        if self.play.journal is not None:
            self.play.journal_news()
        self.watch.start()
        self._running = True
        self.panel.render()

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

    def _told_by_files(self, state_dir: Path | None) -> list[Watched]:
        """The files other processes leave for the box (:mod:`.watch`): the phone page's mark
        that settings or card files were saved and the release files it took (in ``handed/``,
        the one folder of the state directory the page may write to: a release is installed
        only once someone at the box says OK), the updater's news for the panel, and the
        news of the box's own Wi-Fi network (companion-hotspot.service's)."""
        if state_dir is None or self.play.journal is None:
            return []
        spool, handed = spool_of(state_dir), state_dir / HANDED
        for folder in (handed, spool):  # made by systemd-tmpfiles on the box
            with contextlib.suppress(OSError):
                folder.mkdir(exist_ok=True)

        def update_news(name: str) -> None:
            health = update_health(spool, name)
            if health is not None:
                self.panel.tell(health)

        def handed_over(name: str) -> None:
            if name == CHANGED_MARK:
                self.settings.follow()
                self.dice.follow()
            elif name == SEARCH_MARK:
                self.dice.search()
            elif is_release(name):
                question = install_question(self.table, handed, spool, name, self.panel.tell)
                if question is not None:
                    self.panel.wake()
                    self.stack.push(question)

        def wifi_news(_name: str) -> None:  # the box's own Wi-Fi network opened, or left
            state = hotspot_state.read_state(state_dir)
            told = state.told() if state is not None else None
            if told is not None:
                self.panel.tell(Health("wifi", told[0], told[1], error=not told[0]))

        return [
            Watched(handed, lambda name: name in (CHANGED_MARK, SEARCH_MARK) or is_release(name),
                    handed_over, self.events.put),
            Watched(spool, is_news, update_news, self.events.put),
            # made by systemd-tmpfiles for companion-hotspot.service (root): not made here
            Watched(state_dir / hotspot_state.STATE_FOLDER,
                    lambda name: name == hotspot_state.STATE_NAME, wifi_news, self.events.put),
        ]

    def stop(self) -> None:
        self._running = False

    @property
    def running(self) -> bool:
        return self._running

    def shutdown(self, message: str = "Powered off") -> None:
        """Close the journal cleanly (a last try to write what it holds), show a last frame
        that says whether everything was saved, release the hardware."""
        from ..screens.system import PoweredOffScreen

        if self.play.journal is not None:
            self.play.journal.close()
            self.play.journal_news()  # what the close could not write shows as ⚠
        self.stack.only(PoweredOffScreen(self.table, message))
        self.hardware.display.set_power(True)
        self.panel.render()
        self.close()

    def close(self) -> None:
        """Let go of the watched folders and the hardware."""
        self.watch.stop()
        self.dice.stop()
        self.hardware.close()

    def _handle(self, event: object) -> None:
        # A pin edge that completes no press (the press of a button that acts on release)
        # changes nothing on the screen: a press draws one frame, not two.
        if not isinstance(event, PinEdge):
            self.stack.dirty = True
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
        if self.stack.screens:
            self.stack.home_only()
        self.stack.toast("Sorry, that went wrong.", "The game is saved.", error=True)

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
            self.settings.decoder.next_deadline(),
            self.stack.toast_ends,
            self.panel.idle_deadline(),
        ]
        return min((c for c in candidates if c is not None), default=None)

    def _fire_due(self) -> None:
        """Run what is due; anything that runs may change the frame (a timer redraws the
        Café clock's digits when its whole second changes), unless it says it did not (False)."""
        now = self.clock.now()
        for event in self.settings.decoder.poll(now):
            if event.button not in self._swallow:
                self._handle(_Decoded(event))
        while self._timers and self._timers[0].at <= now:
            timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                try:
                    if timer.fn() is not False:
                        self.stack.dirty = True
                except Exception:
                    self.stack.dirty = True
                    self._recover(f"timer {timer.fn!r}")
        ends = self.stack.toast_ends
        if ends is not None and now >= ends:
            self.stack.clear_toast(now)
        self.panel.update_idle(now)

    # ----- input --------------------------------------------------------------------------
    def _on_edge(self, edge: PinEdge) -> None:
        if edge.pressed and self.panel.woken_by(edge.at):
            self._swallow.add(edge.button)  # this press only wakes the screen
        for event in self.settings.decoder.feed(edge):
            if event.button not in self._swallow:
                self._on_button(event)
        if not edge.pressed:
            self._swallow.discard(edge.button)

    def _on_button(self, event: ButtonEvent) -> None:
        self.stack.dirty = True
        now = self.clock.now()
        self.panel.touched(now)
        self.stack.clear_toast(now)
        top = self.stack.top
        if event.button == "OK" and event.kind == "long" and not top.owns_long_ok:
            self.table.go_home(ask=True)
            return
        if event.button == "BACK" and event.kind == "long" and self.table.shown():
            self.table.undo()
            return
        try:
            handled = top.on_button(event)
        except RuleError as exc:
            self.stack.refuse(str(exc))
            return
        if not handled and event.button == "BACK":
            self.stack.back()

    def _on_sensor(self, event: object) -> None:
        if isinstance(event, (SensorOnline, SensorOffline)):
            self.panel.tell(Health("sensor", isinstance(event, SensorOnline)))
        if isinstance(event, (SensorOnline, SensorOffline, DiceBattery)):
            self.dice.tell_page()  # a die came, went or told its charge
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
        elif isinstance(event, DiceBattery):
            self.sensor.battery = event.percent
            return
        for screen in {id(s): s for s in (self.stack.top, self.stack.game_root) if s}.values():
            screen.on_sensor(event)

