"""What a game plugs into the box: pure rules plus its screens.

Rules are pure: ``apply(state, action) -> new state`` or :class:`RuleError`; no I/O, no clock,
no RNG. Actions are JSON objects (``{"type": ...}``); the journal stores them and
``companion replay`` reads them, so the vocabulary is documented per game in ``docs/``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from companion.config import Field

if TYPE_CHECKING:
    from companion.app import App
    from companion.ui.widgets import Screen

Action = dict[str, Any]


class RuleError(Exception):
    """A refused action. The message is for the OLED: two short lines at most."""


def clone(record: Any) -> Any:
    """A shallow copy of a ``__slots__`` record (its fields are shared): the start of a draft
    that a rules module changes in place and returns as the new state."""
    copy = object.__new__(record.__class__)
    for name in record.__slots__:
        setattr(copy, name, getattr(record, name))
    return copy


@dataclass(frozen=True)
class GameSpec:
    key: str                                   # CLI and journal name: makan, cafe, miams
    title: str                                 # shown on screens
    initial_state: Callable[[], Any]
    apply: Callable[[Any, Action], Any]
    is_finished: Callable[[Any], bool]
    summary: Callable[[Any], dict[str, Any]]   # final state as JSON, for replay
    describe: Callable[[Any], str]             # "round 3", for the resume question
    # "Ben bought Cola", for "Undone: ..." and "Can't undo: ...", given the action and the
    # state it was applied to (which says whose turn it was and what a slot held).
    describe_action: Callable[[Action, Any], str]
    new_game: Callable[[App], Screen]          # the setup screen, before any action
    play: Callable[[App], Screen]              # the root screen of a game in progress
    is_undoable: Callable[[Action], bool] = lambda action: True
    config: Mapping[str, Field] = field(default_factory=dict)
    # Named screens for screenshots and the screen walk: name -> steps from the home menu
    # (see companion.walk for the step syntax).
    walk: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # A whole game replayed at once, where the rules do it faster than action by action (the
    # same handlers on one draft); None: apply each action in turn.
    replay_all: Callable[[Iterable[Action]], Any] | None = None

    @classmethod
    def from_rules(cls, key: str, title: str, rules: ModuleType, **screens_and_data: Any) -> GameSpec:
        """A spec whose rules functions are the conventional names of a pure ``rules`` module
        (``replay`` is optional); the screens, config and walk are given by name."""
        return cls(
            key=key, title=title, initial_state=rules.initial_state, apply=rules.apply,
            is_finished=rules.is_finished, summary=rules.summary, describe=rules.describe,
            describe_action=rules.describe_action, is_undoable=rules.is_undoable,
            replay_all=getattr(rules, "replay", None), **screens_and_data,
        )

    def replay(self, actions: Iterable[Action]) -> Any:
        """The state after ``actions`` from a fresh game; raises RuleError on a bad one."""
        if self.replay_all is not None:
            return self.replay_all(actions)
        state = self.initial_state()
        for action in actions:
            state = self.apply(state, action)
        return state
