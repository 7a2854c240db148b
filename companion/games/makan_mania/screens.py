"""Makan Mania screens: quick setup, round start, Rush end, the Queue, scoreboard, final scores.

Screens read ``app.session.state`` and turn presses into rules actions; they never change the
state themselves, so undo and resume only need :meth:`MakanScreen.on_state_changed`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.config import ConfigError
from companion.ui.canvas import LINE_H, WIDTH, Canvas
from companion.ui.font import MEDIUM, SMALL
from companion.ui.widgets import (
    CheckListScreen,
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    MessageScreen,
    Screen,
    StepperScreen,
    draw_list,
    is_down,
    is_up,
    step_selection,
)

from . import data, rules

if TYPE_CHECKING:
    from companion.games.base import Table
    from companion.input import ButtonEvent

KEY = "makan"
PRESET_NAMES = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay")
ABILITY_TEXT = {
    "private_drink": "private drink", "jump_88": "jump to 88", "jump_1": "jump to 1",
    "double": "double table", "face_bonus": "face points", "drink_bonus": "drink points",
}
FOOD_MAX = 150


def _back_to(app: Table, screen: Screen) -> None:
    """Close the question screens a flow pushed, back to ``screen``."""
    while app.stack[-1] is not screen and len(app.stack) > 1:
        app.pop()


def _ask_numbers(app: Table, questions: list[tuple[str, str, int, int]],
                 on_done: Callable[[list[int]], None]) -> None:
    """Ask (title, prompt, start, high) numbers one after another; BACK returns to the last one."""
    answers: list[int] = []

    def ask(k: int) -> None:
        title, prompt, start, high = questions[k]

        def answered(value: int) -> None:
            del answers[k:]
            answers.append(value)
            if k + 1 < len(questions):
                ask(k + 1)
            else:
                on_done(answers)

        app.push(StepperScreen(app, title, prompt, start, 0, high, answered))

    ask(0)


def _where(state: rules.State) -> str:
    """The title bar's start on every game screen: game and round (UX: say where we are)."""
    return f"Makan R{state.round}" if state.phase in ("reveal", "rush", "jumps", "queue") else "Makan"


def _price(state: rules.State, key: str) -> str:
    """A drink's price for the current player: dice after discount and/or coins."""
    drink, dice = state.book.by_key[key], rules.dice_price(state, key)
    parts = ([f"{dice}d"] if dice is not None else []) + (
        [f"{drink.coins}¤"] if drink.coins is not None else [])
    return "/".join(parts)


# ----- setup --------------------------------------------------------------------------------
class SetupScreen(MenuScreen):
    """Start at once with the shown defaults, or change players, names, trays or drink mode."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Makan Mania setup", [])
        self.count = 4
        self.preset = True
        self.deal = False
        # The data files are read here, not at import: a bad file is shown, never a crash.
        settings = app.config.games.get(KEY, {})
        self.problem = ""
        try:
            self.tray_cards = data.load_trays(settings.get("trays") or data.TRAYS_FILE)
            drinks_file = settings.get("drinks") or data.DRINKS_FILE
            self.drinks = data.load_drinks(drinks_file)
            self.stand_in = [f"{t.colour} tray" for t in self.tray_cards if not t.printed]
            if not data.copies_printed(drinks_file):
                self.stand_in.append("deck copies")
        except ConfigError as exc:
            self.problem = f"{Path(exc.path).name}: {exc.key}"
            self.tray_cards, self.drinks, self.stand_in = (), (), []
        self.trays = [t.colour for t in self.tray_cards]
        if self.problem or self.stand_in:  # never shown as fact: the table checks its cards
            self.title = "Makan Mania ⚠ bad data" if self.problem else "Makan Mania ⚠ stand-in"
        self.trays_chosen = False
        self.on_enter()

    def names(self) -> list[str]:
        return [PRESET_NAMES[i] if self.preset else f"P{i + 1}" for i in range(self.count)]

    def on_enter(self) -> None:
        self.items = [
            MenuItem("Start game", self._start),
            MenuItem("Players", self._players, str(self.count)),
            MenuItem("Names", self._toggle_names, "Ana.." if self.preset else "P1.."),
            MenuItem("Trays", self._pick_trays, "chosen" if self.trays_chosen else "in order"),
            MenuItem("Drinks", self._toggle_deal, "box deals" if self.deal else "enter"),
        ]
        if self.problem or self.stand_in:
            self.items.append(MenuItem("⚠ Bad data file" if self.problem else "⚠ Stand-in values",
                                       self._explain_data))

    def _explain_data(self) -> None:
        if self.problem:
            self.app.toast(self.problem[:21], "see companion doctor")
        else:
            self.app.toast("Trays, deck: check", "docs/makan_mania.md")

    def action(self) -> dict[str, Any]:
        """The setup action these choices make, with the [games.makan] house rules."""
        settings = self.app.config.games.get(KEY, {})
        options = {k: v for k, v in settings.items() if k in rules.Options.CHOICES or k == "coin_supply"}
        ability = {t.colour: t.ability for t in self.tray_cards}
        players = [{"name": n, "tray": t, "ability": ability[t]}
                   for n, t in zip(self.names(), self.trays, strict=False)]
        return {"type": "setup", "players": players, "drinks": "deal" if self.deal else "enter",
                "options": options, "drink_table": [d.as_dict() for d in self.drinks],
                "stand_in": self.stand_in}

    def _start(self) -> None:
        if self.problem:
            self._explain_data()
            return
        self.app.new_game(self.app.games[KEY], self.action())

    def _players(self) -> None:
        def chosen(value: int) -> None:
            self.count = value
            self.app.pop()

        self.app.push(StepperScreen(self.app, "Makan · Players", "How many players?", self.count, 2, 6,
                                    chosen))

    def _toggle_names(self) -> None:
        self.preset = not self.preset
        self.on_enter()

    def _toggle_deal(self) -> None:
        self.deal = not self.deal
        self.on_enter()

    def _pick_trays(self) -> None:
        names, picked = self.names(), []

        def ask(k: int) -> None:
            free = [t for t in self.tray_cards if t.colour not in picked[:k]]

            def chosen(index: int) -> None:
                del picked[k:]
                picked.append(free[index].colour)
                if k + 1 < self.count:
                    ask(k + 1)
                else:
                    self.trays = picked + [t.colour for t in self.tray_cards if t.colour not in picked]
                    self.trays_chosen = True
                    _back_to(self.app, self)
                    self.on_enter()

            # "?": the colour-to-ability link is a stand-in, not read from a printed card
            labels = [f"{t.name}: {ABILITY_TEXT[t.ability]}{'' if t.printed else '?'}" for t in free]
            self.app.push(ChoiceScreen(self.app, f"Makan · {names[k]}'s tray", "Tray colour:", labels,
                                       chosen))

        ask(0)


# ----- the game ------------------------------------------------------------------------------
class MakanScreen(Screen):
    """The game's root: one view per step of the round, chosen from the state's phase."""

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        self.board_seen = 1   # the round whose scoreboard was closed with OK
        self.selected = 0     # drink in the Queue, player at scoring

    @property
    def state(self) -> rules.State:
        return self.app.session.state

    @property
    def view(self) -> str:
        s = self.state
        if s.phase == "reveal" and s.round > self.board_seen:
            return "board"
        return s.phase

    @property
    def title(self) -> str:  # type: ignore[override]
        s = self.state
        if self.view == "board":
            return f"Makan · After R{s.round - 1}"
        if s.phase == "setup":
            return "Makan Mania"
        label = {"reveal": "Start", "rush": "Rush", "jumps": "Jumps",
                 "queue": f"Queue {s.turn + 1}/{len(s.players)}"}.get(s.phase)
        if label is None:
            return "Makan · Final scores" if s.phase == "over" else "Makan · Final scoring"
        return f"Makan R{s.round}/{rules.ROUNDS} · {label}"

    @property
    def hint(self) -> str:  # type: ignore[override]
        return {
            "setup": "OK set up",
            "board": "OK next round",
            "reveal": "OK deal drinks" if self.state.deal else "OK enter drinks",
            "rush": "OK someone sat down",
            "jumps": "OK jump  ◆ stay",
            "queue": "▲▼ drink OK buy ◆ next",
            "scoring": "▲▼ player  OK score",
            "over": "▲▼ player  OK details",
        }[self.view]

    def on_state_changed(self) -> None:
        self.selected = 0
        # An undo back into an earlier round shows that round's scoreboard again when it ends.
        self.board_seen = min(self.board_seen, self.state.round)

    def on_enter(self) -> None:
        self.selected = max(0, min(self.selected, self._rows() - 1))

    def _rows(self) -> int:
        s = self.state
        if s.phase == "queue":
            return len(rules.visible_slots(s, rules.current(s)))
        return len(s.players)

    def _commit(self, action: dict[str, Any]) -> bool:
        _back_to(self.app, self)
        phase = self.state.phase
        done = self.app.dispatch(action)
        if done:
            self.app.beep("tick")
            if self.state.phase != phase:
                self.selected = 0   # a new step starts at the top of its list
            self.on_enter()
        return done

    def draw(self, canvas: Canvas) -> None:
        getattr(self, f"_draw_{self.view}")(canvas)

    def on_button(self, event: ButtonEvent) -> bool:
        view = self.view
        if view in ("board", "queue", "scoring", "over") and (is_up(event) or is_down(event)):
            rows = self._rows()
            if rows:
                self.selected = step_selection(event, self.selected, rows)
            return True
        handler = getattr(self, f"_{view}_{event.button.lower()}", None)
        if handler is None or event.kind != "short":
            return False
        handler()
        return True

    # ----- setup taken back by undo --------------------------------------------------------
    def _draw_setup(self, canvas: Canvas) -> None:
        canvas.paragraph("Setup undone. Press OK to set up the game again.", 1)

    def _setup_ok(self) -> None:
        self.app.push(SetupScreen(self.app))

    # ----- scoreboard between rounds ------------------------------------------------------
    def _draw_board(self, canvas: Canvas) -> None:
        s = self.state
        canvas.text(1, 1, f"Table 88 pot: {s.pot}¤")
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        details = [f"{p.coins}¤ {_count(len(p.drinks), 'drink', 'drinks')}"
                   + (f" +{p.bonus}d" if p.bonus else "") for p in s.players]
        draw_list(sub, [p.name for p in s.players], details, self.selected)

    def _board_ok(self) -> None:
        self.board_seen = self.state.round

    # ----- start of round -----------------------------------------------------------------
    def _draw_reveal(self, canvas: Canvas) -> None:
        s = self.state
        n = len(s.players)
        canvas.center(0, f"Round {s.round}: reveal")
        for centre, number, label in ((32, 2 * n, "Food"), (96, n, "Drinks")):
            text = str(number)
            canvas.text(centre - MEDIUM.width(text) // 2, 10, text, MEDIUM)
            canvas.text(centre - SMALL.width(label) // 2, 27, label)
        canvas.center(14, "+")
        owner = rules.holder(s, "private_drink")
        if owner is not None:
            canvas.center(37, f"+1 Drink for {s.players[owner].name}")

    def _reveal_ok(self) -> None:
        s = self.state
        owner = rules.holder(s, "private_drink")
        count = len(s.players) + (owner is not None)
        if s.deal:
            # Chance is drawn here, from the box's RNG, and recorded in the action.
            cards = self.app.rng.sample(rules.deck_cards(s), count)
            self._commit({"type": "deal", "drinks": cards[: len(s.players)],
                          "private": cards[-1] if owner is not None else None})
            return
        picks: list[str] = []

        def ask(k: int) -> None:
            def chosen(index: int) -> None:
                del picks[k:]
                picks.append(s.book.drinks[index].key)
                if k + 1 < count:
                    ask(k + 1)
                else:
                    self._commit({"type": "reveal", "drinks": picks[: len(s.players)],
                                  "private": picks[-1] if owner is not None else None})

            private = owner is not None and k == count - 1
            title = f"{_where(s)} · " + (f"{s.players[owner].name}'s drink" if private
                                         else f"Drink {k + 1}/{len(s.players)}")
            self.app.push(ChoiceScreen(self.app, title, "Which drink is it?",
                                       [d.name for d in s.book.drinks], chosen))

        ask(0)

    # ----- the Rush ----------------------------------------------------------------------
    def _draw_rush(self, canvas: Canvas) -> None:
        s = self.state
        seated = rules.order(s)
        if s.deal and not seated:
            names = ", ".join(s.book.by_key[c.drink].name for c in s.row if c.owner is None)
            line = canvas.paragraph(f"Lay out: {names}", 0)
            owner = rules.holder(s, "private_drink")
            if owner is not None and line < canvas.lines:
                canvas.paragraph(f"{s.players[owner].name}: {s.book.by_key[s.row[-1].drink].name}", line)
            return
        canvas.line(0, "Roll dice, grab Food!")
        free = " ".join(str(t) for t in rules.free_tables(s))
        canvas.line(1, f"Free tables: {free}")
        for row, index in enumerate(seated[: canvas.lines - 2], 2):
            p = s.players[index]
            canvas.line(row, f"T{p.table} {p.name}: {p.dice} dice left")

    def _rush_ok(self) -> None:
        s = self.state
        waiting = rules.unseated(s)

        def pick_player(i: int) -> None:
            who, free = waiting[i], rules.free_tables(s)
            if len(free) == 1:
                ask_dice(who, free[0])
            else:
                self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Seat", f"{s.players[who].name} sits at:",
                                           [f"Table {t}" for t in free],
                                           lambda j: ask_dice(who, free[j])))

        def ask_dice(who: int, table: int) -> None:
            name = s.players[who].name
            self.app.push(StepperScreen(
                self.app, f"{_where(s)} · Table {table}", f"{name}: unplaced dice?", 0, 0,
                rules.max_dice(s, who),
                lambda dice: self._commit({"type": "seat", "player": who, "table": table, "dice": dice})))

        if len(waiting) == 1:
            pick_player(0)
        else:
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Rush", "Who sat down?",
                                       [s.players[i].name for i in waiting], pick_player))

    # ----- start of the Queue: the jumps --------------------------------------------------
    def _draw_jumps(self, canvas: Canvas) -> None:
        s = self.state
        jumper, target, over = rules.pending_jump(s)
        p = s.players[jumper]
        canvas.center(0, f"{p.name} ({p.tray.title()}) at Table {p.table}")
        canvas.center(LINE_H, "may jump to Table")
        canvas.big(2 * LINE_H, str(target))
        if s.options.push == "swap":
            other = over[-1] if target == 88 else over[0]
            moved = f"swap with {s.players[other].name}"
        else:
            moved = f"{len(over)} pushed {'forward' if target == 88 else 'back'}"
        if target == 88:
            note = f"+{rules.JUMP_88_FROM_1_COINS}¤, " if p.table == 1 else ""
            canvas.center(4 * LINE_H, f"{note}{moved}")
        else:
            canvas.center(4 * LINE_H, f"{moved}, tch +1¤")

    def _jumps_ok(self) -> None:
        s = self.state
        _, target, over = rules.pending_jump(s)
        if target == 88:
            self._commit({"type": "jump", "to": 88, "go": True})
            return
        self.app.push(CheckListScreen(
            self.app, "Who said tch? (+1¤)", [s.players[i].name for i in over], [True] * len(over),
            lambda ticked: self._commit({"type": "jump", "to": 1, "go": True,
                                         "tch": [over[i] for i in ticked]})))

    def _jumps_action(self) -> None:
        _, target, _ = rules.pending_jump(self.state)
        self._commit({"type": "jump", "to": target, "go": False})

    # ----- the Queue ---------------------------------------------------------------------
    def _draw_queue(self, canvas: Canvas) -> None:
        s = self.state
        who = rules.current(s)
        p = s.players[who]
        coins = f"{p.coins}¤"
        coins_x = WIDTH - MEDIUM.width(coins) - 1
        canvas.text(coins_x, 1, coins, MEDIUM)
        canvas.text(1, 1, SMALL.fit(f"{p.name} · Table {p.table}", coins_x - 3))
        canvas.text(1, LINE_H + 1, SMALL.fit(_gain_text(s.gained), coins_x - 3))
        bonus = f"  +{s.gained.bonus}d next" if s.gained.bonus else ""
        canvas.text(1, 2 * LINE_H + 1, f"Dice {p.dice}  Off {s.discount}{bonus}")
        slots = rules.visible_slots(s, who)
        sub = Canvas(canvas.image, canvas.top + 3 * LINE_H, canvas.bottom)
        if not slots:
            sub.line(0, "No drinks left")
            return
        labels = [s.book.by_key[s.row[i].drink].name + ("*" if s.row[i].owner is not None else "")
                  for i in slots]
        details = [_price(s, s.row[i].drink) + (" ✓" if rules.pay_options(s, i) else " ✗")
                   for i in slots]
        draw_list(sub, labels, details, min(self.selected, len(slots) - 1))

    def _queue_ok(self) -> None:
        s = self.state
        slots = rules.visible_slots(s, rules.current(s))
        if not slots:
            self.app.refuse("No drinks left")
            return
        slot = slots[min(self.selected, len(slots) - 1)]
        drink = s.book.by_key[s.row[slot].drink]
        ways = rules.pay_options(s, slot)
        if len(ways) == 2:
            labels = [_count(rules.dice_price(s, drink.key), "die", "dice"),
                      _count(drink.coins, "coin", "coins")]
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Buy", f"{drink.name}: pay with", labels,
                                       lambda i: self._buy(slot, ways[i])))
            return
        # One way, or none: the rules give the reason a purchase is refused.
        self._buy(slot, ways[0] if ways else ("dice" if drink.dice is not None else "coins"))

    def _buy(self, slot: int, pay: str) -> None:
        drink = self.state.row[slot].drink
        if self._commit({"type": "buy", "slot": slot, "drink": drink, "pay": pay}):
            self.app.toast(f"Bought {self.state.book.by_key[drink].name}", f"paid with {pay}")

    def _queue_action(self) -> None:
        s = self.state
        who = rules.current(s)
        before = s.players[who].coins
        if self._commit({"type": "end_turn", "player": who}):
            self.selected = 0   # the next player starts at the top of the drinks
            got = self.state.players[who].coins - before
            if got:
                self.app.toast(f"{s.players[who].name} takes {got}¤", "for unspent dice")

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
        title = f"Makan · Score {p.name}"
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
        self.app.push(MessageScreen(self.app, f"Makan · {p.name}: {p.total}", lines))

    def _draw_over(self, canvas: Canvas) -> None:
        s = self.state
        best = rules.winners(s)
        names = " & ".join(s.players[i].name for i in best)
        verb = "share the win" if len(best) > 1 else "wins"
        canvas.center(1, SMALL.fit(f"★ {names} {verb}: {s.players[best[0]].total} ★", WIDTH - 2))
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        ranked = sorted(range(len(s.players)), key=lambda i: -s.players[i].total)
        draw_list(sub, [s.players[i].name for i in ranked], [str(s.players[i].total) for i in ranked],
                  self.selected)

    def _over_ok(self) -> None:
        s = self.state
        ranked = sorted(range(len(s.players)), key=lambda i: -s.players[i].total)
        self._show_breakdown(ranked[self.selected])


def _count(number: int, one: str, many: str) -> str:
    """A count with its noun: 1 die, 2 dice."""
    return f"{number} {one if number == 1 else many}"


def _gain_text(gained: rules.Gained) -> str:
    """What the table does at the start of a turn: "Take 2¤", "Put 1¤ on 88"."""
    parts = []
    if gained.pot_out:
        parts.append(f"Take 88 pot {gained.pot_out}¤")
    if gained.coins:
        parts.append(f"Take {gained.coins}¤")
    if gained.pot_in:
        parts.append(f"Put {gained.pot_in}¤ on 88")
    if gained.short:
        parts.append(f"pile short {gained.short}¤")
    return ", ".join(parts) or ("Discount turn" if gained.discount else "No table coins")


def new_game(app: Table) -> Screen:
    return SetupScreen(app)


def play(app: Table) -> Screen:
    return MakanScreen(app)
