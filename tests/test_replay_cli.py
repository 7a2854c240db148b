"""``companion replay``: every bad file gets a file:line message, never a traceback."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from companion.games.catalog import GAMES
from tests.counter_game import SPEC


@pytest.fixture(autouse=True)
def tally(monkeypatch):
    monkeypatch.setitem(GAMES, SPEC.key, SPEC)


def replay(tmp_path, content: bytes | str, capsys):
    path = tmp_path / "game.jsonl"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    try:
        code = main(["replay", "tally", str(path)])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err.strip()


def test_a_good_file_prints_the_final_state(tmp_path, capsys):
    code, out, _ = replay(tmp_path, '# a comment\n{"type":"add","n":2}\n\n{"type":"add","n":3}\n',
                             capsys)
    assert code == 0 and json.loads(out) == {"tally": 5}


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        ('{"type":"add","n":1}\n{"type":"add", n}\n', 2, ":2: not JSON"),
        ('["add", 1]\n', 2, ':1: an action is an object with a "type"'),
        ('{"type":"jump"}\n', 1, ":1: refused: Unknown action jump"),
        ('{"type":"add","n":"seven"}\n', 2, ":1: malformed action (TypeError"),
        (b"\xff\xfe\x00garbage", 2, "is not UTF-8 text"),
    ],
)
def test_each_bad_file_names_the_line(tmp_path, capsys, content, code, message):
    got, out, err = replay(tmp_path, content, capsys)
    assert got == code and out == ""
    assert message in err and "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_an_unknown_game_lists_the_games(tmp_path, capsys):
    assert main(["replay", "chess", str(tmp_path / "x.jsonl")]) == 2
    assert "tally" in capsys.readouterr().err
