"""Makan Mania's state: the options, the records of a game, and the queries and small helpers
every phase shares (table order, whose turn, what a player may buy, the coin ledger, refusals
and action fields). Immutable records are shared between states; a draft copies only the players
and the row (:func:`_draft`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple

from companion.contract.config import Field, between
from companion.contract.rules import Action, RuleError, clone, setting

from ..data import Drink

ROUNDS = 5
DICE_PER_PLAYER = 3
JUMP_ORDER = ("jump_88", "jump_1")  # "activates before black tray"
JUMP_TARGETS = {"jump_88": 88, "jump_1": 1}
# Table number -> (benefit kind, amount); Table 88 is handled on its own.
TABLE_BENEFITS: dict[int, tuple[str, int]] = {
    1: ("coins", 1), 2: ("discount", 1), 3: ("coins", 2), 4: ("discount", 2), 5: ("coins", 3),
}
JUMP_88_FROM_1_COINS = 4
MAX_COIN_SUPPLY = 999
# [games.makan] coin_supply: the config file and a setup's options are checked against this field.
COIN_SUPPLY = Field(30, int, "coins in the pile (the box has 30); 0 for a pile that never runs out",
                    between(0, MAX_COIN_SUPPLY))


@dataclass(frozen=True)
class Options:
    """House readings of unclear rules (docs/rulings.md), fixed for a game at setup."""

    push: str = "shift"             # shift: everyone between moves one table; swap: trade seats
    discount: str = "pool"          # pool: one turn total spent across buys; each: per drink
    new_drinks: str = "next_queue"  # next_queue: a bought drink acts from the next Queue; at_once
    double_88: str = "all"          # all: pot coin, bonus die and round-5 pot doubled; dice; none
    coin_supply: int = COIN_SUPPLY.default  # coins in the pile; 0: a pile that never runs out

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"push": ("shift", "swap"), "discount": ("pool", "each"),
               "new_drinks": ("next_queue", "at_once"), "double_88": ("all", "dice", "none")}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Options:
        """Options from a setup action; RuleError on an unknown key or value."""
        for key, value in raw.items():
            if key not in _OPTION_NAMES:
                raise _err(f"Unknown option {key}")
            if key in cls.CHOICES and value not in cls.CHOICES[key]:
                raise _err(f"Bad {key}: {str(value)[:12]}")
            if key == "coin_supply":
                setting(raw, key, COIN_SUPPLY, "Coin supply")
        return cls(**raw)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_OPTION_NAMES = frozenset(f.name for f in fields(Options))


class Card(NamedTuple):
    """A revealed drink card; ``owner`` is set on the private drink, ``buyer`` once bought."""

    drink: str
    owner: int | None = None
    buyer: int | None = None


class Gained(NamedTuple):
    """What the current turn's start gave, so the screen can tell the table what to do.

    Small immutable records are named tuples: they are built on every turn of every replay.
    """

    coins: int = 0      # taken from the pile (table and drinks)
    short: int = 0      # coins owed but not in the pile (a limited supply ran out)
    pot_in: int = 0     # put from the pile onto Table 88
    pot_out: int = 0    # taken from Table 88 in round 5
    bonus: int = 0      # bonus dice for next round
    discount: int = 0   # dice discount for this turn
    pot_short: int = 0  # coins owed onto Table 88 but not in the pile


NO_GAIN = Gained()


class BonusDice(NamedTuple):
    """Table 88's bonus dice in the round after it, as their holder sat down (the replay's
    output): "Gain 1 bonus die for the next round only."."""

    round: int
    player: int
    dice: int       # bonus dice this round (2 with the doubling tray)
    unplaced: int   # the holder's unplaced dice brought to the Queue, the bonus ones among them


@dataclass(slots=True)
class Player:
    """One player's record; the rules change it only in a draft (see :func:`apply`)."""

    name: str
    tray: str            # tray colour
    ability: str
    coins: int = 0
    drinks: tuple[str, ...] = ()
    table: int | None = None
    dice: int = 0        # unplaced dice brought to the Queue, less those spent
    bonus: int = 0       # bonus dice this round (from Table 88 last round)
    next_bonus: int = 0
    score: tuple[tuple[str, int], ...] | None = None  # scoring breakdown

    @property
    def total(self) -> int:
        return sum(points for _, points in self.score or ())


class Book:
    """The drink cards of a game, from its setup action, indexed once (replays never re-read files)."""

    __slots__ = ("by_key", "deck_index", "drinks", "effects", "unbought")

    def __init__(self, drinks: tuple[Drink, ...]) -> None:
        self.drinks = drinks
        self.by_key = {d.key: d for d in drinks}
        # Drink key -> (dice discount, coins) it gives at the start of its owner's Queue turn;
        # coins only when not on Table 1 (Milo Dino, Chendol).
        self.effects = {d.key: (d.amount if d.effect == "discount" else 0,
                                d.amount if d.effect == "coins" else 0) for d in drinks}
        self.deck_index = {d.key: i for i, d in enumerate(drinks)}  # drink key -> place in State.deck
        self.unbought = {d.key: Card(d.key) for d in drinks}  # revealed cards share these records

    def __eq__(self, other: object) -> bool:  # equal cards: equal states after a replay
        return isinstance(other, Book) and self.drinks == other.drinks

    def __hash__(self) -> int:
        return hash(self.drinks)


NO_CARDS = Book(())  # a game not set up yet


@dataclass(slots=True)
class State:
    """The whole game; undo is a replay of the journal. The rules change only a draft of it."""

    phase: str = "setup"   # setup, reveal, rush, jumps, queue, scoring, over
    players: tuple[Player, ...] = ()
    abilities: tuple[str, ...] = ()  # each player's tray ability, fixed at setup
    options: Options = Options()
    book: Book = NO_CARDS  # the drink cards, from the setup action
    stand_in: tuple[str, ...] = ()  # data the setup marked as stand-ins, not checked against cards
    deal: bool = False     # drinks dealt from the box's virtual deck (else entered by hand)
    deck: tuple[int, ...] = ()  # copies left per drink in book order (virtual deck)
    round: int = 0
    row: list[Card] = field(default_factory=list)  # this round's revealed cards, by slot
    supply: int = 0
    pot: int = 0
    jumps: tuple[str, ...] = ()  # jump abilities still to decide at the start of the Queue
    queue: tuple[int, ...] = ()  # player indices in table order, from the end of the Rush on
    turn: int = 0          # index into ``queue``
    discount: int = 0      # dice discount left this turn
    gained: Gained = NO_GAIN
    bonus_log: tuple[BonusDice, ...] = ()  # every round's bonus dice, as their holder sat


def initial_state() -> State:
    return State()


# ----- queries the screens, tests and replays share -----------------------------------------
def tables_for(count: int) -> tuple[int, ...]:
    """The Table cards in play: 1..n-1 and 88 ("Always use Tables 1 and 88")."""
    return _TABLES[count]


_TABLES = {count: (*range(1, count), 88) for count in range(2, 7)}
_TABLE_SETS = {count: frozenset(tables) for count, tables in _TABLES.items()}
_table_of = attrgetter("table")


def order(state: State) -> tuple[int, ...]:
    """Player indices in Queue order: lowest table first."""
    return _table_order(state.players)


def _table_order(players: tuple[Player, ...]) -> tuple[int, ...]:
    seated = [(p.table, i) for i, p in enumerate(players) if p.table is not None]
    return tuple(i for _, i in sorted(seated))


def current(state: State) -> int | None:
    """The player whose Queue turn it is."""
    return state.queue[state.turn] if state.phase == "queue" else None


def turn_of(state: State) -> int:
    """The player whose Queue turn it is; outside the Queue, refused."""
    who = current(state)
    if who is None:
        raise _err("No Queue turn now")
    return who


def jump_of(state: State) -> tuple[int, int, tuple[int, ...]]:
    """:func:`pending_jump` of a jump waiting for its decision; without one, refused."""
    jump = pending_jump(state)
    if jump is None:  # the jumps phase always has one: _next_jump leaves it after the last
        raise _err("No jump to decide")
    return jump


def free_tables(state: State) -> tuple[int, ...]:
    """Tables nobody sits at, lowest first (Table numbers sort in table order)."""
    return tuple(sorted(_TABLE_SETS[len(state.players)].difference(map(_table_of, state.players))))


def unseated(state: State) -> tuple[int, ...]:
    return tuple(i for i, p in enumerate(state.players) if p.table is None)


def max_dice(state: State, player: int) -> int:
    """Unplaced dice a player can bring: 3, plus last round's Table 88 bonus dice."""
    return DICE_PER_PLAYER + state.players[player].bonus


def holder(state: State, ability: str) -> int | None:
    """The player whose tray has ``ability``, if that tray plays."""
    return state.abilities.index(ability) if ability in state.abilities else None


def pending_jump(state: State) -> tuple[int, int, tuple[int, ...]] | None:
    """(jumper, target table, players jumped over) of the next jump decision."""
    if state.phase != "jumps" or not state.jumps:
        return None
    jumper = holder(state, state.jumps[0])
    if jumper is None:  # a jump is queued only for a tray that plays
        return None
    target = JUMP_TARGETS[state.jumps[0]]
    seq = state.queue  # the table order, kept since the last seat was taken
    k = seq.index(jumper)
    over = seq[k + 1:] if target == 88 else seq[:k]
    return jumper, target, over


def visible_slots(state: State, player: int) -> tuple[int, ...]:
    """Row slots a player may still buy: not bought, and the private drink only for its owner."""
    return tuple(s for s, c in enumerate(state.row)
                 if c.buyer is None and c.owner in (None, player))


def dice_price(state: State, drink: str) -> int | None:
    """Dice the current player pays for ``drink`` now, after discounts (None: not with dice)."""
    cost = state.book.by_key[drink].dice
    return None if cost is None else discounted_dice(state, cost)


def discounted_dice(state: State, cost: int) -> int:
    """A dice cost after the current player's discount (never below nothing)."""
    return max(0, cost - state.discount)


def pay_options(state: State, slot: int) -> tuple[str, ...]:
    """The ways the current player can pay for ``slot`` right now ("dice", "coins")."""
    who = current(state)
    if who is None or slot not in visible_slots(state, who):
        return ()
    player, drink = state.players[who], state.book.by_key[state.row[slot].drink]
    ways = []
    price = dice_price(state, drink.key)
    if price is not None and player.dice >= price:
        ways.append("dice")
    if drink.coins is not None and player.coins >= drink.coins:
        ways.append("coins")
    return tuple(ways)


def score_needs(state: State, player: int) -> tuple[bool, bool, tuple[int, ...]]:
    """What a player's scoring needs besides food points: (snacks?, meals?, die faces)."""
    p = state.players[player]
    return _needs([state.book.by_key[k] for k in p.drinks], p.ability)


def _needs(owned: list[Drink], ability: str) -> tuple[bool, bool, tuple[int, ...]]:
    faces: set[int] = set(range(1, 7)) if ability == "face_bonus" else set()
    pairs = set()
    for d in owned:
        faces.update(d.faces)
        pairs.add(d.pairs_with)
    return "snack" in pairs, "meal" in pairs, tuple(sorted(faces))


def winners(state: State) -> tuple[int, ...]:
    """Players tied for the highest score ("share the victory"); empty before scoring ends."""
    if state.phase != "over":
        return ()
    best = max(p.total for p in state.players)
    return tuple(i for i, p in enumerate(state.players) if p.total == best)


# Cards and gains are built positionally: the generated NamedTuple __new__ costs more than the
# rest of a purchase, and replays build thousands.
_new = tuple.__new__


def _draft(state: State) -> State:
    """A copy of ``state`` the rules may change in place: its own players and row."""
    draft = clone(state)
    draft.players = tuple(map(clone, state.players))
    draft.row = [*state.row]
    return draft


# ----- the coin ledger ----------------------------------------------------------------------
def _available(state: State, amount: int, supply: int) -> int:
    """How many of ``amount`` coins a pile of ``supply`` can give; a limited pile gives what it has
    (and never goes below zero, so it is the smaller of the two)."""
    return amount if amount <= supply or not state.options.coin_supply else supply


def _err(*lines: str) -> RuleError:
    """A refusal of at most two short lines for the OLED."""
    return RuleError("\n".join(lines))


def _name(state: State, index: Any) -> str:
    """The name of player ``index``; "a player" for anything that is no player's index."""
    if type(index) is int and 0 <= index < len(state.players):
        return state.players[index].name
    return "a player"


# ----- action fields ------------------------------------------------------------------------
def _str(action: Action, key: str, default: Any = None) -> Any:
    """``action[key]`` if a string (or absent: ``default``); a refusal for any other type."""
    value = action.get(key, default)
    if value.__class__ is str or value is default or isinstance(value, str):
        return value
    raise _err(f"Bad {key}")
