"""Makan Mania rules: table order, the Queue, the coin ledger and final scoring. Pure.

``apply(state, action) -> state`` or :class:`RuleError`, and the state given is never changed:
``apply`` copies it into a draft (its own players and row; every other field is immutable and
shared) and the action's handler changes the draft in place, as boardgame.io's moves change an
Immer draft. A refused action leaves a half-changed draft that nobody sees. :func:`replay` runs a
whole game on one draft: undo and resume replay every action, so they never copy a state.
Chance (a virtual deal of drink cards) arrives inside the action. The action vocabulary is in
docs/makan_mania.md.

The package's modules own the state and the queries every phase shares (:mod:`.state`), the
Queue with its jumps and purchases (:mod:`.queue`), scoring (:mod:`.scoring`) and the words for
the table (:mod:`.words`); this module owns the setup and the start of each round (drinks
revealed or dealt, the Rush) and dispatches actions to their phase. Rules keep nothing between
calls: a caller that replays a game again and again keeps the drink table it read
(:func:`replayer`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from copy import deepcopy
from functools import partial
from typing import Any

from companion.contract.config import ConfigError
from companion.contract.rules import Action, RuleError, check_game, whole, whole_value

from ..data import ABILITIES, LINE_LETTERS, Drink, load_drinks, load_trays, parse_drinks
from .queue import _buy, _end_turn, _jump, _next_jump
from .scoring import _score
from .state import (
    _TABLES,
    COIN_SUPPLY,
    DICE_PER_PLAYER,
    JUMP_88_FROM_1_COINS,
    JUMP_ORDER,
    JUMP_TARGETS,
    MAX_COIN_SUPPLY,
    NO_CARDS,
    NO_GAIN,
    ROUNDS,
    TABLE_BENEFITS,
    BonusDice,
    Book,
    Card,
    Gained,
    Options,
    Player,
    State,
    _draft,
    _err,
    _new,
    _str,
    _table_order,
    current,
    dice_price,
    free_tables,
    holder,
    initial_state,
    jump_of,
    max_dice,
    order,
    pay_options,
    pending_jump,
    score_needs,
    tables_for,
    turn_of,
    unseated,
    visible_slots,
    winners,
)
from .words import describe, describe_action, summary

__all__ = [
    "COIN_SUPPLY", "DICE_PER_PLAYER", "JUMP_88_FROM_1_COINS", "JUMP_ORDER", "JUMP_TARGETS", "KEY",
    "MAX_COIN_SUPPLY", "NO_CARDS", "NO_GAIN", "ROUNDS", "TABLE_BENEFITS", "Book", "Card",
    "DrinkTables", "Gained", "Options", "Player", "RuleError", "State", "apply", "current",
    "deck_cards", "describe", "describe_action", "dice_price", "free_tables", "holder",
    "initial_state", "is_finished", "is_undoable", "jump_of", "max_dice", "order", "pay_options",
    "pending_jump", "replay", "replayer", "score_needs", "summary", "tables_for", "turn_of",
    "unseated", "visible_slots", "winners",
]

KEY = "makan"  # the game's key, named by its setup action (see check_game)


# ----- setup and the start of a round ------------------------------------------------------
def _from_files(players: list[dict[str, Any]], action: Action) -> tuple[list[str], tuple[Drink, ...]]:
    """Abilities and drinks for a setup action from before they were written into it."""
    try:
        trays = {t.colour: t.ability for t in load_trays()}
        drinks = load_drinks() if "drink_table" not in action else ()
    except ConfigError as exc:
        raise _err("Data file broken", "see doctor") from exc
    abilities = [seat.get("ability") or trays.get(seat["tray"], "") for seat in players]
    return abilities, drinks




def _drink_table(raw: Any) -> Book:
    """The cards of a setup action's drink table, read afresh."""
    try:
        drinks = parse_drinks("setup", raw)
    except ConfigError as exc:
        raise _err("Bad drink table", exc.key[:21]) from None
    return Book(drinks)


class DrinkTables:
    """The last drink table read and its book, kept by a caller that replays a game again and
    again: every undo replays the same setup. The table is a deep copy compared by value, so
    nothing outside can change it; a fresh object matches no table (not even null)."""

    __slots__ = ("book", "raw")

    def __init__(self) -> None:
        self.raw: Any = object()
        self.book: Book = NO_CARDS

    def book_of(self, raw: Any) -> Book:
        """The cards of ``raw``: the kept book when it is the same table."""
        if raw == self.raw:
            return self.book
        book = _drink_table(raw)
        self.raw, self.book = deepcopy(raw), book
        return book


def _setup(state: State, action: Action,
           drink_table: Callable[[Any], Book] = _drink_table) -> None:
    check_game(action, KEY)
    seats = action.get("players")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 6:
        raise _err("2 to 6 players")
    for seat in seats:
        if not isinstance(seat, dict) or not all(isinstance(seat.get(k, ""), str)
                                                 for k in ("name", "tray", "ability")):
            raise _err("Bad player entry")
        if not isinstance(seat.get("tray"), str):
            raise _err("Each player needs", "their own tray")
    abilities, drinks = ([s.get("ability") for s in seats], ()) if all(
        "ability" in s for s in seats) and "drink_table" in action else _from_files(seats, action)
    book = drink_table(action["drink_table"]) if "drink_table" in action else Book(drinks)
    players = []
    for seat, ability in zip(seats, abilities, strict=True):
        name, colour = seat.get("name", "").strip(), seat["tray"]
        if not name or len(name) > 10:
            raise _err("Names: 1 to 10 letters")
        if ability not in ABILITIES:
            raise _err(f"No tray {colour[:12]}")
        players.append(Player(name, colour, ability))
    if len({p.name for p in players}) < len(players):
        raise _err("Names must differ")
    if len({p.tray for p in players}) < len(players) or len(set(abilities)) < len(players):
        raise _err("Each player needs", "their own tray")
    mode = action.get("drinks", "enter")
    if mode not in ("enter", "deal"):
        raise _err("drinks: enter or deal")
    options = action.get("options", {})
    if not isinstance(options, dict):
        raise _err("Bad options")
    stand_in = action.get("stand_in", [])
    if not isinstance(stand_in, list) or not all(isinstance(x, str) for x in stand_in):
        raise _err("Bad stand_in")
    options = Options.from_dict(options)
    state.phase, state.players, state.abilities = "reveal", tuple(players), tuple(abilities)
    state.options, state.book, state.stand_in, state.deal = options, book, tuple(stand_in), mode == "deal"
    state.deck = tuple(d.copies for d in book.drinks) if mode == "deal" else ()
    state.round, state.supply = 1, options.coin_supply


def _reveal(state: State, action: Action, dealt: bool) -> None:
    if dealt != state.deal:
        raise _err("The box deals drinks" if state.deal else "Drinks are entered", "in this game")
    keys = action.get("drinks")
    count = len(state.players)
    if not isinstance(keys, list) or len(keys) != count:
        raise _err(f"Reveal {count} drinks")
    owner = holder(state, "private_drink")
    private = _str(action, "private")
    if (private is None) != (owner is None):
        raise _err("Private drink needed" if owner is not None else "No private drink tray")
    drinks = [*keys, private] if owner is not None else keys
    for drink in drinks:
        if not isinstance(drink, str) or drink not in state.book.by_key:
            raise _err(f"No drink {str(drink)[:12]}")
    if dealt:
        left = list(state.deck)
        for drink in drinks:
            left[state.book.deck_index[drink]] -= 1
            if left[state.book.deck_index[drink]] < 0:
                raise _err(state.book.by_key[drink].name, "none left in the deck")
        state.deck = tuple(left)
    state.row = row = list(map(state.book.unbought.__getitem__, keys))
    if owner is not None:
        row.append(_new(Card, (private, owner, None)))
    for p in state.players:  # no table and no dice, as at the start of every round
        p.table = None
        p.dice = 0
    state.phase, state.gained, state.discount, state.turn = "rush", NO_GAIN, 0, 0


def deck_cards(state: State) -> list[str]:
    """The virtual deck as a list of drink keys (what a deal draws from)."""
    return [d.key for d, left in zip(state.book.drinks, state.deck, strict=True) for _ in range(left)]



# ----- the end of the Rush and the jumps ----------------------------------------------------
def _seat(state: State, action: Action) -> None:
    players = state.players
    who = whole(action, "player", 0, len(players) - 1, "Player")
    p = players[who]
    if p.table is not None:
        raise _err(f"{p.name} already sat", f"at Table {p.table}")
    seated = [q.table for q in players]  # None: still rolling
    last = seated.count(None) == 1  # "the last player still rolling takes the last free table"
    table = action["table"] if "table" in action else free_tables(state)[0] if last else None
    if table is None:
        raise _err("Pick a table")
    whole_value(table, 1, 88, "Table")
    tables = _TABLES[len(players)]
    if table in seated or table not in tables:
        raise _err(f"Table {table} is not free" if table in tables else f"No Table {table}")
    p.dice = whole(action, "dice", 0, max_dice(state, who), "Dice left")
    p.table = table
    if p.bonus:
        state.bonus_log += (BonusDice(state.round, who, p.bonus, p.dice),)
    if last:
        # Everyone sits: the table order is worked out once here and kept up to date by the jumps.
        state.phase, state.queue = "jumps", _table_order(players)
        state.jumps = tuple(a for a in JUMP_ORDER if a in state.abilities)
        _next_jump(state)


# ----- actions ------------------------------------------------------------------------------
# Action type -> (the phase it belongs to, its handler, which changes a draft in place).
_HANDLERS: dict[str, tuple[str, Callable[[State, Action], None]]] = {
    "setup": ("setup", _setup),
    "reveal": ("reveal", partial(_reveal, dealt=False)),
    "deal": ("reveal", partial(_reveal, dealt=True)),
    "seat": ("rush", _seat),
    "jump": ("jumps", _jump),
    "buy": ("queue", _buy),
    "end_turn": ("queue", _end_turn),
    "score": ("scoring", _score),
}


def _handler(state: State, action: Action,
             handlers: dict[str, tuple[str, Callable[[State, Action], None]]] = _HANDLERS,
             ) -> Callable[[State, Action], None]:
    """The handler of ``action``, or RuleError when it is no action or not one for now."""
    try:
        phase, handler = handlers[action["type"]]
    except (KeyError, TypeError):  # not a dict, no type, or a type that is no action
        if not isinstance(action, dict):
            raise _err("Not an action") from None
        raise _err("Unknown action", str(action.get("type"))[:LINE_LETTERS]) from None
    if state.phase != phase:
        raise _err("Not now:", _WAITING_FOR[state.phase])
    return handler


def apply(state: State, action: Action) -> State:
    """The state after ``action``, or RuleError with a reason for the screen; ``state`` itself
    is never changed."""
    handler = _handler(state, action)
    draft = _draft(state)
    handler(draft, action)
    return draft


def replay(actions: Iterable[Action],
           handlers: dict[str, tuple[str, Callable[[State, Action], None]]] = _HANDLERS) -> State:
    """The state after ``actions`` from a fresh game, or RuleError: every action changes one
    draft in place, the same handlers as :func:`apply` without a copy per action."""
    state = initial_state()
    for action in actions:
        _handler(state, action, handlers)(state, action)
    return state


def replayer() -> Callable[[Iterable[Action]], State]:
    """A :func:`replay` for a caller that replays again and again (the game's spec: undo and
    resume replay the same setup), keeping the last drink table it read and its cards."""
    tables = DrinkTables()
    setup = partial(_setup, drink_table=tables.book_of)
    return partial(replay, handlers={**_HANDLERS, "setup": ("setup", setup)})


# Phase -> what the table must finish before anything else, for a refusal.
_WAITING_FOR = {"setup": "set up the game first", "reveal": "reveal drinks first",
                "rush": "seat everyone first", "jumps": "decide the jump first",
                "queue": "end the Queue first", "scoring": "score everyone first",
                "over": "the game is over"}


def is_finished(state: State) -> bool:
    return state.phase == "over"


def is_undoable(action: Action) -> bool:
    """A virtual deal is chance and stays; everything typed in can be taken back."""
    return action.get("type") != "deal"
