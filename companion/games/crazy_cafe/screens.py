"""Crazy Café screens: the game's root screen (round preparation, the running timer, the
result) and ``new_game`` and ``play``, which the spec names (its title, config and walk are
in the package's ``__init__`` and :mod:`.options`).

The stages live in their own modules: setup (:mod:`.setup_screen`), the running round and its
clock (:mod:`.timer`), dice and order corrections (:mod:`.orders`); what they share is in
:mod:`.view`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from companion.contract.spec import Place, Screen, running_session
from companion.frame.canvas import WIDTH, Canvas
from companion.frame.font import LARGE, MEDIUM
from companion.ui.widgets import ChoiceScreen, is_down, is_press, is_up
from companion.ui.words import noun_for, plural
from firmware_bridge.events import DiceSettled

from . import rules
from .options import BAR
from .orders import DicePickScreen, TableScreen, start_order_done
from .rules import KINDS, CafeState
from .setup_screen import SetupScreen, new_game
from .timer import DoubleTroubleScreen, TimesUpScreen, _reroll, act, clock_for, start_round
from .view import _state, action_verb, draw_dice, mmss, roll_prompt, round_title

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table


__all__ = [
    "CafeScreen",
    "ChoiceScreen",
    "DicePickScreen",
    "DoubleTroubleScreen",
    "SetupScreen",
    "TableScreen",
    "TimesUpScreen",
    "act",
    "clock_for",
    "mmss",
    "new_game",
    "play",
    "sensor_reading",
]


# OK pauses the round, but not in the moment after a notice (Double Trouble, a list) closed
# over it: a reflexive second OK must not stop the clock.
BACK_ON_TIMER_S = 1.0


class CafeScreen(Screen):
    """The game's root: round preparation, the running timer, and the result."""

    shown_at = -math.inf  # when the timer came back on top

    @property
    def state(self) -> CafeState:
        return _state(self.app)

    @property
    def keeps_awake(self) -> bool:  # a running timer never dims
        return self.state.phase == "running"

    @property
    def title(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        state = self.state
        if state.phase == "finished":
            return f"{BAR} · result"
        if state.phase == "setup":
            return f"{BAR} · setup"
        return round_title(state.round)

    @property
    def hint(self) -> str:  # type: ignore[override]  # computed; the panel only reads it
        state = self.state
        if state.phase == "ready":
            # one OK rolls the dice of rounds 2 and 3 and starts the timer: said here only
            return "OK roll + start timer" if self._rolls_on_ok() else "OK start the timer"
        if state.phase == "finished":
            return "OK menu  hold BACK ↶"
        if state.phase == "paused":
            return "OK go on  ▲▼ fix count"
        return f"◆{action_verb(state)} OK pause ▼list"

    def _rolls_on_ok(self) -> bool:
        """The round's OK rolls the box's dice too (rounds 2 and 3; round 1's are rolled)."""
        state = self.state
        return rules.setup_of(state).dice == "box" and bool(state.rounds)

    def on_enter(self) -> None:
        if self.state.phase == "running":  # back from a notice or a list over the round
            self.shown_at = self.app.clock.now()
        clock_for(self.app).sync()

    def on_state_changed(self) -> None:
        clock_for(self.app).sync()

    def on_leave(self) -> None:
        """The table goes to the home menu: a running round pauses, so it never runs out
        behind a screen that cannot show its clock (docs/crazy_cafe.md)."""
        app, state = self.app, self.state
        if state.phase != "running":
            return
        now = app.clock.now()
        if now >= rules.deadline_of(state) - rules.EPSILON_S:
            clock_for(app).expire(now)
        elif act(app, {"type": "pause", "at": now}):
            app.toast(f"Round {state.round} paused", "Resume goes on")

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
        # The count in the large font with its two lines beside it, then at most three lines:
        # the last round, the special menu, the dice (each always shown, never one for another).
        count = rules.orders_for_round(state.round, state.carried)
        x = canvas.text(1, 1, str(count), MEDIUM) + 4
        canvas.text(x, 0, f"{noun_for(count, 'order')} to lay out")
        canvas.text(x, 9, "light side up")
        lines = self._ready_lines()
        for row, line in enumerate(lines, 2):
            canvas.text(1, row * 9 + 1, line)
        if rules.setup_of(state).dice == "box" and not state.rounds:
            draw_dice(canvas, (2 + len(lines)) * 9 + 1, state)

    def _ready_lines(self) -> list[str]:
        """What the table does before OK, one line each (the dice strip follows the last)."""
        state = self.state
        dice = rules.setup_of(state).dice
        lines = []
        # "Round 3: Four orders, and also any orders not fulfilled from round 1 and round 2":
        # that line takes the place of the last round's summary.
        carried = state.carried if state.round == rules.ROUNDS else 0
        if carried:
            lines.append(f"{rules.ORDERS_PER_ROUND[rules.ROUNDS]} new + {carried} set aside")
        elif state.rounds:
            last = state.rounds[-1]
            lines.append(f"Round {last.number} done, {mmss(last.time_left or 0)} left"
                         if last.ended == "all done" else f"Round {last.number}: {last.carried} set aside")
        if rules.setup_of(state).special_menus:
            lines.append(f"Draw a round {state.round} menu")
        if dice == "sensor" and not self.app.sensor.online:
            lines.append("Sensor offline")
        elif dice == "sensor" and None in state.faces:
            lines.append("Roll all 4 dice")
        elif dice == "box":
            lines.append("New dice at the start" if state.rounds else "The box rolled:")
        return lines

    def _draw_timer(self, canvas: Canvas) -> None:
        state = self.state
        dice = rules.setup_of(state).dice
        left = rules.time_left(state, self.app.clock.now())
        canvas.text(1, 1, mmss(left), LARGE)
        x = 84
        if state.phase == "paused":
            # PAUSED large and inverted across the screen, seen from across the table; the
            # counts wait in small print beside the time.
            canvas.text(x + 2, 3, f"○{state.light} ●{state.dark}")
            canvas.draw.rectangle((0, canvas.top + 26, WIDTH - 1, canvas.top + 44), fill=255)
            MEDIUM.draw(canvas.image, ((WIDTH - MEDIUM.width("PAUSED")) // 2, canvas.top + 28),
                        "PAUSED", fill=0)
            return
        for row, (icon, count) in enumerate((("○", state.light), ("●", state.dark))):
            y = 1 + row * 17
            canvas.text(x, y + 5, icon)
            canvas.text(x + 8, y, str(count), MEDIUM)
        # Left of the counts: what holds the round up, else the key to the counts' icons.
        if state.to_roll:
            status = roll_prompt(state.to_roll)
        elif dice == "sensor" and not self.app.sensor.online:
            status = "Sensor offline"
        else:
            status = "○light ●dark"
        canvas.text(1, 28, status)
        if dice == "manual":
            canvas.text(1, 38, plural(state.open_orders, "open order"))
        else:
            draw_dice(canvas, 38, state)

    def _draw_result(self, canvas: Canvas) -> None:
        state = self.state
        won = state.result == "won"
        canvas.big(1, "YOU WIN!" if won else "YOU LOSE")
        left = state.rounds[-1].left
        canvas.center(19, "Every order served" if won else f"{plural(left, 'order')} left")
        parts = [f"R{log.number} {log.fulfilled}/{log.laid_out + log.extra_drawn}"
                 for log in state.rounds]
        canvas.center(28, "  ".join(parts))
        flips = sum(log.dark_flips for log in state.rounds)
        if rules.setup_of(state).double_trouble:
            canvas.center(37, f"Dark flips {flips}, drawn {sum(r.extra_drawn for r in state.rounds)}")

    # ----- buttons and sensor -----
    def on_button(self, event: ButtonEvent) -> bool:
        app, state = self.app, self.state
        if state.phase == "finished":
            if is_press(event, "OK"):
                app.pop_to(Place.HOME)
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
        mode = rules.setup_of(state).dice
        if is_press(event, "OK"):
            if state.phase == "running" and app.clock.now() - self.shown_at < BACK_ON_TIMER_S:
                app.beep("tick")  # the OK after a notice: the clock runs on
                return True
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
            elif mode == "manual" and rules.setup_of(state).double_trouble:
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
    if clock.session is not app.games.session:
        # A game this boot has not played (resumed from the journal): its deadline and readings
        # belong to the clock of the boot before. Keep the time left at the last reading (at
        # most a few seconds old) and let the table go on with OK.
        if state.phase == "paused":
            app.dispatch({"type": "pause", "left": state.remaining})
        elif state.phase == "running":
            deadline = rules.deadline_of(state)
            at = state.last_at if state.last_at is not None else deadline
            app.dispatch({"type": "pause", "left": deadline - at} if at < deadline - rules.EPSILON_S
                         else {"type": "time_up", "at": at})
        clock.adopt(running_session(app.games, CafeState))
    return CafeScreen(app)
