"""Miams solo, pure: Arthur the Insatiable's sheet, his turns, the player's turns, the end.

``apply(state, action) -> state`` or :class:`RuleError`, and the state given is never changed:
``apply`` copies it into a draft (its own Arthur's sheet; every other field is immutable and
shared) and the rules change the draft in place, as boardgame.io's moves change an Immer draft.
The simulator plays a whole game on one draft through the same functions, with no new state
per turn. Chance arrives in actions: the red-die face is drawn by the screen, the simulator,
a person or the dice sensor, never here. Actions (see docs/miams.md):

- ``{"type": "setup", "game": "miams", "difficulty": "lunch", "sheet": {...}, "tile": {...},
  "tie": "top", "setup_column": "counts"}`` (sheet and tile as in the TOML files; left out =
  the stand-ins)
- ``{"type": "roll", "face": "fruit3", "source": "box" | "hand" | "sensor"}`` Arthur's turn
- ``{"type": "player", "crosses": 0..5, "filled": false}`` the player's turn; with
  ``"own_sheet": true`` in the setup, the box keeps the player's sheet too and the turn says what
  they marked instead of ``filled`` (``crossed``, ``scored``, ``catch_up``, ``paid``: see
  :mod:`.own_sheet`)
- ``{"type": "score", "hearts": 0..50, "stars": N}`` the player's final score, counted from
  their paper (never asked when the box keeps their sheet: it scores it)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from companion.contract.config import ConfigError
from companion.contract.rules import Action, RuleError, check_game, clone, flag, whole
from companion.ui.words import plural
from firmware_bridge.faces import RED

from . import own_sheet
from .ending import is_last_turn
from .marks import Side, mark, mark_spot
from .own_sheet import OwnSheet, OwnTurn
from .sheet import (
    CIRCLE,
    COUNT_BITS,
    CROSS,
    FIRST_COLUMN_STARS,
    HALF,
    HALF_BITS,
    HEARTS_TRACK,
    NO_SPOT,
    SKEWERS,
    SPOT,
    TIES,
    Mark,
    Sheet,
    Tile,
    load_sheet,
    load_tile,
    pack_rows,
    sheet_from_data,
    tile_from_data,
)

KEY = "miams"  # the game's key, named by its setup action (see check_game)
# "Lunch: Cross off the 2 leftmost free spaces of each of its skewers." Munchies: 4.
DIFFICULTIES: dict[str, int] = {"snacking": 0, "lunch": 2, "munchies": 4}
DIFFICULTY_NAMES: dict[str, str] = {"snacking": "Snacking", "lunch": "Lunch", "munchies": "Munchies"}
SETUP_COLUMN = ("counts", "ignored")  # docs/rulings.md: setup crosses and the first column
SOURCES = ("box", "hand", "sensor")

# The stand-ins, read once when the package loads so apply() never touches a file.
DEFAULT_SHEET: Sheet = load_sheet()
DEFAULT_TILE: Tile = load_tile()


class Turn(NamedTuple):
    """Arthur's last turn: the face rolled and the marks it led to (circle first)."""

    face: str
    source: str
    marks: tuple[Mark, ...]


@dataclass(frozen=True, slots=True)
class Options:
    """What is fixed for a whole game (read on every turn: slots are read fastest)."""

    sheet: Sheet
    tile: Tile
    difficulty: str
    tie: str
    setup_column: str


@dataclass(slots=True)
class State:
    """The whole game. The rules change only a draft of it (see :func:`apply`); every field but
    ``arthur`` holds an immutable value, so a draft shares them."""

    phase: str                  # setup, arthur, player, score (final score entry), over
    options: Options | None
    arthur: Side
    turns: int                  # Arthur's turns taken
    player_turns: int
    player_filled: bool         # the player said their 50 hearts are filled
    player_score: tuple[int, int] | None   # (hearts, stars) entered at the end
    last: Turn | None           # Arthur's last turn, for the screen
    gift: tuple[Mark, ...]      # crosses Arthur got in the player's last turn
    own: OwnSheet | None = None  # the player's sheet, when the box keeps it


# A Turn is built positionally: NamedTuple's generated __new__ costs more than the rest of a turn.
_new = tuple.__new__


def initial_state() -> State:
    return State("setup", None, Side(), 0, 0, False, None, None, ())


def options_of(state: State) -> Options:
    """The game's options, which every state after the setup has; before it, refused."""
    if state.options is None:
        raise RuleError("Start a game first")
    return state.options


def draft(state: State) -> State:
    """A copy of ``state`` the rules may change in place: its own Arthur's sheet and player's
    sheet (every other field is immutable, so shared)."""
    copy = clone(state)
    copy.arthur = clone(state.arthur)
    if state.own is not None:
        copy.own = state.own.copy()
    return copy


# ----- the sheet --------------------------------------------------------------------------------

def least_advanced(sheet: Sheet, rows: tuple[str, ...], tie: str = "top") -> int | None:
    """The row of the "highest least advanced skewer": fewest marks among rows with a free space.

    On a tie ``top`` takes the highest row on the sheet (Pair first), ``bottom`` the lowest.
    None when every row is full.
    """
    at = _least_advanced(sheet, pack_rows(rows)[0], tie)
    return None if at is None else at >> COUNT_BITS


def _least_advanced(sheet: Sheet, counts: int, tie: str) -> int | None:
    """The spot of :func:`least_advanced` for a side's counts, read from the sheet's tables."""
    top_rows, bottom_rows = sheet.least_advanced[tie]
    key = top_rows[counts & HALF]
    bottom = bottom_rows[counts >> HALF_BITS]
    if bottom < key:
        key = bottom
    return None if key == NO_SPOT else key & SPOT


def arthur_crosses(sheet: Sheet, tie: str, side: Side, count: int) -> tuple[Mark, ...]:
    """Cross ``count`` spaces on Arthur's side, each in his highest least advanced skewer,
    taking bonuses; returns the marks.

    A red die or reroll token from a crossed space is discarded at once and makes one more
    cross, so bonuses cascade until none are left (or every row is full).
    """
    marks: list[Mark] = []
    while count > 0:
        count -= 1
        at = _least_advanced(sheet, side.counts, tie)
        if at is None:
            break  # every space is marked: the cross has nowhere to go
        made = mark_spot(sheet, side, at, CROSS)
        marks.append(made)
        count += made.tokens
    return tuple(marks)


# ----- the game ---------------------------------------------------------------------------------

def setup(action: Action) -> State:
    """Arthur's sheet for the chosen difficulty, with his 1 space circled; he plays first."""
    check_game(action, KEY)
    difficulty = action.get("difficulty", "snacking")
    if not _one_of(difficulty, DIFFICULTIES):
        raise RuleError("Unknown difficulty")
    tie = action.get("tie", "top")
    setup_column = action.get("setup_column", "counts")
    if not _one_of(tie, TIES) or not _one_of(setup_column, SETUP_COLUMN):
        raise RuleError("Unknown ruling option")
    own = OwnSheet() if flag(action, "own_sheet", False, "Own sheet") else None
    try:
        sheet = sheet_from_data(action["sheet"], "setup.sheet") if "sheet" in action else DEFAULT_SHEET
        tile = tile_from_data(action["tile"], "setup.tile") if "tile" in action else DEFAULT_TILE
    except ConfigError as exc:
        raise RuleError(f"Bad sheet data:\n{exc.key[:21]}") from None
    side = Side()
    # "During this setup, do not take into account the Bonus tokens printed on the spaces you cross."
    for row in range(len(SKEWERS)):
        for _ in range(min(DIFFICULTIES[difficulty], len(sheet.rows[row].hearts))):
            mark(sheet, side, row, CROSS, bonus=False)
    if setup_column == "ignored" and side.column:
        side.stars -= FIRST_COLUMN_STARS
    options = Options(sheet, tile, difficulty, tie, setup_column)
    return State("arthur", options, side, 0, 0, False, None, None, (), own)


def arthur_turn(game: State, face: str, source: str = "box") -> None:
    """Roll the red die for Arthur: the tile names the skewer; circle it, then cascade crosses.
    Changes ``game``, a draft, in place."""
    options = options_of(game)
    sheet = options.sheet
    side = game.arthur
    circled = mark(sheet, side, options.tile.skewer_of[face], CIRCLE)
    marks: tuple[Mark, ...] = (circled,)
    if circled.tokens:
        marks += arthur_crosses(sheet, options.tie, side, circled.tokens)
    game.phase = "player"
    game.turns += 1
    game.last = _new(Turn, (face, source, marks))
    game.gift = ()


def player_turn(game: State, crosses: int, filled: bool) -> None:
    """The player's turn: each cross they rolled gives Arthur a cross; then check the end.
    Changes ``game``, a draft, in place.

    "As soon as a player has filled all 50 Hearts ..., take turns until everyone has taken the
    same number of turns." Arthur plays first, so the game ends after this turn.
    """
    options, side = options_of(game), game.arthur
    game.gift = arthur_crosses(options.sheet, options.tie, side, crosses) if crosses else ()
    game.player_turns += 1
    game.player_filled = filled = filled or game.player_filled
    game.phase = "score" if filled or side.hearts >= HEARTS_TRACK else "arthur"


def tracked_turn(game: State, crosses: int, turn: OwnTurn) -> None:
    """The player's turn when the box keeps their sheet: their marks first, then the turn as
    :func:`player_turn` plays it, the track full when the sheet says so; at the end the box
    scores their sheet. Changes ``game``, a draft, in place."""
    own = game.own
    assert own is not None  # a tracked turn is read only for a game that keeps the sheet
    own_sheet.play_turn(options_of(game).sheet, own, turn)
    player_turn(game, crosses, own.side.hearts >= HEARTS_TRACK)
    if game.phase == "score":
        # "Each player calculates their final score, adding up the filled Hearts on their game
        # sheet and their Star tokens."
        final_score(game, own.side.hearts, own.stars)


def final_score(game: State, hearts: int, stars: int) -> None:
    """The player's final score ends the game. Changes ``game``, a draft, in place."""
    game.phase = "over"
    game.player_score = (hearts, stars)


def apply(state: State, action: Action) -> State:
    """The state after ``action``, or RuleError with a reason for the screen; ``state`` itself
    is never changed (a checked action changes a draft of it).

    Every field's type is checked before it is used (a bool is not a number), so odd input from
    a journal or a hand-written file gets a refusal, never a TypeError.
    """
    if not isinstance(action, dict):
        raise RuleError("Not a Miams move")
    kind = action.get("type")
    if not _one_of(kind, ACTION_TYPES):
        raise RuleError("Not a Miams move")
    phase = state.phase
    if kind == "setup":
        if phase != "setup":
            raise RuleError("The game has started")
        return setup(action)
    if phase == "setup":
        raise RuleError("Start a game first")
    if kind == "roll":
        if phase != "arthur":
            raise RuleError("Not Arthur's turn")
        face = action.get("face")
        if not _one_of(face, RED):
            raise RuleError("Unknown red die face")
        source = action.get("source", "box")
        if not _one_of(source, SOURCES):
            raise RuleError("Unknown roll source")
        return _on_draft(state, arthur_turn, face, source)
    if kind == "player":
        if phase != "player":
            raise RuleError("Not your turn")
        crosses = whole(action, "crosses", 0, 5, "Crosses", 0)
        if state.own is not None:
            if "filled" in action:
                raise RuleError("Your sheet says\nwhen it is full")
            turn = own_sheet.read_turn(action, options_of(state).sheet, state.own)
            return _on_draft(state, tracked_turn, crosses, turn)
        if any(key in action for key in own_sheet.TURN_FIELDS):
            raise RuleError("Your sheet is\nnot kept here")
        filled = flag(action, "filled", False, "Filled")
        return _on_draft(state, player_turn, crosses, filled)
    if phase != "score":
        raise RuleError("The game is not over")
    hearts = whole(action, "hearts", 0, HEARTS_TRACK, "Hearts")
    stars = whole(action, "stars", 0, 999, "Stars")
    if state.player_filled and hearts != HEARTS_TRACK:
        raise RuleError("You filled your 50:\nhearts must be 50")
    return _on_draft(state, final_score, hearts, stars)


def _on_draft(state: State, rule: Callable[..., None], *args: Any) -> State:
    """A draft of ``state`` changed by ``rule``: the new state."""
    game = draft(state)
    rule(game, *args)
    return game


ACTION_TYPES = ("setup", "roll", "player", "score")


def _one_of(value: Any, choices: Any) -> bool:
    """``value`` is a string among ``choices`` (checked first: a list is unhashable)."""
    return isinstance(value, str) and value in choices


# ----- reading the state ------------------------------------------------------------------------

def is_finished(state: State) -> bool:
    return state.phase == "over"


def score(side: Side) -> int:
    """ "adding up the filled Hearts on their game sheet and their Star tokens" """
    return side.hearts + side.stars


def winner(state: State) -> str | None:
    """``player`` only with a higher score ("You win if your score is higher"); else ``arthur``."""
    if state.player_score is None:
        return None
    return "player" if sum(state.player_score) > score(state.arthur) else "arthur"


def is_undoable(action: Action) -> bool:
    """A face typed in from a physical red die can be taken back; a box or sensor roll cannot."""
    if action.get("type") == "roll":
        return bool(action.get("source", "box") == "hand")
    return action.get("type") != "setup"


def describe(state: State) -> str:
    if state.phase == "arthur":
        return f"Arthur's turn {state.turns + 1}"
    if state.phase == "player":
        return f"your {'last ' if is_last_turn(state) else ''}turn {state.player_turns + 1}"
    if state.phase in ("score", "over"):
        return "final scores"
    return "setup"


def describe_action(action: Action, state: State | None = None) -> str:
    """A few words for the action, e.g. "Arthur's roll" in "Can't undo: Arthur's roll"; a solo
    game has one player, so the state it was applied to is not needed."""
    kind = action.get("type") if isinstance(action, dict) else None
    if kind == "roll":
        return "Arthur's roll"
    if kind == "player":
        try:
            crosses = whole(action, "crosses", 0, 5, "Crosses", 0)
        except RuleError:
            return "your turn"
        return f"your turn, {plural(crosses, 'cross', 'crosses')}"
    if kind == "score":
        return "your final score"
    if kind == "setup":
        return "the game setup"
    return "a Miams move"


def summary(state: State) -> dict[str, Any]:
    """The state as JSON for ``companion replay``."""
    options = state.options
    arthur = state.arthur
    out: dict[str, Any] = {"game": "miams", "phase": state.phase}
    if options is None:
        return out
    out.update({
        "difficulty": options.difficulty,
        "sheet": options.sheet.name, "tile": options.tile.name,
        "stand_in_values": options.sheet.stand_in or options.tile.stand_in,
        "rulings": {"tie": options.tie, "setup_column": options.setup_column},
        "arthur": {
            "turns": state.turns, "hearts": arthur.hearts, "stars": arthur.stars,
            "score": score(arthur), "first_column_bonus": arthur.column,
            "rows": {SKEWERS[i]: marks for i, marks in enumerate(arthur.rows)},
        },
        "player": {"turns": state.player_turns, "filled_50": state.player_filled},
        "own_sheet": state.own is not None,
    })
    if state.own is not None:
        out["player"].update(own_sheet.summary(state.own))
    if state.player_score is not None:
        hearts, stars = state.player_score
        out["player"].update({"hearts": hearts, "stars": stars, "score": hearts + stars})
        out["winner"] = winner(state)
    return out


def star_text(stars: int) -> str:
    return "★" * stars if stars <= 3 else f"{stars}★"
