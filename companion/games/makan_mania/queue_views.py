"""The Queue and the final scores on Makan Mania's root screen: buying drinks turn by turn,
then each player's scoring and the final ranking.

A mixin of :class:`.screens.MakanScreen`, which picks ``_draw_<view>`` and ``_<view>_<button>``
by the state's phase."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from companion.contract.rules import RuleError
from companion.frame.canvas import LINE_H, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.widgets import (
    ChoiceScreen,
    MessageScreen,
    draw_list,
    is_down,
    is_up,
    step_selection,
)
from companion.ui.words import plural

from . import rules
from .data import Drink
from .view import FOOD_MAX, _ask_numbers, _price, _turn_steps, _where, unspent_words

# A turn change must be seen before ◆ can make the next one: a quick double tap never skips a
# player (UX, "One press, one step").
TURN_SEEN_S = 1.0

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import Table


class QueueViews:
    """The Queue, final scoring and the final scores."""

    app: Table
    selected: int
    board_seen: int
    drinks_open: bool
    taken: set[tuple[int, int]]   # (round, turn) whose gains the table has taken
    turn_shown_at: float          # when the current turn came on screen

    def _notice(self, title: str, lines: list[str]) -> None: ...

    # What the root screen that mixes these in provides.
    @property
    @abstractmethod
    def state(self) -> rules.State: ...

    @abstractmethod
    def _commit(self, action: dict[str, Any]) -> bool: ...

    # ----- the Queue ---------------------------------------------------------------------
    # Two pages: the turn (whose it is, what the table does now, the coins and dice to spend)
    # and, a press of ▼ or OK away, the drinks to buy. UP/DOWN go round both as one list.
    def _draw_queue(self, canvas: Canvas) -> None:
        if self.drinks_open:
            self._draw_drinks(canvas)
            return
        s = self.state
        p = s.players[rules.turn_of(s)]
        coins = f"{p.coins}¤"
        coins_x = WIDTH - MEDIUM.width(coins) - 1
        canvas.text(coins_x, 1, coins, MEDIUM)
        room = coins_x - 3
        first = SMALL.first_fit((f"{p.name} · Table {p.table}", f"{p.name} · T{p.table}", p.name), room)
        canvas.text(1, 1, first)
        dice = f"{plural(p.dice, 'die')} left"
        canvas.text(1, LINE_H + 1, dice if first != p.name else f"T{p.table}, {dice}")
        steps = _turn_steps(s, taken=(s.round, s.turn) in self.taken)
        rows = canvas.lines - 2
        if len(steps) > rows:   # a rare pile-up of gains shares the last line
            steps = [*steps[: rows - 1], ", ".join(steps[rows - 1 :])]
        for row, step in enumerate(steps, 2):
            canvas.line(row, step)

    def _draw_drinks(self, canvas: Canvas) -> None:
        s = self.state
        who = rules.turn_of(s)
        p = s.players[who]
        canvas.text(1, 1, SMALL.first_fit((f"{p.name} has {plural(p.dice, 'die')}, {p.coins}¤",
                                           f"{p.name}: {plural(p.dice, 'die')}, {p.coins}¤"), WIDTH - 2))
        slots = rules.visible_slots(s, who)
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        if not slots:
            sub.line(0, "No drinks left")
            return
        labels = [s.book.by_key[s.row[i].drink].name + ("*" if s.row[i].owner is not None else "")
                  for i in slots]
        draw_list(sub, labels, [_price(s, s.row[i].drink) for i in slots],
                  min(self.selected, len(slots) - 1))

    def _queue_move(self, event: ButtonEvent) -> None:
        """UP/DOWN: the turn page is the row before the first drink and after the last."""
        rows = len(rules.visible_slots(self.state, rules.turn_of(self.state)))
        if not self.drinks_open:
            self._open_drinks(0 if is_down(event) else max(0, rows - 1))
            return
        step = step_selection(event, self.selected, rows) if rows else None
        if step is None or (is_down(event) and step == 0) or (is_up(event) and step == rows - 1):
            self.drinks_open, self.selected = False, 0
        else:
            self.selected = step

    def _queue_back(self) -> bool:
        """BACK on the drinks goes back to the turn; on the turn it is the box's."""
        if not self.drinks_open:
            return False
        self.drinks_open, self.selected = False, 0
        return True

    def _open_drinks(self, selected: int) -> None:
        """The table moves on from the turn page: what it said to take has been taken."""
        s = self.state
        self.taken.add((s.round, s.turn))
        self.drinks_open, self.selected = True, selected

    def _queue_ok(self) -> None:
        if not self.drinks_open:
            self._open_drinks(0)
            return
        s = self.state
        slots = rules.visible_slots(s, rules.turn_of(s))
        if not slots:
            self.app.refuse("No drinks left")
            return
        slot = slots[min(self.selected, len(slots) - 1)]
        drink = s.book.by_key[s.row[slot].drink]
        ways = rules.pay_options(s, slot)
        if len(ways) == 2:
            labels = [_cost_words(s, drink, way) for way in ways]
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Buy", f"{drink.name}: pay with", labels,
                                       lambda i: self._buy(slot, ways[i])))
            return
        # One way, or none: the rules give the reason a purchase is refused.
        self._buy(slot, ways[0] if ways else ("dice" if drink.dice is not None else "coins"))

    def _buy(self, slot: int, pay: str) -> None:
        s = self.state
        drink = s.book.by_key[s.row[slot].drink]
        action = {"type": "buy", "slot": slot, "drink": drink.key, "pay": pay}
        try:
            rules.apply(s, action)
            paid = _cost_words(s, drink, pay)
        except RuleError as exc:
            # The table must pick again: the reason waits for OK rather than fading (UX).
            self.app.beep("error")
            self._notice(f"{_where(s)} · Refused", str(exc).split("\n"))
            return
        if self._commit(action):
            self.app.toast(drink.name, f"bought, paid {paid}")

    def _queue_action(self) -> None:
        s = self.state
        if self.app.clock.now() - self.turn_shown_at < TURN_SEEN_S:
            self.app.beep("error")  # the turn just changed: this ◆ came too soon to be meant
            return
        who = rules.turn_of(s)
        p = s.players[who]
        dice, before, title = p.dice, p.coins, f"{_where(s)} · Coins"
        if self._commit({"type": "end_turn", "player": who}):
            # the next player starts on their turn page
            self.drinks_open, self.selected = False, 0
            if dice:
                got = self.state.players[who].coins - before
                self._notice(title, unspent_words(p.name, dice, got))

    # ----- final scoring -----------------------------------------------------------------
    def _draw_scoring(self, canvas: Canvas) -> None:
        s = self.state
        details = [f"{p.total}" if p.score is not None else "?" for p in s.players]
        draw_list(canvas, [p.name for p in s.players], details, self.selected)

    def _scoring_ok(self) -> None:
        s = self.state
        who = self.selected
        p = s.players[who]
        if p.score is not None:
            self._show_breakdown(who)
            return
        snacks, meals, faces = rules.score_needs(s, who)
        title = f"Score {p.name}"   # whose score, beside every status icon (no game name)
        questions = [(title, "Food card points?", 0, FOOD_MAX)]
        if snacks:
            questions.append((title, "Snack cards?", 0, 60))
        if meals:
            questions.append((title, "Meal cards?", 0, 60))
        questions += [(title, f"Dice faces {f} on Food?", 0, 60) for f in faces]

        def done(answers: list[int]) -> None:
            action: dict[str, Any] = {"type": "score", "player": who, "food": answers[0]}
            rest = answers[1:]
            if snacks:
                action["snacks"], rest = rest[0], rest[1:]
            if meals:
                action["meals"], rest = rest[0], rest[1:]
            if faces:
                action["faces"] = {str(f): n for f, n in zip(faces, rest, strict=True)}
            self._commit(action)

        _ask_numbers(self.app, questions, done)

    def _show_breakdown(self, who: int) -> None:
        p = self.state.players[who]
        lines = [f"{label}: {points}" for label, points in p.score or ()]
        self.app.push(MessageScreen(self.app, f"{p.name}: {p.total}", lines))

    def _draw_over(self, canvas: Canvas) -> None:
        s = self.state
        best = rules.winners(s)
        names = " & ".join(s.players[i].name for i in best)
        verb = "share the win" if len(best) > 1 else "wins"
        total = s.players[best[0]].total
        canvas.center(1, SMALL.first_fit((f"★ {names} {verb}: {total} ★", f"{names} {verb}: {total}",
                                          f"{names}: {total}",
                                          f"Shared win at {total}" if len(best) > 1 else f"{names} wins"),
                                         WIDTH - 2))
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        ranked = sorted(range(len(s.players)), key=lambda i: -s.players[i].total)
        draw_list(sub, [s.players[i].name for i in ranked], [str(s.players[i].total) for i in ranked],
                  self.selected)

    def _over_ok(self) -> None:
        s = self.state
        ranked = sorted(range(len(s.players)), key=lambda i: -s.players[i].total)
        self._show_breakdown(ranked[self.selected])


def _cost_words(state: rules.State, drink: Drink, pay: str) -> str:
    """What paying for ``drink`` with ``pay`` ("dice", "coins") costs the current player now."""
    price = drink.coins if pay == "coins" else rules.dice_price(state, drink.key)
    if price is None:  # the rules refuse it with their own reason first
        raise RuleError(f"{drink.name} is not\npaid with {pay}")
    return plural(price, "coin" if pay == "coins" else "die")
