"""Headless Miams: ``companion replay miams`` and ``companion simulate miams``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from firmware_bridge.faces import FRUITS, WHITE

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "miams_game.jsonl"


def test_replay_example_prints_the_final_state(capsys):
    """The example game: the player fills their 50 on turn 12, "take turns until everyone has
    taken the same number of turns", then both scores are counted."""
    assert main(["replay", "miams", str(EXAMPLE)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["phase"] == "over" and out["difficulty"] == "lunch"
    assert out["arthur"]["turns"] == out["player"]["turns"] == 12
    assert out["player"]["score"] == 59
    assert out["arthur"]["score"] == out["arthur"]["hearts"] + out["arthur"]["stars"]
    assert out["winner"] == ("player" if out["player"]["score"] > out["arthur"]["score"] else "arthur")


def test_replay_refuses_a_bad_action(tmp_path, capsys):
    """"Take a game sheet for you and one for Arthur" comes first: a roll before the setup is
    refused, with its line number."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "roll", "face": "fruit1"}\n', encoding="utf-8")
    assert main(["replay", "miams", str(bad)]) == 2
    assert "bad.jsonl:1: refused: Start a game first" in capsys.readouterr().err


@pytest.mark.slow
def test_simulate_prints_rates_and_distributions(capsys):
    """``companion simulate miams`` plays whole games; the same seed gives the same figures."""
    args = ["simulate", "miams", "--games", "300", "--difficulty", "lunch", "--seed", "4"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    lunch = first["difficulties"]["lunch"]
    assert lunch["games"] == 300
    assert abs(lunch["player_win_rate"] + lunch["arthur_win_rate"] - 1) < 1e-9
    assert lunch["arthur_score"]["min"] <= lunch["arthur_score"]["p50"] <= lunch["arthur_score"]["max"]
    assert sum(lunch["player_score"]["histogram_10"].values()) == 300
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first


@pytest.mark.slow
def test_simulate_all_difficulties(capsys):
    """Without --difficulty the three levels are compared side by side."""
    assert main(["simulate", "miams", "--games", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["difficulties"]) == ["snacking", "lunch", "munchies"]


@pytest.mark.parametrize(("argv", "said"), [
    (["simulate", "miams", "--games", "0"], "--games: 1 to 10,000,000"),
    (["simulate", "miams", "--games", str(10**20)], "--games: 1 to 10,000,000"),
    (["odds", "miams", "--dice", "fruit1,fruit1,fruit2,fruit3,cross", "--rerolls", "-1"],
     "--rerolls '-1': rerolls left: 0 to 4"),
])
def test_numbers_out_of_bounds_are_refused_with_the_bounds(capsys, argv, said):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"companion {argv[0]}: {said}"


def test_the_readme_names_the_faces_that_odds_takes(capsys):
    """Issue 39: the README wrote ``--dice F,F,F,F,F`` without saying what F is. Its row names
    every face the command takes, and its example runs."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    row = next(line for line in readme.splitlines() if "`companion odds miams --dice" in line)
    assert "`fruit1`…`fruit5`" in row and "`cross`" in row and "`marshmallow`" in row
    assert {*FRUITS} == {f"fruit{n}" for n in range(1, 6)}
    assert set(WHITE) == {*FRUITS, "cross"}
    example = row.split("e.g. `", 1)[1].split("`", 1)[0].split()
    assert example[0] == "--dice"
    assert main(["odds", "miams", *example, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
