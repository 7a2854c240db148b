"""The rules' side of the contract: actions, refusals, a game's pure rules functions as one
:class:`Rules` group, and the checks every game's rules read action fields with. Pure: no I/O,
no clock, no RNG."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from companion.contract.config import Field

Action = dict[str, Any]
# A game's state: each game has its own type, which its spec's groups share.
StateT = TypeVar("StateT")


class RuleError(Exception):
    """A refused action. The message is for the OLED: two short lines at most."""


def _always_undoable(action: Action) -> bool:
    return True


def _no_follow_up(action: Action, earlier: Sequence[Action]) -> str | None:
    return None


def _nothing_after_undo(state: Any, now: float) -> list[Action]:
    return []


@dataclass(frozen=True, kw_only=True)
class Rules(Generic[StateT]):
    """A game's pure rules: ``apply(state, action) -> new state`` or :class:`RuleError`, and what
    the box asks of a state. Every function takes the game's own state type."""

    initial_state: Callable[[], StateT]
    apply: Callable[[StateT, Action], StateT]
    is_finished: Callable[[StateT], bool]
    summary: Callable[[StateT], dict[str, Any]]   # final state as JSON, for replay
    describe: Callable[[StateT], str]             # "round 3", for the resume question
    # "Ben bought Cola", for "Undone: ..." and "Can't undo: ...", given the action and the
    # state it was applied to (which says whose turn it was and what a slot held).
    describe_action: Callable[[Action, StateT], str]
    is_undoable: Callable[[Action], bool] = _always_undoable
    # A step the box adds by itself right after the table's action (the Café's reroll of the
    # dice an order freed, its clock readings), which undo takes back with that action:
    # ``follow_up(action, earlier actions)`` gives the words the undo toast adds for it
    # ("its reroll"; "" for a step the table never sees), or None for an action of its own.
    follow_up: Callable[[Action, Sequence[Action]], str | None] = _no_follow_up
    # What the box journals in the same change as an undo, given the state the undo leaves and
    # the box's clock reading now (the Café's fresh clock reading): ``after_undo(state, now)``.
    after_undo: Callable[[StateT, float], list[Action]] = _nothing_after_undo
    # A whole game replayed at once, where the rules do it faster than action by action (the
    # same handlers on one draft); None: apply each action in turn.
    replay_all: Callable[[Iterable[Action]], StateT] | None = None

    def last_step(self, actions: Sequence[Action]) -> tuple[int, str]:
        """How many actions at the end of ``actions`` undo as one step (the table's last action
        and the follow-ups after it), and the words the toast adds: " and its reroll"."""
        start = len(actions) - 1
        words: list[str] = []
        while start > 0:
            said = self.follow_up(actions[start], actions[:start])
            if said is None:
                break
            if said:
                words.insert(0, said)
            start -= 1
        return len(actions) - start, "".join(f" and {said}" for said in words)

    def replay(self, actions: Iterable[Action]) -> StateT:
        """The state after ``actions`` from a fresh game; raises RuleError on a bad one."""
        if self.replay_all is not None:
            return self.replay_all(actions)
        state = self.initial_state()
        for action in actions:
            state = self.apply(state, action)
        return state


# ----- action fields: what each game's rules accept, refused in words that say what is wrong --

def whole(fields: Mapping[str, Any], key: str, low: int, high: int, name: str,
          default: int | None = None) -> int:
    """``fields[key]``, a whole number in low..high (2.0, "0" and true are not); ``default``
    when it is left out and may be. ``name`` starts the refusal: "Dice left must be"."""
    value = fields.get(key, default)
    if value.__class__ is int and low <= value <= high:  # the usual case first: replays are hot
        return value
    if value is None and key not in fields:
        raise RuleError(_missing(name))
    return whole_value(value, low, high, name)


def whole_value(value: Any, low: int, high: int, name: str) -> int:
    """``value`` if a whole number in low..high, else a refusal naming what it must be."""
    if value.__class__ is int:
        if low <= value <= high:
            return value
        raise RuleError(f"{name} must be\n{low}..{high}")
    raise RuleError(f"{name} must be\na whole number {low}..{high}")


def number(fields: Mapping[str, Any], key: str, name: str) -> float:
    """``fields[key]``, a finite number (a whole number or a fraction; true is not)."""
    value = fields.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value
    raise RuleError(_missing(name) if key not in fields else f"{name} must be\na number")


def _missing(name: str) -> str:
    return f"Missing {name[:1].lower()}{name[1:]}"


def flag(fields: Mapping[str, Any], key: str, default: bool, name: str) -> bool:
    """An on/off field: true or false only (a text "false" must not read as on)."""
    value = fields.get(key, default)
    if value is True or value is False:
        return value
    raise RuleError(f"{name} is\ntrue or false")


def setting(fields: Mapping[str, Any], key: str, spec: Field, name: str) -> float:
    """``fields[key]``, a number checked as the config file checks the same setting (``spec``,
    from the game's config schema): whole or not, and its range; ``spec.default`` if left out."""
    value: Any = fields.get(key, spec.default)
    kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
    if isinstance(value, bool) or not isinstance(value, int | float) or not _of_kind(value, kinds) \
            or not math.isfinite(value):
        raise RuleError(f"{name} must be\n{'a number' if float in kinds else 'a whole number'}")
    problem = spec.check(value) if spec.check else None
    if problem:
        raise RuleError(f"{name} {problem}")
    return value


def _of_kind(value: Any, kinds: tuple[type, ...]) -> bool:
    return isinstance(value, kinds)


def check_game(action: Mapping[str, Any], key: str) -> None:
    """A setup action names its game (``"game": key``) so that a file replayed as another game
    is refused at its first line; a setup from before the field existed names none."""
    named = action.get("game", key)
    if named == key:
        return
    if isinstance(named, str) and len(named) <= 12:
        raise RuleError(f"This setup is for\n{named}, not {key}")
    raise RuleError(f"Game must be {key}")


class Slotted(Protocol):
    """A record whose fields are its ``__slots__``."""

    __slots__: tuple[str, ...]


SlottedT = TypeVar("SlottedT", bound=Slotted)


def clone(record: SlottedT) -> SlottedT:
    """A shallow copy of a ``__slots__`` record (its fields are shared): the start of a draft
    that a rules module changes in place and returns as the new state."""
    copy = object.__new__(record.__class__)
    for name in record.__slots__:
        setattr(copy, name, getattr(record, name))
    return copy
