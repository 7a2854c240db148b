"""`companion replay makan FILE` replays the documented example and prints the state as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from companion.cli import main

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "makan_4p.jsonl"


def test_replay_prints_coins_pot_seats_drinks_and_scores(capsys):
    """The example game (docs/examples/makan_4p.jsonl) replays to the end: "After 5 rounds,
    players add up the point values ..." and the summary shows the final ledger."""
    assert main(["replay", "makan", str(EXAMPLE)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["phase"] == "over" and out["round"] == 5
    players = out["players"]
    assert [p["name"] for p in players] == ["Ana", "Ben", "Cai", "Dee"]
    assert sorted(p["table"] for p in players) == [1, 2, 3, 88]
    # Every coin is with a player, on Table 88 or in the pile of 30.
    assert sum(p["coins"] for p in players) + out["pot"] + out["supply"] == 30
    for p in players:
        assert p["score"]["total"] == sum(v for k, v in p["score"].items() if k != "total")
        assert p["score"]["Coins"] == p["coins"]
    best = max(p["score"]["total"] for p in players)
    assert out["winners"] == [p["name"] for p in players if p["score"]["total"] == best]


def test_replay_names_the_line_of_a_refused_action(tmp_path, capsys):
    """A refused action stops the replay with its line number and the reason."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    setup = next(line for line in lines if '"setup"' in line)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(setup + '\n{"type": "seat", "player": 0, "table": 1, "dice": 0}\n', encoding="utf-8")
    assert main(["replay", "makan", str(bad)]) == 2
    assert "bad.jsonl:2: refused: Not now" in capsys.readouterr().err
