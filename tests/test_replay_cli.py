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


def replay(tmp_path, content: bytes | str, capsys, game: str = "tally"):
    path = tmp_path / "game.jsonl"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    try:
        code = main(["replay", game, str(path)])
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
        ('{"type":"jump"}\n', 2, ":1: refused: Unknown action jump"),
        ('{"type":"add","n":"seven"}\n', 2, ":1: malformed 'add' action: a field has a value"),
        (b"\xff\xfe\x00garbage", 2, "is not UTF-8 text"),
        # nested past Python's recursion limit: was a RecursionError traceback
        ("[" * 20_000 + "]" * 20_000 + "\n", 2, ":1: nested more than 32 levels deep"),
        # longer than a line may be (64 KiB): refused before it is parsed
        ("[" * 100_000 + "]" * 100_000 + "\n", 2, ":1: a line longer than 64 KiB; not read"),
        ('{"type":"add","n":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n', 2,
         ":1: nested more than 32 levels deep"),
        # int() refuses more than 4,300 digits with a ValueError: never asked
        ('{"type":"add","n":1}\n{"type":"add","n":' + "9" * 5000 + "}\n", 2,
         ":2: a number has more than 18 digits"),
        ('{"type":"add","n":-1234567890123456789}\n', 2, ":1: a number has more than 18 digits"),
        # 10^400 is infinity as a float: was accepted and printed as Infinity
        ('{"type":"add","n":1e400}\n', 2, ":1: the number 1e400 is beyond"),
        ('{"type":"add","n":NaN}\n', 2, ":1: NaN is not a number JSON allows"),
        ('{"type":"add","n":-Infinity}\n', 2, ":1: -Infinity is not a number JSON allows"),
    ],
)
def test_each_bad_file_names_the_line(tmp_path, capsys, content, code, message):
    got, out, err = replay(tmp_path, content, capsys)
    assert got == code and out == ""
    assert message in err and "Traceback" not in err and "Error" not in err
    assert len(err.splitlines()) == 1


def test_a_file_starting_with_a_byte_order_mark_is_read(tmp_path, capsys):
    """Editors on some systems save UTF-8 with a BOM: it was "not JSON"."""
    code, out, err = replay(tmp_path, "\ufeff# saved by Notepad\n{\"type\":\"add\",\"n\":4}\n", capsys)
    assert (code, err) == (0, "") and json.loads(out) == {"tally": 4}
    code, out, err = replay(tmp_path, '\ufeff{"type":"add","n":4}\n', capsys)
    assert (code, err) == (0, "") and json.loads(out) == {"tally": 4}


def test_a_refusal_written_for_two_oled_lines_is_one_line(tmp_path, capsys):
    """A real game's refusal ("Round length must be⏎a whole number") keeps its words."""
    code, _, err = replay(tmp_path, '{"type":"setup","round_seconds":"180"}\n', capsys, "cafe")
    assert code == 2
    assert err == f"{tmp_path / 'game.jsonl'}:1: refused: Round length must be a whole number"


def test_a_huge_float_never_reaches_a_real_game(tmp_path, capsys):
    """A Café round of 1e400 s (infinity) was accepted as a setup."""
    code, _, err = replay(tmp_path, '{"type":"setup","round_seconds":1e400}\n', capsys, "cafe")
    assert code == 2 and err.endswith(":1: the number 1e400 is beyond ±1e+15")


def test_line_numbers_count_newlines_only(tmp_path, capsys):
    """A U+2028 inside a name is not a line break for an editor, nor here."""
    code, _, err = replay(tmp_path, '{"type":"add","n":1,"who":"a\u2028b"}\n{"type":"jump"}\n', capsys)
    assert code == 2 and ":2: refused" in err


def test_an_unknown_game_lists_the_games(tmp_path, capsys):
    assert main(["replay", "chess", str(tmp_path / "x.jsonl")]) == 2
    assert "tally" in capsys.readouterr().err
