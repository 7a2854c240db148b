"""Makan Mania rules: table order, the Queue, the coin ledger and final scoring. Pure.

``apply(state, action) -> state`` or :class:`RuleError`, and the state given is never changed:
``apply`` copies it into a draft (its own players and row; every other field is immutable and
shared) and the action's handler changes the draft in place, as boardgame.io's moves change an
Immer draft. A refused action leaves a half-changed draft that nobody sees. :func:`replay` runs a
whole game on one draft: undo and resume replay every action, so they never copy a state.
Chance (a virtual deal of drink cards) arrives inside the action. The action vocabulary is in
docs/makan_mania.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from copy import deepcopy
from dataclasses import dataclass, field, fields
from functools import partial
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple

from companion.config import ConfigError
from companion.games.base import Action, RuleError, clone

from .data import ABILITIES, Drink, load_drinks, load_trays, parse_drinks

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


@dataclass(frozen=True)
class Options:
    """House readings of unclear rules (docs/rulings.md), fixed for a game at setup."""

    push: str = "shift"             # shift: everyone between moves one table; swap: trade seats
    discount: str = "pool"          # pool: one turn total spent across buys; each: per drink
    new_drinks: str = "next_queue"  # next_queue: a bought drink acts from the next Queue; at_once
    double_88: str = "all"          # all: pot coin, bonus die and round-5 pot doubled; dice; none
    coin_supply: int = 30           # coins in the pile; 0: a pile that never runs out

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"push": ("shift", "swap"), "discount": ("pool", "each"),
               "new_drinks": ("next_queue", "at_once"), "double_88": ("all", "dice", "none")}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Options:
        """Options from a setup action; RuleError on an unknown key or value."""
        for key, value in raw.items():
            if key not in _OPTION_NAMES:
                raise _err(f"Unknown option {key}")
            if key in cls.CHOICES and value not in cls.CHOICES[key]:
                raise _err(f"Bad {key}: {value}")
            if key == "coin_supply" and (type(value) is not int or not 0 <= value <= MAX_COIN_SUPPLY):
                raise _err("Bad coin_supply")
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


NO_GAIN = Gained()


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
    seated = [i for i, p in enumerate(players) if p.table is not None]
    return tuple(sorted(seated, key=lambda i: players[i].table))


def current(state: State) -> int | None:
    """The player whose Queue turn it is."""
    return state.queue[state.turn] if state.phase == "queue" else None


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
    return None if cost is None else max(0, cost - state.discount)


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
def _int(action: Action, key: str, low: int, high: int, what: str | None = None,
         label: str | None = None) -> int:
    """``action[key]``, an int in low..high; ``label`` names a missing one (default: the key)."""
    value = action.get(key)
    if value.__class__ is int and low <= value <= high:  # bool is not a number here
        return value
    if not isinstance(value, int) or isinstance(value, bool):
        raise _err(f"Missing {label or key}")
    raise _err(f"{what or key.capitalize()} must be", f"{low}..{high}")


# ----- setup and start of round -------------------------------------------------------------
def _str(action: Action, key: str, default: Any = None) -> Any:
    """``action[key]`` if a string (or absent: ``default``); a refusal for any other type."""
    value = action.get(key, default)
    if value.__class__ is str or value is default or isinstance(value, str):
        return value
    raise _err(f"Bad {key}")


def _from_files(players: list[dict[str, Any]], action: Action) -> tuple[list[str], tuple[Drink, ...]]:
    """Abilities and drinks for a setup action from before they were written into it."""
    try:
        trays = {t.colour: t.ability for t in load_trays()}
        drinks = load_drinks() if "drink_table" not in action else ()
    except ConfigError as exc:
        raise _err("Data file broken", "see doctor") from exc
    abilities = [seat.get("ability") or trays.get(seat["tray"], "") for seat in players]
    return abilities, drinks


# The last drink table read and its book; a fresh object matches no table (not even null).
_last_table: list[Any] = [object(), None]


def _drink_table(raw: Any) -> Book:
    """The cards of a setup action's drink table. Every undo replays the same setup, so the last
    table's cards are kept (a deep copy compared by value, so nothing outside can change them)."""
    if raw == _last_table[0]:
        return _last_table[1]
    try:
        drinks = parse_drinks("setup", raw)
    except ConfigError as exc:
        raise _err("Bad drink table", exc.key[:21]) from None
    book = Book(drinks)
    _last_table[:] = [deepcopy(raw), book]
    return book


def _setup(state: State, action: Action) -> None:
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
    book = _drink_table(action["drink_table"]) if "drink_table" in action else Book(drinks)
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
                raise _err(f"No {state.book.by_key[drink].name}", "left in the deck")
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
    who = _int(action, "player", 0, len(players) - 1, "Player")
    p = players[who]
    if p.table is not None:
        raise _err(f"{p.name} already sat", f"at Table {p.table}")
    seated = [q.table for q in players]  # None: still rolling
    last = seated.count(None) == 1  # "the last player still rolling takes the last free table"
    table = action["table"] if "table" in action else free_tables(state)[0] if last else None
    if table is None:
        raise _err("Pick a table")
    if type(table) is not int:
        raise _err("Bad table")
    tables = _TABLES[len(players)]
    if table in seated or table not in tables:
        raise _err(f"Table {table} is not free" if table in tables else f"No Table {table}")
    p.dice = _int(action, "dice", 0, max_dice(state, who), "Dice left")
    p.table = table
    if last:
        # Everyone sits: the table order is worked out once here and kept up to date by the jumps.
        state.phase, state.queue = "jumps", _table_order(players)
        state.jumps = tuple(a for a in JUMP_ORDER if a in state.abilities)
        _next_jump(state)


def _next_jump(state: State) -> None:
    """Skip the jumps that cannot move anyone (already on the target table); after the last
    jump, the Queue."""
    jumps, players, abilities = state.jumps, state.players, state.abilities
    while jumps and players[abilities.index(jumps[0])].table == JUMP_TARGETS[jumps[0]]:
        jumps = jumps[1:]
    state.jumps = jumps
    if not jumps:
        _begin_turn(state, 0)


def _jump(state: State, action: Action) -> None:
    jumper, target, over = pending_jump(state)
    to, go, tch = action.get("to", target), action.get("go", False), action.get("tch", [])
    if type(to) is not int or type(go) is not bool or not isinstance(tch, list) \
            or (tch and any(type(i) is not int for i in tch)):
        raise _err("Bad jump")
    if to != target:
        raise _err(f"First: jump to {target}?")
    if tch and (any(i not in over for i in tch) or len(set(tch)) < len(tch)):
        raise _err("Only players jumped", "over may say tch")
    if tch and target == 88:
        raise _err("No tch for a jump", "to Table 88")
    if go:
        _move(state, jumper, target, tch)
    elif tch:
        raise _err("No jump, no tch")
    state.jumps = state.jumps[1:]
    _next_jump(state)


def _move(state: State, jumper: int, target: int, tch: list[int]) -> None:
    """The jumper takes Table ``target`` and the players it passes move (``options.push``);
    players who said "tch", and a jumper from Table 1 to 88, earn their coins."""
    from_table = state.players[jumper].table
    seq = list(state.queue)
    k = seq.index(jumper)
    end = len(seq) - 1 if target == 88 else 0
    if state.options.push == "swap":
        seq[k], seq[end] = seq[end], seq[k]
    else:  # everyone between moves one table towards the jumper's old place
        seq.pop(k)
        seq.insert(end, jumper)
    earned = dict.fromkeys(tch, 1)
    if target == 88 and from_table == 1:
        earned[jumper] = JUMP_88_FROM_1_COINS
    seat_of = dict(zip(seq, _TABLES[len(seq)], strict=True))
    for index, p in enumerate(state.players):
        p.table = seat_of[index]
        if index in earned:
            got = _available(state, earned[index], state.supply)
            state.supply -= got
            p.coins += got
    state.queue = tuple(seq)


# ----- the Queue ----------------------------------------------------------------------------


def _begin_turn(state: State, turn: int) -> None:
    """Queue turn ``turn`` starts: the table benefit (doubled by the doubling tray), then owned
    drinks."""
    who = state.queue[turn]
    p = state.players[who]
    supply = state.supply
    table = p.table
    factor = 2 if p.ability == "double" else 1
    coins = discount = pot_in = pot_out = bonus = 0
    if table in TABLE_BENEFITS:
        kind, amount = TABLE_BENEFITS[table]
        if kind == "coins":
            coins += amount * factor
        else:
            discount += amount * factor
    else:  # Table 88
        coin_factor = factor if state.options.double_88 == "all" else 1
        dice_factor = factor if state.options.double_88 in ("all", "dice") else 1
        if state.round < ROUNDS:
            pot_in = _available(state, coin_factor, supply)
            supply -= pot_in
            bonus = dice_factor
        else:
            pot_out = state.pot
            coins += state.pot * (coin_factor - 1)  # the doubled half comes from the pile
    effects = state.book.effects
    for key in p.drinks:
        drink_discount, drink_coins = effects[key]
        discount += drink_discount
        if table != 1:
            coins += drink_coins
    got = _available(state, coins, supply)
    p.coins += got + pot_out
    p.next_bonus = bonus
    state.phase, state.turn, state.supply, state.discount = "queue", turn, supply - got, discount
    state.pot += pot_in - pot_out
    state.gained = _new(Gained, (got, coins - got, pot_in, pot_out, bonus, discount))


def _buy(state: State, action: Action) -> None:
    who = state.queue[state.turn]
    row = state.row
    slot = _int(action, "slot", 0, len(row) - 1, "Slot")
    key, owner, buyer = row[slot]
    drink = state.book.by_key[key]
    if _str(action, "drink", key) != key:
        raise _err(f"Slot {slot} holds", drink.name)
    if buyer is not None:
        raise _err(f"{drink.name} was bought", f"by {_name(state, buyer)}")
    if owner is not None and owner != who:
        raise _err(f"Only {_name(state, owner)}", f"may buy this {drink.name}")
    p = state.players[who]
    dice, coins, supply, discount = p.dice, p.coins, state.supply, state.discount
    pay = _str(action, "pay")
    if pay == "dice":
        if drink.dice is None:
            raise _err(f"{drink.name} costs coins", "not dice")
        price = dice_price(state, key)
        if dice < price:
            raise _err(f"{drink.name}: {price} dice", f"{p.name} has {dice}")
        dice -= price
        if state.options.discount == "pool":
            discount -= drink.dice - price
    elif pay == "coins":
        if drink.coins is None:
            raise _err(f"{drink.name} costs dice", "not coins")
        if coins < drink.coins:
            raise _err(f"{drink.name}: {drink.coins} coins", f"{p.name} has {coins}")
        coins -= drink.coins
        supply += drink.coins
    else:
        raise _err("Pay with dice or coins")
    if state.options.new_drinks == "at_once":
        drink_discount, drink_coins = state.book.effects[key]
        discount += drink_discount
        if drink_coins and p.table != 1:
            got = _available(state, drink_coins, supply)
            coins, supply = coins + got, supply - got
    p.dice, p.coins, p.drinks = dice, coins, (*p.drinks, key)
    state.supply, state.discount = supply, discount
    row[slot] = _new(Card, (key, owner, who))


def _end_turn(state: State, action: Action) -> None:
    who = state.queue[state.turn]
    player = action.get("player", who)
    if type(player) is not int:
        raise _err("Bad player")
    if player != who:
        raise _err(f"It is {_name(state, who)}'s turn")
    p = state.players[who]
    got = _available(state, p.dice, state.supply)  # "For each leftover die unspent ... earn 1 coin"
    p.coins += got
    p.dice = 0
    state.supply -= got
    if state.turn + 1 < len(state.players):
        _begin_turn(state, state.turn + 1)
        return
    for p in state.players:  # Table 88's bonus dice are for the next round only
        p.bonus, p.next_bonus = p.next_bonus, 0
    state.row, state.queue, state.discount, state.gained = [], (), 0, NO_GAIN
    if state.round >= ROUNDS:
        state.phase = "scoring"
    else:
        state.phase, state.round = "reveal", state.round + 1


# ----- scoring ------------------------------------------------------------------------------
def _score(state: State, action: Action) -> None:
    players = state.players
    who = _int(action, "player", 0, len(players) - 1, "Player")
    p = players[who]
    if p.score is not None:
        raise _err(f"{p.name} is scored")
    food = _int(action, "food", 0, 300, "Food points")
    owned = [state.book.by_key[k] for k in p.drinks]
    wants_snacks, wants_meals, faces = _needs(owned, p.ability)
    snacks = _int(action, "snacks", 0, 60, "Snacks") if wants_snacks else 0
    meals = _int(action, "meals", 0, 60, "Meals") if wants_meals else 0
    raw_faces = action.get("faces", {})
    if not isinstance(raw_faces, dict):
        raise _err("Missing faces")
    counts = {face: _int(raw_faces, *_FACE_FIELDS[face]) for face in faces}
    face_points = pair_points = 0
    for d in owned:
        for face in d.faces:
            face_points += counts[face]
    if snacks or meals:
        pair_points = _pairs(owned, "snack", snacks) + _pairs(owned, "meal", meals)
    tray = 0
    if p.ability == "face_bonus":
        tray = max(counts.values())
    elif p.ability == "drink_bonus":
        tray = len(p.drinks)
    breakdown = (("Food", food), ("Faces", face_points), ("Pairs", pair_points),
                 ("Tray", tray), ("Coins", p.coins))
    p.score = breakdown
    state.phase = "scoring" if None in map(_score_of, players) else "over"


# Die face -> _int's arguments for its count: the key in a score action's "faces", the range,
# its name in a refusal and in "Missing ...".
_FACE_FIELDS = {f: (str(f), 0, 60, f"Face {f} count", f"face {f}") for f in range(1, 7)}
_score_of = attrgetter("score")


def _pairs(owned: list[Drink], kind: str, cards: int) -> int:
    """Points of pairing drinks matched with unpaired cards, best drinks first."""
    values = sorted((d.amount for d in owned if d.pairs_with == kind), reverse=True)
    return sum(values[:cards])


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


def _handler(state: State, action: Action) -> Callable[[State, Action], None]:
    """The handler of ``action``, or RuleError when it is no action or not one for now."""
    try:
        phase, handler = _HANDLERS[action["type"]]
    except (KeyError, TypeError):  # not a dict, no type, or a type that is no action
        if not isinstance(action, dict):
            raise _err("Not an action") from None
        raise _err("Unknown action", str(action.get("type"))[:21]) from None
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


def replay(actions: Iterable[Action]) -> State:
    """The state after ``actions`` from a fresh game, or RuleError: every action changes one
    draft in place, the same handlers as :func:`apply` without a copy per action."""
    state = initial_state()
    for action in actions:
        _handler(state, action)(state, action)
    return state


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


# ----- words for the resume question, undo toast and replay ---------------------------------
def describe(state: State) -> str:
    if state.phase == "over":
        return "finished"
    if state.phase == "scoring":
        return "final scoring"
    return f"round {state.round}"


def describe_action(action: Action, state: State) -> str:
    """Who did what, e.g. "Ben bought Cola", for "Undone: ..."; ``state`` is the one the action
    was applied to (whose turn it was, what the slot held)."""
    kind = action.get("type")
    if kind == "seat":
        table = action.get("table")
        if table is None and state.phase == "rush":
            table = free_tables(state)[0]  # the last player still rolling takes the last one
        return f"{_name(state, action.get('player'))} at Table {table}"
    if kind == "jump":
        jump = pending_jump(state)
        who = _name(state, jump and jump[0])
        return f"{who}'s jump to {jump[1]}" if jump and action.get("go") else f"{who}: no jump"
    if kind == "buy":
        slot = action.get("slot")
        card = state.row[slot] if type(slot) is int and 0 <= slot < len(state.row) else None
        drink = state.book.by_key[card.drink].name if card else "a drink"
        return f"{_name(state, current(state))} bought {drink}"
    if kind == "end_turn":
        return f"end of {_name(state, current(state))}'s turn"
    if kind == "score":
        return f"{_name(state, action.get('player'))}'s score"
    return _ACTION_WORDS.get(kind, "a step") if isinstance(kind, str) else "a step"


_ACTION_WORDS = {"setup": "game setup", "reveal": "drinks entered", "deal": "drinks dealt"}


def summary(state: State) -> dict[str, Any]:
    """The state as JSON: coins, pot, seats, drinks and scores."""
    return {
        "round": state.round,
        "phase": state.phase,
        "pot": state.pot,
        "supply": None if state.options.coin_supply == 0 else state.supply,
        "options": state.options.as_dict(),
        "stand_in_values": list(state.stand_in),
        "players": [
            {
                "name": p.name, "tray": p.tray, "ability": p.ability, "coins": p.coins,
                "table": p.table, "drinks": [state.book.by_key[k].name for k in p.drinks],
                "score": None if p.score is None else {**dict(p.score), "total": p.total},
            }
            for p in state.players
        ],
        "winners": [state.players[i].name for i in winners(state)],
    }

