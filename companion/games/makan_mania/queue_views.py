"""The Queue and the final scores on Makan Mania's root screen, one class per view: the turn
page and the drinks page of the Queue, final scoring and the final scores. :mod:`.screens`
chooses the view from the state's phase."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.contract.rules import RuleError
from companion.contract.spec import Place
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
from .round_views import PlayersView
from .view import FOOD_MAX, Root, View, _ask_numbers, _price, _turn_steps, _where, unspent_words

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent

# A turn change must be seen before ◆ can make the next one: a quick double tap never skips a
# player (UX, "One press, one step").
TURN_SEEN_S = 1.0


class QueueView(View):
    """A page of the Queue. Two pages: the turn (whose it is, what the table does now, the
    coins and dice to spend) and, a press of ▼ or OK away, the drinks to buy; UP/DOWN go round
    both as one list, ◆ ends the turn on either."""

    def open_drinks(self, selected: int) -> None:
        """The table moves on from the turn page: what it said to take has been taken."""
        s, root = self.state, self.root
        root.taken.add((s.round, s.turn))
        root.drinks_open, root.selected = True, selected

    def action(self) -> bool:
        root, s = self.root, self.state
        if self.app.clock.now() - root.turn_shown_at < TURN_SEEN_S:
            self.app.beep("error")  # the turn just changed: this ◆ came too soon to be meant
            return True
        who = rules.turn_of(s)
        p = s.players[who]
        dice, before, title = p.dice, p.coins, f"{_where(s)} · Coins"
        if root.commit({"type": "end_turn", "player": who}):
            # the next player starts on their turn page
            root.drinks_open, root.selected = False, 0
            if dice:
                got = self.state.players[who].coins - before
                root.notice(title, unspent_words(p.name, dice, got))
        return True


class TurnView(QueueView):
    """The turn page: the player, their coins and dice, and what the table does now."""

    hint = "▼ drinks  ◆ next player"

    def draw(self, canvas: Canvas) -> None:
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
        steps = _turn_steps(s, taken=(s.round, s.turn) in self.root.taken)
        rows = canvas.lines - 2
        if len(steps) > rows:   # a rare pile-up of gains shares the last line
            steps = [*steps[: rows - 1], ", ".join(steps[rows - 1 :])]
        for row, step in enumerate(steps, 2):
            canvas.line(row, step)

    def move(self, event: ButtonEvent) -> bool:
        """DOWN opens the drinks at the first, UP at the last (the turn page sits between)."""
        self.open_drinks(0 if is_down(event) else max(0, self.root.rows() - 1))
        return True

    def ok(self) -> bool:
        self.open_drinks(0)
        return True


class DrinksView(QueueView):
    """The drinks page: the drinks on sale with their prices for this player; OK buys."""

    hint = "▲▼ drink OK buy ◆ next"

    def draw(self, canvas: Canvas) -> None:
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
                  min(self.root.selected, len(slots) - 1))

    def move(self, event: ButtonEvent) -> bool:
        """Past the first or the last drink is the turn page again."""
        root = self.root
        rows = root.rows()
        step = step_selection(event, root.selected, rows) if rows else None
        if step is None or (is_down(event) and step == 0) or (is_up(event) and step == rows - 1):
            root.drinks_open, root.selected = False, 0
        else:
            root.selected = step
        return True

    def back(self) -> bool:
        """BACK goes back to the turn page."""
        self.root.drinks_open, self.root.selected = False, 0
        return True

    def ok(self) -> bool:
        s = self.state
        slots = rules.visible_slots(s, rules.turn_of(s))
        if not slots:
            self.app.refuse("No drinks left")
            return True
        slot = slots[min(self.root.selected, len(slots) - 1)]
        drink = s.book.by_key[s.row[slot].drink]
        ways = rules.pay_options(s, slot)
        if len(ways) == 2:
            labels = [_cost_words(s, drink, way) for way in ways]
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Buy", f"{drink.name}: pay with", labels,
                                       lambda i: self._buy(slot, ways[i])))
            return True
        # One way, or none: the rules give the reason a purchase is refused.
        self._buy(slot, ways[0] if ways else ("dice" if drink.dice is not None else "coins"))
        return True

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
            self.root.notice(f"{_where(s)} · Refused", str(exc).split("\n"))
            return
        if self.root.commit(action):
            self.app.toast(drink.name, f"bought, paid {paid}")


class ScoringView(PlayersView):
    """Final scoring: each player's total once scored; OK asks for a player's cards."""

    hint = "▲▼ player  OK score"

    def draw(self, canvas: Canvas) -> None:
        s = self.state
        details = [f"{p.total}" if p.score is not None else "?" for p in s.players]
        draw_list(canvas, [p.name for p in s.players], details, self.root.selected)

    def ok(self) -> bool:
        s = self.state
        who = self.root.selected
        p = s.players[who]
        if p.score is not None:
            show_breakdown(self.root, who)
            return True
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
            self.root.commit(action)

        _ask_numbers(self.app, questions, done)
        return True


class OverView(PlayersView):
    """The final scores: the winner, then the players ranked; OK shows one's breakdown, BACK
    leaves for the home menu (the game is over and kept in History; the menu starts the next
    one, the setup keeping these players' names)."""

    hint = "OK details  BACK menu"

    def draw(self, canvas: Canvas) -> None:
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
        draw_list(sub, [s.players[i].name for i in self._ranked()],
                  [str(s.players[i].total) for i in self._ranked()], self.root.selected)

    def ok(self) -> bool:
        show_breakdown(self.root, self._ranked()[self.root.selected])
        return True

    def back(self) -> bool:
        self.app.pop_to(Place.HOME)
        return True

    def _ranked(self) -> list[int]:
        s = self.state
        return sorted(range(len(s.players)), key=lambda i: -s.players[i].total)


def show_breakdown(root: Root, who: int) -> None:
    """A scored player's points, line by line, until OK."""
    p = root.state.players[who]
    lines = [f"{label}: {points}" for label, points in p.score or ()]
    root.app.push(MessageScreen(root.app, f"{p.name}: {p.total}", lines))


def _cost_words(state: rules.State, drink: Drink, pay: str) -> str:
    """What paying for ``drink`` with ``pay`` ("dice", "coins") costs the current player now."""
    price = drink.coins if pay == "coins" else rules.dice_price(state, drink.key)
    if price is None:  # the rules refuse it with their own reason first
        raise RuleError(f"{drink.name} is not\npaid with {pay}")
    return plural(price, "coin" if pay == "coins" else "die")
