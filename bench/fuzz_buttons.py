"""Fuzz section: the buttons. A seeded random walk of raw pin edges on the simulated box's
MockFactory pins, through every screen of all three games, on the virtual clock.

Gestures: taps, long presses, UP/DOWN held into auto-repeat, chords of two buttons, contact
bounce (1–5 ms level flips) on presses and releases, and waits from a blink to minutes (idle
dimming and blanking, a Café round running out). Each episode starts a game of the next kind
from the home menu, or walks to one of the named screens (``companion.simulator.walk``) first; now and
then the box is cut off and started again on the same journal (the resume question).

- ``button_edges``: pin level changes driven (≥ 10⁵ in the full campaign).
- ``button_exceptions``: exceptions the loop recovered from (``App.errors``, "Sorry, that went
  wrong") and any that escaped the box (aim 0).
- ``invariant_breaks``: checks after every gesture that failed (aim 0): the game state is the
  replay of the game's actions, the journal holds exactly those actions, the frame is not blank
  unless the panel is blanked, no text was cut to fit, and the event queue, the timers and the
  screen stack stay small. ``invariant_kinds`` counts them by check.
- ``button_screens``: distinct screens seen on top; ``button_screens_missed``: screen classes
  of the games and the box never reached (neither they nor a subclass of theirs).

    python bench/fuzz_buttons.py [--quick]

``run(quick)`` returns the figures as a dict.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from companion.contract.spec import Screen
from companion.frame.font import BitmapFont
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens, run_steps
from hardware.buttons import BUTTON_NAMES

# Bounds of "small": far above what a person's presses need, far below a leak.
MAX_QUEUE, MAX_TIMERS, MAX_STACK = 64, 32, 12
EDGES = {True: 12_000, False: 110_000}        # quick: CI; full: the campaign
NAMED_STARTS = {True: 8, False: None}          # named screens walked to first (None: all)


class Walker:
    """One simulated box at a time, driven by raw pin edges, with the invariants checked."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.edges = 0
        self.gestures = 0
        self.exceptions = 0
        self.breaks: Counter[str] = Counter()
        self.examples: list[str] = []
        self.screens: Counter[str] = Counter()
        self.classes: set[type] = set()
        self.games_started: Counter[str] = Counter()
        self.max_queue = self.max_timers = self.max_stack = 0
        self.cut: list[tuple[str, str]] = []  # (screen, text) cut to fit since the last check
        self.box: SimBox | None = None
        self._checked: tuple[Any, ...] = ()
        self._session: Any = None

    # ----- the box ------------------------------------------------------------------------
    def open(self, state_dir: Path) -> SimBox:
        """A new box on ``state_dir`` (the last one is closed); its presses count as edges."""
        self.close()
        box = SimBox(state_dir, seed=self.rng.randrange(1 << 30))
        finger = box.finger

        def counted(move: Callable[[str], None]) -> Callable[[str], None]:
            def drive(button: str) -> None:
                pin = finger.pin(button)
                level = pin.state
                move(button)
                self.edges += pin.state != level
            return drive

        finger.down, finger.up = counted(finger.down), counted(finger.up)  # walk steps count too
        self.box = box
        self._errors = box.app.errors
        self._checked = ()
        return box

    def close(self) -> None:
        """Power the box off as the service does (its last frame checked), or it is cut off."""
        box, self.box = self.box, None
        if box is None:
            return
        if self.rng.random() < 0.5:
            box.close()  # a power cut: the next box on this journal asks to resume
            return
        box.app.shutdown()
        self.classes.add(type(box.app.stack.screens[-1]))
        if box.frame().getbbox() is None:
            self.breaks["blank"] += 1

    @contextlib.contextmanager
    def watching_text(self) -> Iterator[None]:
        """Note every text cut to fit while the box draws, with the screen on top."""
        fit = BitmapFont.fit

        def spy_fit(font: BitmapFont, text: str, width: int) -> str:
            out = fit(font, text, width)
            if out != text and self.box is not None:
                self.cut.append((self.box.app.stack.screens[-1].name(), text[:40]))
            return out

        BitmapFont.fit = spy_fit
        try:
            yield
        finally:
            BitmapFont.fit = fit

    # ----- gestures -----------------------------------------------------------------------
    def _flip(self, button: str, pressed: bool) -> None:
        finger = self.box.finger
        (finger.down if pressed else finger.up)(button)

    def _bounce(self, button: str, pressed: bool) -> None:
        """Contact bounce before the level settles at ``pressed``: a few 1–5 ms flips."""
        if self.rng.random() < 0.3:
            for _ in range(self.rng.randrange(1, 4)):
                self._flip(button, pressed)
                self.box.clock.advance(self.rng.uniform(0.001, 0.005))
                self._flip(button, not pressed)
                self.box.clock.advance(self.rng.uniform(0.001, 0.005))
        self._flip(button, pressed)
        self._note_queue()
        self.box.app.pump()

    def gesture(self) -> None:
        """One random gesture: a wait, a chord, or a press (short, long, or held to repeat)."""
        rng, long_s = self.rng, self.box.app.settings.values["long_press_s"]
        roll = rng.random()
        if roll < 0.08:  # a wait: mostly short, sometimes minutes (dim, blank, time up)
            seconds = rng.uniform(0.1, 3) if rng.random() < 0.8 else rng.uniform(20, 400)
            if seconds > 5:
                self.box.jump(seconds)  # as if the loop had stalled, then caught up
            else:
                self.box.advance(seconds)
            return
        if roll < 0.16:  # a chord: two buttons down together, released in either order
            first, second = rng.sample(BUTTON_NAMES, 2)
            self._bounce(first, True)
            self.box.advance(rng.uniform(0, 0.1))
            self._bounce(second, True)
            self.box.advance(rng.uniform(0.05, long_s + 0.5))
            for button in rng.sample((first, second), 2):
                self._bounce(button, False)
                self.box.advance(rng.uniform(0, 0.05))
            return
        button = rng.choices(BUTTON_NAMES, weights=(3, 3, 5, 2, 4))[0]
        held = rng.uniform(0.02, 0.25)
        if rng.random() < 0.12:
            held = rng.uniform(long_s, long_s + 1.2) if button not in ("UP", "DOWN") else \
                rng.uniform(0.5, 2.5)  # a long press, or UP/DOWN into auto-repeat
        self._bounce(button, True)
        self.box.advance(held)
        self._bounce(button, False)
        self.box.advance(rng.uniform(0.02, 0.3))

    # ----- invariants ---------------------------------------------------------------------
    def _note_queue(self) -> None:
        self.max_queue = max(self.max_queue, self.box.app.events.qsize())

    def _break(self, kind: str, detail: str, screen: str = "") -> None:
        """Count a failed check; keep the first example of each kind on each screen."""
        self.breaks[kind] += 1
        where = f"{kind} on {screen or self.box.screen.name()}"
        if len(self.examples) < 12 and not any(e.startswith(where + ":") for e in self.examples):
            self.examples.append(f"{where}: {detail}")

    def check(self) -> None:
        """Count what went wrong since the last check; note the screen and any new game."""
        app = self.box.app
        self.gestures += 1
        if app.errors != self._errors:
            self.exceptions += app.errors - self._errors
            self._errors = app.errors
        screen = app.stack.screens[-1]
        self.classes.add(type(screen))
        self.screens[screen.name()] += 1
        session = app.play.session
        if session is not None and session is not self._session:
            self._session = session
            self.games_started[session.spec.key] += 1
        if session is not None:
            seen = (id(session), len(session.actions), id(session.actions[-1]) if session.actions else 0)
            if seen != self._checked:
                self._checked = seen
                if session.spec.rules.replay(session.actions) != session.state:
                    self._break("replay", f"state is not the replay of {len(session.actions)} actions")
                if app.play.journal is not None and app.play.journal_ok and session.game_id is not None \
                        and app.play.journal.load(session.game_id).actions != session.actions:
                    self._break("journal", "journal differs from the session's actions")
        if app.panel.idle_state != "blank" and self.box.frame().getbbox() is None:
            self._break("blank", "blank frame while awake")
        if self.cut:
            screen, text = self.cut[0]
            self._break("cut_text", repr(text), screen)
            self.cut.clear()
        self.max_timers = max(self.max_timers, len(app._timers))
        self.max_stack = max(self.max_stack, len(app.stack.screens))
        if (app.events.qsize() > MAX_QUEUE or len(app._timers) > MAX_TIMERS
                or len(app.stack.screens) > MAX_STACK):
            self._break("queue", f"queue {app.events.qsize()}, timers {len(app._timers)}, "
                                 f"stack {len(app.stack.screens)}")

    # ----- episodes -----------------------------------------------------------------------
    def episode(self, start: tuple[str, ...], gestures: int) -> None:
        """Walk steps to a start (``companion.simulator.walk``), then ``gestures`` random gestures."""
        self.check()  # a box just started may be asking to resume
        with contextlib.suppress(ValueError):  # a walk that does not fit: the random walk goes on
            run_steps(self.box, start)
        self.check()
        for _ in range(gestures):
            self.gesture()
            self.check()


def _all_screen_classes() -> set[type]:
    """Every concrete screen class of the box and the games."""
    found, todo = set(), [Screen]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("companion.") and "draw" in _defined(sub):
                found.add(sub)
    return found


def _defined(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is Screen:
            break
        names.update(vars(klass))
    return names


def run(quick: bool, seed: int = 1913) -> dict[str, Any]:
    """The section's figures: ``quick`` for CI (about 12,000 edges), else the campaign."""
    started = time.perf_counter()
    rng = random.Random(seed)
    named = [steps for _, steps in sorted(named_screens().items())]
    if NAMED_STARTS[quick] is not None:
        named = rng.sample(named, NAMED_STARTS[quick])
    starts = [f"menu:{spec.title}" for spec in GAMES.values()] + ["menu:Settings", "menu:About"]
    walker = Walker(rng)
    logging.disable(logging.CRITICAL)  # recovered errors are counted, not printed
    # State directories about as long as the box's own (/var/lib/companion), as About shows it.
    with tempfile.TemporaryDirectory(prefix="fz") as tmp, walker.watching_text():
        try:
            episode = 0
            while walker.edges < EDGES[quick]:
                if named:  # each named screen once, each on a fresh box
                    walker.open(Path(tmp, f"n{len(named)}"))
                    walker.episode(named.pop(), 100)
                    continue
                if episode % 4 == 0:  # a fresh box, or the same journal after a power off or cut
                    walker.open(Path(tmp, f"b{episode // 8}"))
                elif walker.box.app.stack.top is not walker.box.app.stack.home:
                    walker.box.app.table.go_home()
                    walker.box.app.pump()
                walker.episode((starts[episode % len(starts)],), 150)
                episode += 1
        except Exception as exc:  # anything out of the box itself is what this section counts
            walker.exceptions += 1
            walker.examples.append(f"escaped: {type(exc).__name__}: {exc}"[:160])
        finally:
            logging.disable(logging.NOTSET)
            walker.close()
    missed = sorted(cls.__name__ for cls in _all_screen_classes()
                    if not any(issubclass(seen, cls) for seen in walker.classes))
    return {
        "button_edges": walker.edges,
        "button_gestures": walker.gestures,
        "button_games_started": dict(sorted(walker.games_started.items())),
        "button_exceptions": walker.exceptions,
        "invariant_breaks": sum(walker.breaks.values()),
        "invariant_kinds": dict(sorted(walker.breaks.items())),
        "invariant_examples": walker.examples,
        "button_screens": len(walker.screens),
        "button_screens_missed": missed,
        "button_max_queue": walker.max_queue,
        "button_max_timers": walker.max_timers,
        "button_max_stack": walker.max_stack,
        "buttons_seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="about 12,000 edges, for CI")
    print(json.dumps(run(parser.parse_args(argv).quick), indent=2))


if __name__ == "__main__":
    main()
