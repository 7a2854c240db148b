"""A saved Makan game replays from its journal alone: the setup action holds each player's tray
ability and the drink table, so correcting trays.toml/drinks.toml never changes an old game."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.commands.replay import read_actions
from companion.contract.config import ConfigError
from companion.games.catalog import GAMES
from companion.games.makan_mania import data, rules
from companion.simulator.walk import run_steps

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "makan_4p.jsonl"


def actions() -> list[dict]:
    return [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]


def test_a_replay_is_the_actions_applied_one_by_one():
    """Resume and undo replay the journal: the whole game at once gives the state the box
    reached action by action, and applying an action never changed the state before it."""
    states = [rules.initial_state()]
    seen = []
    for action in actions():
        states.append(rules.apply(states[-1], action))
        seen.append(rules.summary(states[-1]))
    assert GAMES["makan"].rules.replay(actions()) == states[-1]
    assert GAMES["makan"].rules.replay(actions()[:30]) == states[30]
    assert [rules.summary(state) for state in states[1:]] == seen
    assert states[-1].phase == "over" and states[30] != states[31]


def test_the_example_replays_without_the_data_files(monkeypatch):
    """The Drinks List costs ("Bandung: 1 die or 1 coin") come from the journal's setup."""
    expected = rules.summary(GAMES["makan"].rules.replay(actions()))

    def broken(*_: object) -> None:
        raise ConfigError("drinks.toml", "drink", "broken", "fix it")

    monkeypatch.setattr(rules, "load_drinks", broken)
    monkeypatch.setattr(rules, "load_trays", broken)
    assert rules.summary(GAMES["makan"].rules.replay(actions())) == expected


def test_a_corrected_data_file_does_not_change_a_saved_game(monkeypatch):
    """"Where a cost shows two options, the printed card lets you pay either one": a table that
    later edits its drinks file (say, Bandung to cost 3 dice) still replays the game it played."""
    expected = rules.summary(GAMES["makan"].rules.replay(actions()))
    dearer = tuple(d if d.key != "bandung" else data.Drink(d.key, d.name, 3, 3, d.effect, d.amount,
                                                             d.faces, d.pairs_with, d.copies)
                   for d in data.load_drinks())
    monkeypatch.setattr(rules, "load_drinks", lambda *_: dearer)
    assert rules.summary(GAMES["makan"].rules.replay(actions())) == expected


def test_a_journal_from_before_the_drink_table_still_replays():
    """Old setup actions (tray colour only) read the data files, as they did when recorded."""
    old = actions()
    setup = dict(old[0], players=[{"name": p["name"], "tray": p["tray"]} for p in old[0]["players"]])
    del setup["drink_table"], setup["stand_in"]
    assert rules.summary(GAMES["makan"].rules.replay([setup, *old[1:]]))["players"] == \
        rules.summary(GAMES["makan"].rules.replay(old))["players"]


def test_the_setup_screen_writes_abilities_and_drink_table(box):
    """"Each player chooses a Tray card": the journal keeps the ability each tray had."""
    run_steps(box, ("game:makan",))
    run_steps(box, ("OK",))
    setup = box.app.play.session.actions[0]
    assert [p["ability"] for p in setup["players"]] == [t.ability for t in data.load_trays()][:4]
    assert setup["drink_table"] == [d.as_dict() for d in data.load_drinks()]
    json.dumps(setup)  # the journal is JSON


def test_a_bad_drink_table_in_a_setup_is_refused():
    """A setup whose drink table is damaged is refused with a short reason."""
    setup = dict(actions()[0], drink_table=[{"key": "x", "name": "X", "coins": -1, "effect": "coins",
                                             "amount": 1, "copies": 1}])
    with pytest.raises(rules.RuleError, match="Bad drink table"):
        rules.apply(rules.initial_state(), setup)


def test_a_null_drink_table_is_refused_in_a_fresh_box():
    """The first setup the box replays after a start may carry a null drink table (a damaged
    journal); it is refused, never taken as an empty book."""
    script = ("import json, sys\n"
              "from companion.games import RuleError\n"
              "from companion.games.makan_mania import rules\n"
              "try:\n"
              "    rules.apply(rules.initial_state(), json.loads(sys.stdin.read()))\n"
              "except RuleError as exc:\n"
              "    print(str(exc).splitlines()[0])\n")
    setup = dict(actions()[0], drink_table=None)
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(setup), text=True,
                          capture_output=True, check=True, timeout=60)
    assert done.stdout.strip() == "Bad drink table"
