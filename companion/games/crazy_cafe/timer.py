"""The running round: the round clock, every action with its effects (:func:`act`), and the
screens they push, time's up and Double Trouble.

The round clock is a controller that schedules its next deadline with ``app.clock.at``
(the box's clock): one timer at a time, derived from the state's deadline, never a per-tick
counter. Every action goes through :func:`act`, which journals it and then carries out its
effects (timer, beeps, Double Trouble screen, the box's setup roll)."""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

from companion.contract.rules import Action
from companion.contract.spec import Place, Screen
from companion.frame.canvas import WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.widgets import is_press
from companion.ui.words import plural

from . import rules
from .rules import KINDS
from .view import FACE_LABELS, TICK_FROM, WARN_AT, ShowsClock, _state, mmss, round_title

# While a round runs the time used is journaled at least this often (a "clock" action), so a
# power cut costs the round at most MOST_LOST_S of its time: the second between them is for a
# loop that runs late (the reading is taken at its first step after it is due).
CLOCK_EVERY_S = 3.0
MOST_LOST_S = 4.0

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Scheduled, Session, Table


# ----- the round clock --------------------------------------------------------------------------

class RoundClock:
    """Keeps one deadline on ``app.clock.at`` for the running round: cues, redraws, time up,
    and a clock reading for the journal every few seconds.

    After a stall only the latest cue that fell due is played (missed ticks never pile up),
    and the picture is always drawn from the state's deadline, so it shows the true time.
    """

    def __init__(self, app: Table, warn_at: tuple[float, ...] = WARN_AT, tick_from: int = TICK_FROM):
        self.app = app
        self.warn_at, self.tick_from = warn_at, tick_from
        self.session: Session[rules.CafeState] | None = None  # the game whose deadlines are on this clock
        self.deadline: float | None = None
        self.announced = 0  # the rounds of that game whose TIME'S UP the table has been shown
        self.handled_until = -math.inf
        self._timer: Scheduled | None = None

    def cues(self, deadline: float) -> list[tuple[float, str]]:
        """Every cue of a round ending at ``deadline``, in time order."""
        cues = [(deadline - s, "warn") for s in self.warn_at]
        cues += [(deadline - s, "tick") for s in range(self.tick_from, 0, -1)]
        cues.append((deadline, "alarm"))
        return sorted(cues)

    def sync(self) -> None:
        """Re-arm from the game state (after any action, undo or resume)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        session = self.app.games.session
        if session is None or session.spec.key != "cafe":
            self.deadline = None
            return
        now = self.app.clock.now()
        timed_out = _timed_out(session.state)
        if session is self.session and timed_out > self.announced:
            # Time ran out in a change the clock did not make (an undo of a pause, journaled
            # with its time up): say it once the undo has been shown.
            self.app.clock.at(now, lambda: self._announce(session))
        self.announced = timed_out
        if session.state.phase != "running":
            self.deadline = None
            return
        if session is not self.session or session.state.deadline != self.deadline:
            # A new deadline (start, resume, undo): cues already behind us are not played.
            self.handled_until = now
        self.session, self.deadline = session, rules.deadline_of(session.state)
        self._arm(now, self.deadline)

    def _arm(self, now: float, deadline: float) -> None:
        left = deadline - now
        wake = now  # a deadline already behind us (e.g. an undone pause): time is up now
        if left > 0:
            # The next change of the whole seconds shown; cues all sit on whole seconds.
            redraw = deadline - (math.ceil(left - 1e-9) - 1)
            upcoming = [at for at, _ in self.cues(deadline) if at > self.handled_until]
            wake = min([redraw, self._reading_due(), *upcoming[:1]])
        self._timer = self.app.clock.at(max(wake, now), self._wake)

    def _reading_due(self) -> float:
        last = _state(self.app).last_at
        return -math.inf if last is None else last + CLOCK_EVERY_S

    def _wake(self) -> None:
        self._timer = None
        app, deadline = self.app, self.deadline
        if app.games.session is not self.session or _state(app).phase != "running" \
                or deadline is None:
            return
        now = app.clock.now()
        due = [(at, pattern) for at, pattern in self.cues(deadline)
               if self.handled_until < at <= now]
        self.handled_until = max(self.handled_until, now)
        if now >= deadline:
            self.expire(now)
            return
        if due:
            app.beep(due[-1][1])  # only the latest one: a stall never fires a burst
        if self._reading_due() - 1e-9 <= now < deadline - rules.EPSILON_S:
            app.dispatch({"type": "clock", "at": now})
        self._arm(now, deadline)

    def adopt(self, session: Session[rules.CafeState]) -> None:
        """Take on a game this boot has not played (resumed from the journal): its rounds
        that ran out before were announced by the boot that played them."""
        self.session, self.announced = session, _timed_out(session.state)

    def expire(self, now: float) -> None:
        """The deadline has passed: the alarm, the round ends, TIME'S UP over the game."""
        app = self.app
        app.beep("alarm")
        self.announced += 1  # shown here, not again by the sync that follows the action
        if not act(app, {"type": "time_up", "at": now}):
            self.announced -= 1
        elif app.games.shown():
            self._show_times_up()

    def _announce(self, session: Session[rules.CafeState]) -> None:
        if self.app.games.session is session:
            self.app.beep("alarm")
            if self.app.games.shown():
                self._show_times_up()

    def _show_times_up(self) -> None:
        app = self.app
        app.pop_to(Place.GAME)  # a menu left open is over with the round
        app.push(TimesUpScreen(app, _state(app).rounds[-1]))


def _timed_out(state: rules.CafeState) -> int:
    """How many of the game's rounds ended with time running out."""
    return sum(log.ended == "time up" for log in state.rounds)


_CLOCKS: weakref.WeakKeyDictionary[Table, RoundClock] = weakref.WeakKeyDictionary()


def clock_for(app: Table) -> RoundClock:
    """The app's round clock (one per box, so it keeps running while the menu is shown)."""
    if app not in _CLOCKS:
        _CLOCKS[app] = RoundClock(app)
    return _CLOCKS[app]


# ----- actions and their effects -------------------------------------------------------------------

def roll_faces(app: Table, dice: tuple[int, ...]) -> list[str | None]:
    """The box rolls ``dice`` with ``app.rng``; the other dice keep the faces the box knows."""
    known = _state(app).faces
    return [app.rng.choice(rules.FACES_OF[KINDS[i]]) if i in dice else known[i] for i in range(4)]


def act(app: Table, action: Action) -> bool:
    """Dispatch ``action``; then re-arm the clock, sound and show what it caused.

    During a running round the action carries the clock's reading, so the rules refuse it
    once the deadline has passed; a press the loop handles after the deadline but before the
    clock's own wake is refused here with a reason, and the round ends at once."""
    state = _state(app)
    if state.phase == "running" and action.get("type") != "time_up":
        now = app.clock.now()
        if now >= rules.deadline_of(state) - rules.EPSILON_S:
            app.refuse("Too late: time\nwas already up")
            clock_for(app).expire(now)
            return False
        action = {**action, "at": action.get("at", now)}
    if not app.dispatch(action):
        return False
    after = _state(app)
    clock_for(app).sync()
    if after.trouble:
        app.beep("warn")
        if app.games.shown():
            app.push(DoubleTroubleScreen(app, after.trouble))
    return True


def start_round(app: Table) -> None:
    """OK on a ready round: box dice are rolled first (rounds 2 and 3), then the clock starts."""
    state = _state(app)
    if rules.setup_of(state).dice == "box" and state.rounds:
        # "You prepare the subsequent round ... as described in the game setup": roll all 4.
        # Rolled at the start rather than at the end of the last round, so that a mistaken
        # last "order done" can still be undone.
        app.dispatch({"type": "roll", "kind": "setup", "faces": roll_faces(app, (0, 1, 2, 3)),
                      "source": "box"})
    act(app, {"type": "round_start", "at": app.clock.now()})


def _reroll(app: Table) -> None:
    """Box dice: roll every die not on an order (a Double Trouble check follows), or first the
    dice an order freed if they still wait for their roll (e.g. after a power cut)."""
    state = _state(app)
    if state.to_roll:
        roll_freed(app)
        return
    unused = tuple(i for i in range(4) if not state.placed[i])
    act(app, {"type": "roll", "kind": "reroll", "faces": roll_faces(app, unused), "source": "box"})


def roll_freed(app: Table) -> None:
    """Box dice: "The dice used are re-rolled", with no Double Trouble check."""
    act(app, {"type": "roll", "kind": "freed", "faces": roll_faces(app, _state(app).to_roll),
              "source": "box"})


class TimesUpScreen(Screen):
    """Fills the screen until OK: the round is over, by the clock (TIME'S UP) or because
    every order was served (ALL DONE!)."""

    hint = "OK next round"
    keeps_awake = True

    def __init__(self, app: Table, log: rules.RoundLog) -> None:
        super().__init__(app)
        self.log = log
        self.title = round_title(log.number)
        if log.number == rules.ROUNDS:
            self.hint = "OK result"

    def draw(self, canvas: Canvas) -> None:
        canvas.draw.rectangle((0, canvas.top, WIDTH - 1, canvas.bottom - 1), fill=255)
        log = self.log
        text = "ALL DONE!" if log.ended == "all done" else "TIME'S UP"
        MEDIUM.draw(canvas.image, ((WIDTH - MEDIUM.width(text)) // 2, canvas.top + 4), text, fill=0)
        if log.number == rules.ROUNDS:
            line = "Every order served!" if not log.left else f"{plural(log.left, 'order')} left"
        elif log.ended == "all done":
            line = f"with {mmss(log.time_left or 0)} to spare"
        else:
            line = f"Set {plural(log.carried, 'order')} aside"
        SMALL.draw(canvas.image, ((WIDTH - SMALL.width(line)) // 2, canvas.top + 24), line, fill=0)
        sub = f"{log.fulfilled} of {log.laid_out + log.extra_drawn} fulfilled"
        SMALL.draw(canvas.image, ((WIDTH - SMALL.width(sub)) // 2, canvas.top + 34), sub, fill=0)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.pop()
        return event.button in ("OK", "ACTION", "UP", "DOWN")


class DoubleTroubleScreen(ShowsClock, Screen):
    """What the table must do now: flip one order, or draw a new one (the time left in the
    title: the round runs on)."""

    hint = "OK done"

    def __init__(self, app: Table, trouble: str) -> None:
        super().__init__(app)
        self.trouble = trouble
        self.title = "TROUBLE!"  # "Double Trouble" and the time do not fit beside every icon

    def draw(self, canvas: Canvas) -> None:
        state = _state(self.app)
        if self.trouble == "flip":
            canvas.center(1, "Flip one order to")
            canvas.center(10, "its dark side")
            doubled = [f for f in state.faces if f is not None and state.faces.count(f) > 1]
            if doubled:
                canvas.center(19, f"(double {FACE_LABELS[doubled[0]]})")
        else:
            canvas.center(1, "All orders are dark:")
            canvas.center(10, "draw a NEW order,")
            canvas.center(19, "light side up")
        if state.phase in ("running", "paused"):
            light, dark = str(state.light), str(state.dark)
            width = 8 + MEDIUM.width(light) + 14 + 8 + MEDIUM.width(dark)
            x = canvas.text((WIDTH - width) // 2, 33, "○")
            x = canvas.text(x + 3, 29, light, MEDIUM)
            x = canvas.text(x + 14, 33, "●")
            canvas.text(x + 3, 29, dark, MEDIUM)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.pop()
            return True
        if event.button == "ACTION":
            # The notice must be read: the next ◆ (a reroll) would flash it past.
            self.app.beep("tick")
            return True
        return False
