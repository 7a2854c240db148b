"""``companion replay cafe``: the documented example replays to its per-round figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "cafe_game.jsonl"


def replay(path: Path | str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "replay", "cafe", str(path)],
                          capture_output=True, text=True, input=stdin, check=False)


@pytest.mark.slow
def test_example_game_replays_round_by_round():
    """Round 1 "all orders are fulfilled before the three minutes have expired"; round 2's
    unfulfilled orders go "aside in a separate pile for the third final round"; round 3 ends
    with "at least one order left": the table loses."""
    result = replay(EXAMPLE)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    rounds = {r["round"]: r for r in out["rounds"]}
    assert rounds[1]["ended"] == "all done" and rounds[1]["time_left_s"] == 28.1
    assert rounds[1]["dark_flips"] == 1
    assert rounds[2]["carried_to_round_3"] == 4 and rounds[2]["ended"] == "time up"
    assert rounds[3]["orders_laid_out"] == 4 + 4
    assert out["result"] == "lost" and out["orders_left"] == 2


def test_refused_line_is_named():
    """"Café cards and dice used are blocked!": a wrong action stops the replay at its line."""
    text = EXAMPLE.read_text(encoding="utf-8") + '{"type": "double"}\n'
    result = replay("-", stdin=text)
    assert result.returncode == 2
    assert "refused: The game is over" in result.stderr
