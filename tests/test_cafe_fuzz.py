"""The Café engine against odd input: a refusal the table can read, never a crash.

The plugin contract (docs/games.md): "Illegal actions raise RuleError with a message of at most
2 short lines ... nothing is half-applied." Actions come from the journal and from
``companion replay`` files that people edit by hand, so any JSON value can turn up anywhere.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.box.stack import _wrap
from companion.contract.rules import RuleError
from companion.games.crazy_cafe import rules

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "cafe_game.jsonl"


def _example() -> list[dict]:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


def _sensor_game() -> list[dict]:
    """Sensor dice: every action kind of the dice modes that the box example lacks."""
    faces = ["cake", "pizza", "water", "bill"]
    return [
        {"type": "setup", "round_seconds": 60, "double_trouble": True, "dice": "sensor"},
        {"type": "roll", "kind": "setup", "faces": faces, "source": "sensor"},
        {"type": "round_start", "at": 10.0},
        {"type": "place", "die": 1, "placed": True},
        {"type": "pause", "at": 20.0},
        {"type": "add_order", "side": "dark"},
        {"type": "resume", "at": 25.0},
        {"type": "roll", "kind": "reroll", "faces": ["cake", "cake", "coffee", "bill"],
         "source": "sensor"},
        {"type": "order_done", "side": "dark", "dice": [1], "at": 30.0},
        {"type": "roll", "kind": "freed", "faces": [None, "fries", None, None], "source": "sensor"},
        {"type": "remove_order", "side": "light"},
        {"type": "time_up", "at": 75.0},
    ]


def _manual_game() -> list[dict]:
    return [
        {"type": "setup", "round_seconds": 180, "double_trouble": True, "special_menus": True,
         "dice": "manual"},
        {"type": "round_start", "at": 0},
        {"type": "double"},
        {"type": "order_done", "side": "light", "at": 5},
        {"type": "time_up", "at": 180},
    ]


GAMES = [_example(), _sensor_game(), _manual_game()]
KEYS = ["type", "at", "round_seconds", "double_trouble", "special_menus", "dice", "faces", "kind",
        "source", "die", "placed", "side"]

# Values of the wrong kind, and right-looking ones of the wrong type (1.0 and True as die).
GARBAGE = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-3, 10**12),
        st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=16),
        st.sampled_from([0.0, 1.0, 3.0, "1", "light", "dark", "box", "sensor", "manual", "reroll",
                         "freed", "setup", "cake", "cola", "bill", "order_done", "place"]),
    ),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=3),
    max_leaves=8,
)


@st.composite
def odd_step(draw: st.DrawFn) -> tuple[list[dict], object]:
    """A game cut at some action, and that action mutated (or replaced by garbage)."""
    actions = draw(st.sampled_from(GAMES))
    cut = draw(st.integers(0, len(actions) - 1))
    action = copy.deepcopy(actions[cut])
    how = draw(st.sampled_from(["set", "set", "set", "drop", "faces", "table", "not a table"]))
    if how == "set":
        action[draw(st.sampled_from(KEYS))] = draw(GARBAGE)
    elif how == "drop" and action:
        action.pop(draw(st.sampled_from(sorted(action))))
    elif how == "faces":
        action["faces"] = draw(st.lists(GARBAGE, min_size=4, max_size=4))
    elif how == "table":
        action = draw(st.dictionaries(st.sampled_from(KEYS), GARBAGE, max_size=5))
    else:
        action = draw(GARBAGE)
    return actions[:cut], action


def _replay(actions: list[dict]) -> rules.CafeState:
    state = rules.initial_state()
    for action in actions:
        state = rules.apply(state, action)
    return state


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(odd_step())
def test_odd_actions_are_refused_or_applied_never_crash(step):
    """Any mutated or garbage action: apply returns a state or raises RuleError with a message
    that fits two lines, and the state it was given is unchanged."""
    before, action = step
    state = _replay(before)
    snapshot = copy.deepcopy(state)
    try:
        after = rules.apply(state, action)
    except RuleError as exc:
        assert len(_wrap(str(exc))) <= 2, str(exc)
    else:
        assert isinstance(after, rules.CafeState)
        assert isinstance(rules.describe_action(action), str)
        rules.summary(after)
    assert state == snapshot


@pytest.mark.parametrize("prefix, action", [
    (3, {"type": "place", "die": 1.0}),
    (3, {"type": "place", "die": True}),
    (3, {"type": "order_done", "side": "light", "dice": [1.0], "at": 30.0}),
    (3, {"type": "order_done", "side": ["light"], "dice": [1], "at": 30.0}),
    (3, {"type": ["place"], "die": 1}),
    (3, {"type": "roll", "kind": "reroll", "faces": [["cake"], None, None, None]}),
    (3, {"type": "pause", "at": float("nan")}),
    (0, {"type": "setup", "dice": "sensor", "round_seconds": float("inf")}),
    (0, {"type": "setup", "dice": "manual", "double_trouble": "false"}),
    (0, ["setup"]),
    (3, {"type": "time_up", "at": -9e15}),
])
def test_the_reviewed_odd_actions_are_refused(prefix, action):
    """Cases found by fuzzing: a die 1.0, a dice list [1.0], a list as type or side, a list as
    a face, nan or infinite times, a text "false" as a switch, an action that is no table, a
    clock reading ages before the end of the round; each refusal fits the screen's two lines."""
    state = _replay(_sensor_game()[:prefix])
    with pytest.raises(RuleError) as refused:
        rules.apply(state, action)
    assert len(_wrap(str(refused.value))) <= 2, str(refused.value)
