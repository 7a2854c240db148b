"""Action fields in all three games: a wrong type is named as wrong (not as missing), a number
that is also a setting is checked as the config file checks it, and a setup names its game.

Positions are reached by replaying the example games in docs/examples up to an action of the
kind under test; that action is then sent with one field changed.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from companion.box.stack import _wrap
from companion.contract.config import ConfigError
from companion.contract.rules import RuleError
from companion.games import box_config as config
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
FILES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}


def actions(game: str) -> list[dict]:
    lines = (EXAMPLES / FILES[game]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]


def refusal(game: str, kind: str, fields: dict) -> str:
    """The refusal of the example's first ``kind`` action with ``fields`` changed (a field set
    to ... is left out), applied to the state just before it."""
    spec = GAMES[game]
    played = actions(game)
    at = next(i for i, action in enumerate(played)
              if action["type"] == kind and all(key in action for key in fields))
    state = spec.rules.replay(played[:at])
    action = {**played[at], **fields}
    action = {key: value for key, value in action.items() if value is not ...}
    with pytest.raises(RuleError) as refused:
        spec.rules.apply(state, action)
    return str(refused.value)


# ----- wrong types are named as what they are -------------------------------------------------

@pytest.mark.parametrize(("game", "kind", "fields", "message"), [
    # The three the fuzz campaign read as missing ("Missing dice", "Missing slot", ...).
    ("makan", "seat", {"dice": 2.0}, "Dice left must be\na whole number 0..3"),
    ("makan", "buy", {"slot": "0"}, "Slot must be\na whole number 0..4"),
    ("makan", "score", {"player": True}, "Player must be\na whole number 0..3"),
    ("makan", "end_turn", {"player": "0"}, "Player must be\na whole number 0..3"),
    ("makan", "seat", {"table": 1.0}, "Table must be\na whole number 1..88"),
    ("makan", "score", {"food": None}, "Food points must be\na whole number 0..300"),
    ("makan", "jump", {"go": "yes"}, "Go is\ntrue or false"),
    ("makan", "jump", {"tch": [0.0]}, "Tch player must be\na whole number 0..3"),
    ("makan", "setup", {"options": {"coin_supply": 30.0}}, "Coin supply must be\na whole number"),
    ("cafe", "place", {"die": 1.0}, "Die must be\na whole number 0..3"),
    ("cafe", "order_done", {"dice": [True]}, "Die must be\na whole number 0..3"),
    ("cafe", "round_start", {"at": "1000"}, "Time 'at' must be\na number"),
    ("cafe", "setup", {"double_trouble": "false"}, "Double Trouble is\ntrue or false"),
    ("cafe", "setup", {"round_seconds": 180.5}, "Round length must be\na whole number"),
    ("miams", "player", {"crosses": 2.0}, "Crosses must be\na whole number 0..5"),
    ("miams", "player", {"filled": 0}, "Filled is\ntrue or false"),
    ("miams", "score", {"hearts": True}, "Hearts must be\na whole number 0..50"),
    ("miams", "score", {"stars": "9"}, "Stars must be\na whole number 0..999"),
])
def test_a_wrong_type_is_named_as_wrong_not_missing(game, kind, fields, message):
    got = refusal(game, kind, fields)
    assert got == message
    assert len(_wrap(got)) <= 2, "two short lines on the OLED"


@pytest.mark.parametrize(("game", "kind", "fields", "message"), [
    ("makan", "seat", {"dice": ...}, "Missing dice left"),
    ("makan", "buy", {"slot": ...}, "Missing slot"),
    ("makan", "score", {"player": ...}, "Missing player"),
    ("cafe", "round_start", {"at": ...}, "Missing time 'at'"),
    ("miams", "score", {"hearts": ...}, "Missing hearts"),
])
def test_a_field_left_out_is_missing(game, kind, fields, message):
    assert refusal(game, kind, fields) == message


@pytest.mark.parametrize(("game", "kind", "fields", "message"), [
    ("makan", "seat", {"dice": 4}, "Dice left must be\n0..3"),
    ("makan", "score", {"food": 301}, "Food points must be\n0..300"),
    ("miams", "player", {"crosses": 6}, "Crosses must be\n0..5"),
])
def test_a_whole_number_out_of_range_gives_the_range(game, kind, fields, message):
    assert refusal(game, kind, fields) == message


# ----- numbers that are settings: the config file's range --------------------------------------

def config_takes(game: str, key: str, value) -> bool:
    try:
        config.parse({"games": {game: {key: value}}})
    except ConfigError:
        return False
    return True


def rules_take(game: str, action: dict) -> bool:
    try:
        GAMES[game].rules.apply(GAMES[game].rules.initial_state(), action)
    except RuleError as exc:
        assert len(_wrap(str(exc))) <= 2, str(exc)
        return False
    return True


ODD_NUMBERS = [1e-6, 0, 1, 9, 10, 29, 30, 59, 60, 61, 90, 120, 179.5, 180, 600, 601, 999, 1000,
               1800, 1801, -1, -180, 10**15, 1e15]


@pytest.mark.parametrize("seconds", ODD_NUMBERS)
def test_a_cafe_round_length_is_what_the_config_allows(seconds):
    """A round of 1e-6 s was accepted in an action although the config refuses it: the setup
    takes exactly the lengths `[games.cafe] round_seconds` takes."""
    action = {"type": "setup", "dice": "manual", "round_seconds": seconds}
    assert rules_take("cafe", action) == config_takes("cafe", "round_seconds", seconds)


def test_the_cafe_rules_use_the_config_field_itself(monkeypatch):
    """No second copy of the range: narrowing the config's field narrows the rules."""
    from companion.games.crazy_cafe import rules

    assert GAMES["cafe"].config["round_seconds"] is rules.ROUND_SECONDS
    narrowed = dataclasses.replace(rules.ROUND_SECONDS, check=lambda v: None if v == 42 else "no")
    monkeypatch.setattr(rules, "ROUND_SECONDS", narrowed)
    assert rules_take("cafe", {"type": "setup", "dice": "manual", "round_seconds": 42})
    assert not rules_take("cafe", {"type": "setup", "dice": "manual", "round_seconds": 180})


def test_the_makan_rules_use_the_config_field_itself():
    from companion.games.makan_mania import rules

    assert GAMES["makan"].config["coin_supply"] is rules.COIN_SUPPLY


@pytest.mark.parametrize("coins", [*ODD_NUMBERS, True])
def test_a_makan_coin_supply_is_what_the_config_allows(coins):
    setup = {**actions("makan")[0], "options": {"coin_supply": coins}}
    assert rules_take("makan", setup) == config_takes("makan", "coin_supply", coins)


# ----- a setup names its game ------------------------------------------------------------------

@pytest.mark.parametrize("game", sorted(FILES))
def test_a_setup_names_its_game_and_another_game_is_refused(game):
    """A Makan file replayed as Miams was accepted up to line 4: each setup names its game,
    and a setup naming another one is refused at once."""
    setup = actions(game)[0]
    assert setup["game"] == game and rules_take(game, setup)
    for other in FILES:
        if other != game:
            assert refusal(game, "setup", {"game": other}) == f"This setup is for\n{other}, not {game}"
            # Another game's whole setup, as a file replayed under the wrong key.
            with pytest.raises(RuleError, match=f"This setup is for\n{other}, not {game}"):
                GAMES[game].rules.apply(GAMES[game].rules.initial_state(), actions(other)[0])
    assert refusal(game, "setup", {"game": ["x"]}) == f"Game must be {game}"
    assert refusal(game, "setup", {"game": "x" * 1000}) == f"Game must be {game}"


@pytest.mark.parametrize("game", sorted(FILES))
def test_a_setup_from_before_the_field_still_replays(game):
    """Journals written before a setup named its game resume as before."""
    played = actions(game)
    old = [{k: v for k, v in played[0].items() if k != "game"}, *played[1:]]
    spec = GAMES[game]
    assert spec.rules.summary(spec.rules.replay(old)) == spec.rules.summary(spec.rules.replay(played))


@pytest.mark.parametrize("game", sorted(FILES))
def test_the_box_writes_the_game_into_the_setup(tmp_path, game):
    box = SimBox(tmp_path)
    try:
        run_steps(box, {"makan": ("game:makan", "OK"), "cafe": ("game:cafe", "menu:Start"),
                        "miams": ("game:miams", "menu:Start")}[game])
        session = box.app.play.session
        assert session is not None and session.spec.key == game
        assert session.actions[0]["type"] == "setup" and session.actions[0]["game"] == game
        assert box.app.play.journal.load(session.game_id).actions[0]["game"] == game
    finally:
        box.close()
