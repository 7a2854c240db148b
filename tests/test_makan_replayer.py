"""Undo and resume replay the same setup again and again: the game's replay reads a setup's
drink table once, while the rules themselves keep nothing between calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.commands.replay import read_actions
from companion.games.catalog import GAMES
from companion.games.makan_mania import rules

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "makan_4p.jsonl"


def actions() -> list[dict]:
    return [a for _, a in read_actions(EXAMPLE.read_text(encoding="utf-8").splitlines(), str(EXAMPLE))]


@pytest.fixture
def parses(monkeypatch) -> list[object]:
    """Every drink table the rules read."""
    seen: list[object] = []
    real = rules.parse_drinks

    def counting(where: str, raw: object) -> object:
        seen.append(raw)
        return real(where, raw)

    monkeypatch.setattr(rules, "parse_drinks", counting)
    return seen


def test_a_replayer_reads_the_same_drink_table_once(parses):
    replay = rules.replayer()
    game = actions()
    assert replay(game) == replay(game) == rules.replay(game)
    assert len(parses) == 2  # the replayer once, the rules' own replay once


def test_the_rules_alone_read_it_every_time(parses):
    game = actions()
    rules.replay(game)
    rules.replay(game)
    assert len(parses) == 2


def test_a_table_changed_in_place_is_read_again(parses):
    """The kept table is a copy: changing the action's own table is seen at the next replay."""
    replay = rules.replayer()
    game = actions()
    before = replay(game)
    bandung = next(d for d in game[0]["drink_table"] if d["key"] == "bandung")
    bandung["name"] = "Bandung Rose"
    after = replay(game)
    assert len(parses) == 2
    assert "Bandung Rose" not in str(rules.summary(before))
    assert "Bandung Rose" in str(rules.summary(after))


def test_the_game_replays_through_a_replayer(parses):
    game = actions()
    game[0]["drink_table"][0]["name"] = "Kopi Special"  # a table no other test replayed
    spec = GAMES["makan"]
    assert spec.rules.replay(game) == spec.rules.replay(game)
    assert len(parses) == 1
