"""Crazy Café screens: setup, the round timer, dice, Double Trouble, time's up and the result.

The round clock is a controller that schedules its next deadline with ``app.schedule`` on
``app.clock``: one timer at a time, derived from the state's deadline, never a per-tick
counter. Every action goes through :func:`act`, which journals it and then carries out its
effects (timer, beeps, Double Trouble screen, the box's setup roll).
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any

from companion.config import Field
from companion.games.base import Action
from companion.ui.canvas import WIDTH, Canvas
from companion.ui.font import LARGE, MEDIUM, SMALL
from companion.ui.widgets import ChoiceScreen, MenuItem, MenuScreen, Screen, is_down, is_press, is_up
from firmware_bridge.events import DiceSettled

from . import rules
from .rules import KINDS, CafeState

if TYPE_CHECKING:
    from companion.games.base import Scheduled, Session, Table
    from companion.input import ButtonEvent


TITLE = "Crazy Café"  # the spec's title, on the home menu and every game screen


def _round_seconds_ok(value: Any) -> str | None:
    return None if 10 <= value <= 1800 else "must be between 10 and 1800"


CONFIG = {
    "round_seconds": Field(rules.DEFAULT_ROUND_S, int, "length of a round in seconds (rulebook: 180)",
                           _round_seconds_ok),
}

DICE_NAMES = {"box": "Box rolls", "sensor": "Sensor", "manual": "Table dice"}
FACE_LABELS = {
    "burger": "Burger", "donut": "Donut", "pizza": "Pizza", "fries": "Fries", "salad": "Salad",
    "cake": "Cake", "cola": "Cola", "milkshake": "Shake", "coffee": "Coffee", "juice": "Juice",
    "water": "Water", "bill": "Bill",
}
# 7x7 pictures of the die faces, drawn in a 9x9 box ('#' ink).
FACE_ICONS: dict[str, tuple[str, ...]] = {
    "burger": (".#####.", "#######", ".......", "#######", ".......", "#######", ".#####."),
    "donut": ("..###..", ".#####.", "##...##", "##...##", "##...##", ".#####.", "..###.."),
    "pizza": ("#######", ".##.##.", ".#####.", "..#.#..", "..###..", "...#...", "......."),
    "fries": (".#.#.#.", ".#.#.#.", "##.#.##", "#######", "#.....#", ".#...#.", ".#####."),
    "salad": ("..#.#..", ".#.#.#.", "#######", "#.....#", ".#...#.", "..###..", "......."),
    "cake": ("...#...", "...#...", ".#####.", "#######", "#.#.#.#", "#######", "#######"),
    "cola": ("...#...", "..###..", "..###..", ".#####.", ".#...#.", ".#####.", ".#####."),
    "milkshake": ("....#..", "...#...", "#######", ".#####.", ".#...#.", "..#.#..", "..###.."),
    "coffee": (".#.#...", "#.#....", "######.", "#....##", "#....#.", ".####..", "......."),
    "juice": ("....##.", "..###..", ".#####.", "###.###", "#######", ".#####.", "..###.."),
    "water": ("...#...", "...#...", "..###..", ".#####.", ".#####.", ".#####.", "..###.."),
    "bill": ("######.", "#....##", "#.##..#", "#.....#", "#.###.#", "#.....#", "#######"),
    "?": ("..###..", ".#...#.", ".....#.", "....#..", "...#...", ".......", "...#..."),
}

# Cues before the deadline: warnings at 1:00 and 0:30, a tick each second from 0:10.
WARN_AT: tuple[float, ...] = (60.0, 30.0)
TICK_FROM = 10


def round_seconds(app: Table) -> int:
    """The configured round length ([games.cafe] round_seconds)."""
    section = app.config.games.get("cafe")
    return int(section["round_seconds"]) if section else rules.DEFAULT_ROUND_S


def mmss(seconds: float) -> str:
    """Whole seconds left, rounded up so 0:00 shows only when time is up."""
    whole = max(0, math.ceil(seconds - 1e-9))
    return f"{whole // 60}:{whole % 60:02d}"


def _state(app: Table) -> CafeState:
    return app.session.state


def round_title(number: int) -> str:
    """The title bar during round ``number``: the game and where it stands."""
    return f"{TITLE} · Round {number}"


def roll_prompt(dice: tuple[int, ...]) -> str:
    """What to roll after an order: "Roll die 2", "Roll dice 1 2 3 4" (fits the width)."""
    if len(dice) == 1:
        return f"Roll die {dice[0] + 1}"
    return "Roll dice " + " ".join(str(i + 1) for i in dice)


# What a short ACTION does during a round, by dice mode; the hint line reads the same way in
# every mode, only this word changes.
ACTION_VERB = {"box": "roll", "sensor": "done", "manual": "done"}


def action_verb(state: CafeState) -> str:
    """The word for a short ACTION press in the running round."""
    setup = state.setup
    if setup.dice == "manual" and setup.double_trouble:
        return "double"
    return ACTION_VERB[setup.dice]


# ----- the round clock --------------------------------------------------------------------------

class RoundClock:
    """Keeps one deadline on ``app.schedule`` for the running round: cues, redraws, time up.

    After a stall only the latest cue that fell due is played (missed ticks never pile up),
    and the picture is always drawn from the state's deadline, so it shows the true time.
    """

    def __init__(self, app: Table, warn_at: tuple[float, ...] = WARN_AT, tick_from: int = TICK_FROM):
        self.app = app
        self.warn_at, self.tick_from = warn_at, tick_from
        self.session: Session | None = None  # the game whose deadlines are on this clock
        self.deadline: float | None = None
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
        session = self.app.session
        if session is None or session.spec.key != "cafe" or session.state.phase != "running":
            self.deadline = None
            return
        now = self.app.clock.now()
        if session is not self.session or session.state.deadline != self.deadline:
            # A new deadline (start, resume, undo): cues already behind us are not played.
            self.handled_until = now
        self.session, self.deadline = session, session.state.deadline
        self._arm(now)

    def _arm(self, now: float) -> None:
        left = self.deadline - now
        wake = now  # a deadline already behind us (e.g. an undone pause): time is up now
        if left > 0:
            # The next change of the whole seconds shown; cues all sit on whole seconds.
            redraw = self.deadline - (math.ceil(left - 1e-9) - 1)
            upcoming = [at for at, _ in self.cues(self.deadline) if at > self.handled_until]
            wake = min([redraw, *upcoming[:1]])
        self._timer = self.app.schedule(max(wake, now), self._wake)

    def _wake(self) -> None:
        self._timer = None
        app = self.app
        if app.session is not self.session or _state(app).phase != "running":
            return
        now = app.clock.now()
        due = [(at, pattern) for at, pattern in self.cues(self.deadline)
               if self.handled_until < at <= now]
        self.handled_until = max(self.handled_until, now)
        if now >= self.deadline:
            self._time_up(now)
            return
        if due:
            app.beep(due[-1][1])  # only the latest one: a stall never fires a burst
        self._arm(now)

    def _time_up(self, now: float) -> None:
        app = self.app
        app.beep("alarm")
        if act(app, {"type": "time_up", "at": now}) and app.in_game():
            while app.stack[-1] is not app.game_root:  # a menu left open is over with the round
                app.pop()
            app.push(TimesUpScreen(app, _state(app).rounds[-1]))


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
    """Dispatch ``action``; then re-arm the clock, sound and show what it caused."""
    if not app.dispatch(action):
        return False
    after = _state(app)
    clock_for(app).sync()
    if after.trouble:
        app.beep("warn")
        if app.in_game():
            app.push(DoubleTroubleScreen(app, after.trouble))
    return True


def start_round(app: Table) -> None:
    """OK on a ready round: box dice are rolled first (rounds 2 and 3), then the clock starts."""
    state = _state(app)
    if state.setup.dice == "box" and state.rounds:
        # "You prepare the subsequent round ... as described in the game setup": roll all 4.
        # Rolled at the start rather than at the end of the last round, so that a mistaken
        # last "order done" can still be undone.
        app.dispatch({"type": "roll", "kind": "setup", "faces": roll_faces(app, (0, 1, 2, 3)),
                      "source": "box"})
    act(app, {"type": "round_start", "at": app.clock.now()})


def _reroll(app: Table) -> None:
    """Box dice: roll every die not on an order (a Double Trouble check follows)."""
    state = _state(app)
    unused = tuple(i for i in range(4) if not state.placed[i])
    act(app, {"type": "roll", "kind": "reroll", "faces": roll_faces(app, unused), "source": "box"})


def _order_done(app: Table, side: str, dice: tuple[int, ...] | None) -> None:
    action: Action = {"type": "order_done", "side": side, "at": app.clock.now()}
    if dice is not None:
        action["dice"] = list(dice)
    if act(app, action):
        state = _state(app)
        app.beep("ok")
        if state.to_roll and state.setup.dice == "box":
            # "The dice used are re-rolled": no Double Trouble check on these.
            app.dispatch({"type": "roll", "kind": "freed",
                          "faces": roll_faces(app, state.to_roll), "source": "box"})


def start_order_done(app: Table) -> None:
    """ACTION (or hold ACTION): which side, which dice, then the order is done."""
    state = _state(app)
    if state.phase != "running":
        app.refuse("Paused: press OK\nto go on" if state.phase == "paused" else "No round running")
        return

    def with_side(side: str) -> None:
        if state.setup.dice == "manual":
            _order_done(app, side, None)
        else:
            app.push(DicePickScreen(app, side))

    if state.light and state.dark:
        def choose(index: int) -> None:
            app.pop()
            with_side(rules.SIDES[index])

        app.push(ChoiceScreen(app, "Order done", "Which side was it?", ["Light side", "Dark side"],
                              choose))
    else:
        with_side("light" if state.light else "dark")


# ----- drawing helpers ---------------------------------------------------------------------------

def draw_face(canvas: Canvas, x: int, y: int, face: str | None, placed: bool = False) -> None:
    """One die as a 9x9 box at body-relative (x, y); a die on an order is drawn inverted."""
    top = canvas.top + y
    draw = canvas.draw
    draw.rectangle((x, top, x + 8, top + 8), outline=255, fill=255 if placed else 0)
    ink = 0 if placed else 255
    for row, cells in enumerate(FACE_ICONS[face or "?"]):
        for col, cell in enumerate(cells):
            if cell == "#":
                draw.point((x + 1 + col, top + 1 + row), fill=ink)


def draw_dice(canvas: Canvas, x: int, y: int, state: CafeState) -> int:
    """The four dice in a row (yellow pair, gap, blue pair); returns the x after them."""
    for index in range(4):
        dx = x + index * 11 + (3 if index >= 2 else 0)
        draw_face(canvas, dx, y, state.faces[index], state.placed[index])
    return x + 4 * 11 + 3


# ----- setup -----------------------------------------------------------------------------------

class SetupScreen(MenuScreen):
    """Start first, then the choices: The Next Level, special menus, dice, round length."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, f"{TITLE} · setup", [])
        self.double_trouble = False
        self.special_menus = False
        self.dice = "box"
        self.seconds = round_seconds(app)
        self.on_enter()

    def on_enter(self) -> None:
        on_off = {True: "On", False: "Off"}
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Double Trouble", self._toggle("double_trouble"), on_off[self.double_trouble]),
            MenuItem("Special menus", self._toggle("special_menus"), on_off[self.special_menus]),
            MenuItem("Dice", self._next_dice, DICE_NAMES[self.dice]),
            MenuItem("Round", self._next_length, mmss(self.seconds)),
        ]

    def _toggle(self, name: str) -> Any:
        def flip() -> None:
            setattr(self, name, not getattr(self, name))
            self.on_enter()

        return flip

    def _next_dice(self) -> None:
        # Sensor dice only when a sensor is configured: without one no roll would ever arrive.
        modes = [m for m in rules.DICE_MODES if m != "sensor" or self.app.sensor.configured]
        self.dice = modes[(modes.index(self.dice) + 1) % len(modes)] if self.dice in modes else modes[0]
        self.on_enter()

    def _next_length(self) -> None:
        # Common house lengths, plus the configured one.
        lengths = sorted({120, 150, 180, 240, 300, round_seconds(self.app)})
        later = [s for s in lengths if s > self.seconds]
        self.seconds = later[0] if later else lengths[0]
        self.on_enter()

    def _start(self) -> None:
        action: Action = {"type": "setup", "round_seconds": self.seconds,
                          "double_trouble": self.double_trouble,
                          "special_menus": self.special_menus, "dice": self.dice}
        if self.dice == "box":
            # "Roll all 4 dice once": the setup roll, never a Double Trouble.
            action["faces"] = [self.app.rng.choice(rules.FACES_OF[k]) for k in KINDS]
        app = self.app
        if app.game_root is self:
            # A saved game that never got its setup (journals from before the setup became
            # final): set this one up rather than starting another.
            if app.dispatch(action):
                app.resume()
            return
        app.new_game(app.games["cafe"], action)


def new_game(app: Table) -> Screen:
    return SetupScreen(app)


# ----- the root screen ----------------------------------------------------------------------------

class CafeScreen(Screen):
    """The game's root: round preparation, the running timer, and the result."""

    @property
    def state(self) -> CafeState:
        return _state(self.app)

    @property
    def keeps_awake(self) -> bool:  # a running timer never dims
        return self.state.phase == "running"

    @property
    def title(self) -> str:
        state = self.state
        if state.phase == "finished":
            return f"{TITLE} · result"
        if state.phase == "setup":
            return f"{TITLE} · setup"
        return round_title(state.round)

    @property
    def hint(self) -> str:
        state = self.state
        if state.phase == "ready":
            return "OK start the timer"
        if state.phase == "finished":
            return "OK menu  hold BACK ↶"
        if state.phase == "paused":
            return "OK go on  ▲▼ fix count"
        return f"◆{action_verb(state)} OK pause ▼list"

    def on_enter(self) -> None:
        clock_for(self.app).sync()

    def on_state_changed(self) -> None:
        clock_for(self.app).sync()

    # ----- drawing -----
    def draw(self, canvas: Canvas) -> None:
        phase = self.state.phase
        if phase == "ready":
            self._draw_ready(canvas)
        elif phase == "finished":
            self._draw_result(canvas)
        else:
            self._draw_timer(canvas)

    def _draw_ready(self, canvas: Canvas) -> None:
        state = self.state
        y = 0
        if state.rounds:
            last = state.rounds[-1]
            how = f"all done, {mmss(last.time_left or 0)} left" if last.ended == "all done" else (
                f"{last.carried} set aside")
            canvas.text(1, 1, f"Round {last.number}: {how}")
            y = 9
        count = rules.orders_for_round(state.round, state.carried)
        canvas.text(1, y + 5, "Lay out")
        x = canvas.text(SMALL.width("Lay out") + 5, y + 1, str(count), MEDIUM)
        canvas.text(x + 4, y + 5, "orders" if count != 1 else "order")
        carried = " (with set-aside)" if state.round == rules.ROUNDS and state.carried else ""
        canvas.text(1, y + 18, "light side up" + carried)
        if state.setup.special_menus:
            canvas.text(1, y + 27, f"Draw a round {state.round} menu")
        elif state.setup.dice == "sensor" and not self.app.sensor.online:
            canvas.text(1, y + 27, "Sensor offline")
        elif state.setup.dice == "sensor" and None in state.faces:
            canvas.text(1, y + 27, "Roll all 4 dice")
        elif state.setup.dice == "box" and state.rounds:
            canvas.text(1, y + 27, "OK rolls all 4 dice")
        elif state.setup.dice == "box":
            draw_dice(canvas, 1, y + 27, state)
            canvas.text(52, y + 28, "dice rolled")

    def _draw_timer(self, canvas: Canvas) -> None:
        state = self.state
        left = rules.time_left(state, self.app.clock.now())
        canvas.text(1, 1, mmss(left), LARGE)
        x = 84
        for row, (icon, count) in enumerate((("○", state.light), ("●", state.dark))):
            y = 1 + row * 17
            canvas.text(x, y + 5, icon)
            canvas.text(x + 8, y, str(count), MEDIUM)
        y = 28
        if state.setup.dice != "manual":
            x = draw_dice(canvas, 1, y, state)
            if state.setup.dice == "sensor" and not self.app.sensor.online:
                canvas.text(x + 2, y + 1, "Sensor offline")
        if state.phase == "paused":
            canvas.text(1, y + 10, "PAUSED")
        elif state.to_roll:
            canvas.text(1, y + 10, roll_prompt(state.to_roll))
        else:
            canvas.text(1, y + 10, f"{state.open_orders} open: ○light ●dark")

    def _draw_result(self, canvas: Canvas) -> None:
        state = self.state
        won = state.result == "won"
        canvas.big(1, "YOU WIN!" if won else "YOU LOSE")
        left = state.rounds[-1].left
        canvas.center(19, "Every order served" if won else f"{left} order{'s' * (left != 1)} left")
        parts = [f"R{log.number} {log.fulfilled}/{log.laid_out + log.extra_drawn}"
                 for log in state.rounds]
        canvas.center(28, "  ".join(parts))
        flips = sum(log.dark_flips for log in state.rounds)
        if state.setup.double_trouble:
            canvas.center(37, f"Dark flips {flips}, drawn {sum(r.extra_drawn for r in state.rounds)}")

    # ----- buttons and sensor -----
    def on_button(self, event: ButtonEvent) -> bool:
        app, state = self.app, self.state
        if state.phase == "finished":
            if is_press(event, "OK"):
                app.go_home()
                return True
            return False
        if state.phase == "ready":
            if is_press(event, "OK"):
                start_round(app)
                return True
            if is_press(event, "ACTION"):
                # The table may reach for the big button first: say which one starts the round.
                app.refuse("OK starts the timer")
                return True
            return event.button == "ACTION"
        return self._in_round(event)

    def _in_round(self, event: ButtonEvent) -> bool:
        app, state = self.app, self.state
        mode = state.setup.dice
        if is_press(event, "OK"):
            kind = "pause" if state.phase == "running" else "resume"
            act(app, {"type": kind, "at": app.clock.now()})
        elif is_up(event) or is_down(event):
            if event.kind == "short":
                app.push(TableScreen(app))
        elif event.button == "ACTION" and event.kind == "long":
            start_order_done(app)
        elif is_press(event, "ACTION"):
            if state.phase == "paused":
                app.refuse("Paused: press OK\nto go on")
            elif mode == "box":
                _reroll(app)
            elif mode == "manual" and state.setup.double_trouble:
                act(app, {"type": "double"})
            else:
                start_order_done(app)
        else:
            return False
        return True

    def on_sensor(self, event: Any) -> None:
        if isinstance(event, DiceSettled):
            sensor_reading(self.app, event)


def sensor_reading(app: Table, event: DiceSettled) -> bool:
    """A sensor reading enters as the same ``roll`` action a box roll makes."""
    state = _state(app)
    if state.setup is None or state.setup.dice != "sensor" or state.phase == "finished":
        return False
    if event.kinds and tuple(event.kinds) != KINDS:
        app.refuse("Sensor dice are not\nthe café dice")
        return False
    kind = "setup" if state.phase == "ready" else "freed" if state.to_roll else "reroll"
    return act(app, {"type": "roll", "kind": kind, "faces": list(event.faces), "source": "sensor"})


def play(app: Table) -> Screen:
    """The root screen; a round cut off by a power cut resumes paused at its last reading."""
    state = _state(app)
    if state.phase == "setup":
        return SetupScreen(app)
    clock = clock_for(app)
    if state.phase == "running" and clock.session is not app.session:
        # The deadline belongs to a clock from before the restart: keep the time left as of the
        # last recorded action and let the table resume with OK.
        at = state.last_at if state.last_at is not None else state.deadline
        if at < state.deadline - rules.EPSILON_S:
            app.dispatch({"type": "pause", "at": at})
        else:
            app.dispatch({"type": "time_up", "at": at})
    return CafeScreen(app)


# ----- pushed screens ---------------------------------------------------------------------------

class TimesUpScreen(Screen):
    """Fills the screen until OK: the round is over."""

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
        text = "TIME'S UP"
        MEDIUM.draw(canvas.image, ((WIDTH - MEDIUM.width(text)) // 2, canvas.top + 4), text, fill=0)
        log = self.log
        if log.number == rules.ROUNDS:
            line = "Every order served!" if not log.left else f"{log.left} order(s) left"
        else:
            line = f"Set {log.carried} order{'s' * (log.carried != 1)} aside"
        SMALL.draw(canvas.image, ((WIDTH - SMALL.width(line)) // 2, canvas.top + 24), line, fill=0)
        sub = f"{log.fulfilled} of {log.laid_out + log.extra_drawn} fulfilled"
        SMALL.draw(canvas.image, ((WIDTH - SMALL.width(sub)) // 2, canvas.top + 34), sub, fill=0)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.pop()
        return event.button in ("OK", "ACTION", "UP", "DOWN")


class DoubleTroubleScreen(Screen):
    """What the table must do now: flip one order, or draw a new one."""

    title = "DOUBLE TROUBLE!"
    hint = "OK done"

    def __init__(self, app: Table, trouble: str) -> None:
        super().__init__(app)
        self.trouble = trouble

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
        if is_press(event, "ACTION"):
            # The next double can come at once: take it from here too.
            self.app.pop()
            return self.app.stack[-1].on_button(event)
        return False


class TableScreen(MenuScreen):
    """Dice on orders (box and sensor dice) and +/- order corrections; BACK returns."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Dice & orders", [])
        self.hint = "OK change  ◆ roll dice" if _state(app).setup.dice == "box" else (
            "OK change  BACK back")
        self.on_enter()

    def on_enter(self) -> None:
        app = self.app
        state = _state(app)
        if state.phase not in ("running", "paused"):
            self.items = []
            return
        items: list[MenuItem] = []
        if state.setup.dice != "manual":
            for i in range(4):
                face = FACE_LABELS.get(state.faces[i] or "", "?")
                items.append(MenuItem(f"Die {i + 1} {face}", self._toggle(i),
                                      "on order" if state.placed[i] else "free"))
        for sign, verb in (("+", "add_order"), ("-", "remove_order")):
            for side in rules.SIDES:
                items.append(MenuItem(f"{sign}1 {side} order", self._correct(verb, side),
                                      str(state.light if side == "light" else state.dark)))
        # Last, so UP from the top reaches it: the same as hold ACTION, in every dice mode.
        items.append(MenuItem("Order done", self._order_done, "hold◆"))
        self.items = items
        self.selected = min(self.selected, len(items) - 1)

    def _toggle(self, die: int) -> Any:
        def toggle() -> None:
            placed = not _state(self.app).placed[die]
            act(self.app, {"type": "place", "die": die, "placed": placed})
            self.on_enter()

        return toggle

    def _order_done(self) -> None:
        self.app.pop()
        start_order_done(self.app)

    def _correct(self, verb: str, side: str) -> Any:
        def correct() -> None:
            act(self.app, {"type": verb, "side": side})
            self.on_enter()

        return correct

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "ACTION") and _state(self.app).setup.dice == "box":
            self.app.pop()
            _reroll(self.app)
            return True
        if not self.items:
            return False
        return super().on_button(event)


class DicePickScreen(MenuScreen):
    """Order done with box or sensor dice: which dice were on it (they are rolled again)."""

    hint = "OK tick  ◆ confirm"

    def __init__(self, app: Table, side: str) -> None:
        super().__init__(app, "Which dice on it?", [])
        self.side = side
        state = _state(app)
        self.picked = {i for i in range(4) if state.placed[i]}
        if len(self.picked) > 1:
            self.picked = set()  # dice may lie on several orders: ask, do not guess
        self.on_enter()

    def on_enter(self) -> None:
        state = _state(self.app)
        items = []
        for i in range(4):
            face = FACE_LABELS.get(state.faces[i] or "", "?")
            mark = "✓" if i in self.picked else ("on order" if state.placed[i] else "")
            items.append(MenuItem(f"Die {i + 1} {face}", self._tick(i), mark))
        items.append(MenuItem("Order done", self._confirm))
        self.items = items

    def _tick(self, die: int) -> Any:
        def tick() -> None:
            self.picked ^= {die}
            self.on_enter()

        return tick

    def _confirm(self) -> None:
        self.app.pop()
        _order_done(self.app, self.side, tuple(sorted(self.picked)))

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "ACTION"):
            self._confirm()
            return True
        return super().on_button(event)


# ----- named screens for the walk and the golden PNGs ---------------------------------------------

_MANUAL_DT = ("game:cafe", "menu:Double", "menu:Dice", "menu:Start")
WALK: dict[str, tuple[str, ...]] = {
    "setup": ("game:cafe",),
    "ready": ("game:cafe", "menu:Start"),
    "ready-special-menu": ("game:cafe", "menu:Special", "menu:Start"),
    "timer": ("game:cafe", "menu:Start", "OK", "+65"),
    "timer-last-seconds": ("game:cafe", "menu:Start", "OK", "+172.5"),
    "paused": ("game:cafe", "menu:Start", "OK", "+20", "OK"),
    "table": ("game:cafe", "menu:Start", "OK", "DOWN"),
    "double-trouble": ("game:cafe", "menu:Double", "menu:Start", "OK", "+3", "ACTION"),
    "double-trouble-manual": (*_MANUAL_DT, "OK", "+3", "ACTION"),
    "draw-new": (*_MANUAL_DT, "OK", "ACTION", "OK", "ACTION", "OK", "ACTION", "OK", "ACTION", "OK",
                 "ACTION", "OK", "ACTION"),
    "times-up": ("game:cafe", "menu:Start", "OK", "+181"),
    "round-2": ("game:cafe", "menu:Start", "OK", "+181", "OK"),
    "result": ("game:cafe", "menu:Dice", "menu:Start",
               "OK", "+181", "OK", "OK", "+181", "OK", "OK", "ACTION", "ACTION", "ACTION",
               "+181", "OK"),
}
