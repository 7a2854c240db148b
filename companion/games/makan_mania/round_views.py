"""The start of a Makan Mania round on the game's root screen, one class per view: the setup
taken back by undo, the scoreboard between rounds, drinks revealed or dealt, the Rush and the
jumps. :mod:`.screens` chooses the view from the state's phase."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.frame.canvas import LINE_H, TOAST_LINE, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.ui.widgets import (
    CheckListScreen,
    ChoiceScreen,
    StepperScreen,
    draw_list,
    step_selection,
)
from companion.ui.words import plural

from . import rules
from .setup_screen import SetupScreen
from .view import View, _where

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.rules import Action
    from companion.contract.spec import Table


class SetupView(View):
    """The setup taken back by undo: OK sets the game up again."""

    hint = "OK set up"

    def draw(self, canvas: Canvas) -> None:
        canvas.paragraph("Setup undone. Press OK to set up the game again.", 1)

    def ok(self) -> bool:
        self.app.push(SetupScreen(self.app))
        return True


class PlayersView(View):
    """A view listing the players, UP and DOWN choosing one."""

    def move(self, event: ButtonEvent) -> bool:
        root = self.root
        rows = root.rows()
        step = step_selection(event, root.selected, rows) if rows else None
        if step is not None:
            root.selected = step
        return True


class BoardView(PlayersView):
    """The scoreboard between rounds: the pot, each player's coins, drinks and bonus dice."""

    hint = "OK next round"

    def draw(self, canvas: Canvas) -> None:
        s = self.state
        canvas.text(1, 1, f"Table 88 pot: {s.pot}¤")
        sub = Canvas(canvas.image, canvas.top + LINE_H, canvas.bottom)
        details = []
        for p in s.players:
            # Coins always, then the bonus dice of next round, then the drinks, as room allows
            # beside the name.
            bonus = f" +{plural(p.bonus, 'die')}" if p.bonus else ""
            room = WIDTH - 10 - SMALL.width(p.name)
            details.append(SMALL.first_fit((f"{p.coins}¤ {plural(len(p.drinks), 'drink')}{bonus}",
                                            f"{p.coins}¤{bonus}", f"{p.coins}¤"), room))
        draw_list(sub, [p.name for p in s.players], details, self.root.selected)

    def ok(self) -> bool:
        self.root.board_seen = self.state.round
        return True


class RevealView(View):
    """The start of a round: the Food and drinks to reveal; OK deals or enters the drinks."""

    @property
    def hint(self) -> str:  # type: ignore[override]  # the deal option decides it
        return "OK deal drinks" if self.state.deal else "OK enter drinks"

    def draw(self, canvas: Canvas) -> None:
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

    def ok(self) -> bool:
        s = self.state
        owner = rules.holder(s, "private_drink")
        count = len(s.players) + (owner is not None)
        if s.deal:
            # Chance is drawn here, from the box's RNG, and recorded in the action.
            cards = self.app.rng.sample(rules.deck_cards(s), count)
            self.root.commit({"type": "deal", "drinks": cards[: len(s.players)],
                              "private": cards[-1] if owner is not None else None})
            return True
        picks: list[str] = []

        def ask(k: int) -> None:
            def chosen(index: int) -> None:
                del picks[k:]
                picks.append(s.book.drinks[index].key)
                if k + 1 < count:
                    ask(k + 1)
                else:
                    self.root.commit({"type": "reveal", "drinks": picks[: len(s.players)],
                                      "private": picks[-1] if owner is not None else None})

            prompt = (f"{s.players[owner].name}'s own drink:" if owner is not None and k == count - 1
                      else f"Drink {k + 1} of {len(s.players)} is:")
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Drinks", prompt,
                                       [d.name for d in s.book.drinks], chosen))

        ask(0)
        return True


class RushView(View):
    """The Rush: the drinks to lay out, then who sat at which table with the dice left."""

    hint = "OK someone sat down"

    def draw(self, canvas: Canvas) -> None:
        s = self.state
        seated = rules.order(s)
        if s.deal and not seated:
            # Whole drink names on each line: "Kopi O" is never split over two.
            names = [s.book.by_key[c.drink].name for c in s.row if c.owner is None]
            lines = ["Lay out these drinks:", *SMALL.wrap_items(names, WIDTH - 2)]
            owner = rules.holder(s, "private_drink")
            if owner is not None:
                lines.append(f"{s.players[owner].name}: {s.book.by_key[s.row[-1].drink].name}")
            for row, line in enumerate(lines[: canvas.lines]):
                canvas.center(row * LINE_H + 1, line)
            return
        canvas.line(0, "Roll dice, grab Food!")
        free = " ".join(str(t) for t in rules.free_tables(s))
        canvas.line(1, f"Free tables: {free}")
        for row, index in enumerate(seated[: canvas.lines - 2], 2):
            p = s.players[index]
            canvas.line(row, SMALL.first_fit((f"T{p.table} {p.name}: {plural(p.dice, 'die')} left",
                                              f"T{p.table} {p.name}: {plural(p.dice, 'die')}"),
                                             WIDTH - 2))

    def ok(self) -> bool:
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
                lambda dice: self._seat({"type": "seat", "player": who, "table": table,
                                         "dice": dice})))

        if len(waiting) == 1:
            pick_player(0)
        else:
            self.app.push(ChoiceScreen(self.app, f"{_where(s)} · Rush", "Who sat down?",
                                       [s.players[i].name for i in waiting], pick_player))
        return True

    def _seat(self, action: Action) -> None:
        """The seat; the last one ends the Rush, and a jump tray with nothing to ask is said."""
        before = self.state
        if self.root.commit(action):
            say_skipped_jumps(self.app, before, self.state)


class JumpsView(View):
    """The start of the Queue: whose tray may jump, from which table to which, who it moves
    and who gains; OK jumps, ◆ stays. A tray whose holder already sits at its table has
    nothing to ask: the box passes it by and says so (:func:`say_skipped_jumps`)."""

    hint = "OK jump  ◆ stay"

    def draw(self, canvas: Canvas) -> None:
        s = self.state
        jumper, target, over = rules.jump_of(s)
        p = s.players[jumper]
        width = WIDTH - 2
        # The tray's ability is why the box asks: "Ben's Black tray may / jump T2 → Table 1".
        lines = [SMALL.first_fit((f"{p.name}'s {p.tray.title()} tray may", f"{p.name}'s tray may",
                                  f"{p.name} may"), width),
                 f"jump T{p.table} → Table {target}",
                 _moved_words(s, target, over, width)]
        if target == 1:
            # "Each player you jump over may make a 'tch' sound and earn 1 coin."
            lines.append('Who says "tch" gets 1¤')
        elif p.table == 1:
            lines.append(SMALL.first_fit((f"From Table 1: {p.name} +{rules.JUMP_88_FROM_1_COINS}¤",
                                          f"From Table 1: +{rules.JUMP_88_FROM_1_COINS}¤"), width))
        for row, line in enumerate(lines):
            canvas.center(row * LINE_H + 1, line)

    def ok(self) -> bool:
        s = self.state
        _, target, over = rules.jump_of(s)
        if target == 88:
            self._jump({"type": "jump", "to": 88, "go": True})
            return True
        # "Each player you jump over may make a 'tch' sound": only those who did are ticked, so
        # Done straight away gives no coin nobody claimed. The title says what the pile can pay.
        pile = s.supply if s.options.coin_supply else len(over)
        title = ("Who said tch? +1¤" if pile >= len(over) else f"Tch? Pile has {pile}¤" if pile
                 else "Tch? Pile is empty")
        self.app.push(CheckListScreen(
            self.app, title, [s.players[i].name for i in over], [False] * len(over),
            lambda ticked: self._jump({"type": "jump", "to": 1, "go": True,
                                       "tch": [over[i] for i in ticked]})))
        return True

    def action(self) -> bool:
        before = self.state
        _, target, _ = rules.jump_of(before)
        if self.root.commit({"type": "jump", "to": target, "go": False}):
            say_skipped_jumps(self.app, before, self.state)
        return True

    def _jump(self, action: Action) -> None:
        """The jump, then who moves to which table and who takes coins, until OK."""
        before = self.state
        if not self.root.commit(action):
            return
        after = self.state
        # "Ana → 88, Ben → 1" as far as a line goes
        lines = SMALL.wrap_items([f"{p.name} → {p.table}" for p, was in
                                  zip(after.players, before.players, strict=True)
                                  if p.table != was.table], WIDTH - 2)
        # The coins of the jump (the first Queue turn's table benefit is on its own page).
        turn_gain = dict.fromkeys(range(len(after.players)), 0)
        if after.phase == "queue":
            turn_gain[rules.turn_of(after)] = after.gained.coins + after.gained.pot_out
        paid = 0
        for index, (p, was) in enumerate(zip(after.players, before.players, strict=True)):
            got = p.coins - was.coins - turn_gain[index]
            if got > 0:
                paid += got
                lines.append(SMALL.first_fit((f"{p.name} takes {plural(got, 'coin')}",
                                              f"{p.name}: {plural(got, 'coin')}"), WIDTH - 2))
        jumper, target, _ = rules.jump_of(before)
        owed = len(action.get("tch", ())) + (
            rules.JUMP_88_FROM_1_COINS if target == 88 and before.players[jumper].table == 1 else 0)
        if owed > paid:
            lines.append(f"Pile empty: {owed - paid}¤ unpaid")
        self.root.notice(f"{_where(before)} · Jump", lines + _skipped_lines(skipped_jumps(before, after)))


def _moved_words(state: rules.State, target: int, over: tuple[int, ...], width: int) -> str:
    """Who the jump moves, by name as far as the line goes: "jumping to Table 88, pushing
    players forward" (to Table 1, back), one table each; with ``push = "swap"`` the one
    traded with."""
    names = [state.players[i].name for i in over]
    if state.options.push == "swap":
        other = names[-1] if target == 88 else names[0]
        return SMALL.first_fit((f"Swaps tables with {other}", f"Swaps with {other}"), width)
    way = "up" if target == 88 else "back"
    if len(names) == 1:
        return SMALL.first_fit((f"{names[0]} moves {way} a table", f"{names[0]} moves {way}"), width)
    return SMALL.first_fit((f"{', '.join(names)} move {way} one",
                            f"{len(names)} players move {way} one"), width)


def skipped_jumps(before: rules.State, after: rules.State) -> list[tuple[str, int]]:
    """The jump trays the rules passed by between ``before`` and ``after`` (the end of the
    Rush, or the jump before them), as (holder, table): the holder already sits at the table
    the tray jumps to, so there was nothing to ask."""
    if before.round != after.round or after.phase not in ("jumps", "queue"):
        return []
    if before.phase == "rush":
        due = tuple(a for a in rules.JUMP_ORDER if a in after.abilities)
    elif before.phase == "jumps":
        due = before.jumps[1:]
    else:
        return []
    return [(after.players[after.abilities.index(a)].name, rules.JUMP_TARGETS[a])
            for a in due[: len(due) - len(after.jumps)]]


def _skipped_lines(skipped: list[tuple[str, int]]) -> list[str]:
    """A notice's line for each tray passed by: "Ben at Table 1: no jump"."""
    return [SMALL.first_fit((f"{name} at Table {table}: no jump", f"{name} at {table}: no jump",
                             f"{name}: no jump"), WIDTH - 2) for name, table in skipped]


def say_skipped_jumps(app: Table, before: rules.State, after: rules.State) -> None:
    """A toast of why no jump was asked (:func:`skipped_jumps`), when one was passed by."""
    skipped = skipped_jumps(before, after)
    if len(skipped) == 1:
        name, table = skipped[0]
        app.toast(f"{name} is at Table {table}:", "no jump to make")
    elif skipped:
        (first, at), (second, then) = skipped
        app.toast(SMALL.first_fit((f"{first} at {at}, {second} at {then}:",
                                   f"Trays at {at} and {then}:"), TOAST_LINE), "no jumps to make")
