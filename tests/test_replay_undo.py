"""``{"type": "undo"}`` in a file of actions replays as the box's long BACK undoes: a game with
undos ends where the same game without the undone steps ends, the box's own undo (driven in
the simulator) leaves the actions the replay leaves, and what the box refuses to undo the
replay refuses with the box's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.commands.replay import UNDO, Replay
from companion.games import RuleError
from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}


def example(key: str) -> list[dict]:
    text = (ROOT / "docs" / "examples" / EXAMPLES[key]).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def replayed(key: str, actions: list[dict]) -> Replay:
    game = Replay(GAMES[key])
    for action in actions:
        game.play(action)
    return game


def undoable_cuts(key: str) -> list[int]:
    """Every point of the example game after which the box would undo the last step."""
    spec, actions = GAMES[key], example(key)
    out = []
    for cut in range(2, len(actions) + 1):
        count, _ = spec.rules.last_step(actions[:cut])
        if spec.rules.is_undoable(actions[cut - count]):
            out.append(cut)
    return out


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_a_game_with_undos_ends_as_the_game_without_the_undone_steps(key):
    """At every point the box could undo: the step played, undone, played again, and the rest
    of the game; the same final state and the same actions as the game played straight."""
    spec, actions = GAMES[key], example(key)
    straight = replayed(key, actions)
    cuts = undoable_cuts(key)
    assert len(cuts) >= 5, "the example game has steps to undo"
    with_undos: list[dict] = []
    done = 0
    for cut in cuts:
        count, _ = spec.rules.last_step(actions[:cut])
        with_undos += [*actions[done:cut], {"type": UNDO}, *actions[cut - count:cut]]
        done = cut
    with_undos += actions[done:]
    game = replayed(key, with_undos)
    assert game.actions == actions
    assert spec.rules.summary(game.state) == spec.rules.summary(straight.state)
    assert spec.rules.is_finished(game.state)


def test_the_cafes_undone_order_takes_its_reroll_back_with_it():
    """"The dice used are re-rolled." (rules/crazy_cafe.txt): the reroll an order freed is
    the box's follow-up of that order, and one undo takes back both."""
    spec, actions = GAMES["cafe"], example("cafe")
    cut = next(c for c in range(2, len(actions)) if "reroll" in spec.rules.last_step(actions[:c])[1])
    count, _ = spec.rules.last_step(actions[:cut])
    game = replayed("cafe", [*actions[:cut], {"type": UNDO}])
    assert count > 1 and game.actions == actions[:cut - count]
    assert spec.rules.summary(game.state) == spec.rules.summary(spec.rules.replay(actions[:cut - count]))


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_the_boxs_own_undo_leaves_what_the_replay_leaves(key, tmp_path):
    """The box plays the example to a point, a long BACK undoes; the replay of the same actions
    and an undo carrying what the box journaled with it ("then") gives the box's actions."""
    spec, actions = GAMES[key], example(key)
    for cut in undoable_cuts(key)[::6]:
        box = SimBox(tmp_path / f"{key}-{cut}")
        box.app.table.games.start(key, actions[0])
        assert all(box.app.table.dispatch(action) for action in actions[1:cut])
        box.press("BACK", long=True)
        session = box.app.play.session
        assert session is not None
        kept = actions[:cut - spec.rules.last_step(actions[:cut])[0]]
        game = replayed(key, [*actions[:cut], {"type": UNDO,
                                              "then": session.actions[len(kept):]}])
        assert game.actions == session.actions
        assert spec.rules.summary(game.state) == spec.rules.summary(session.state)


@pytest.mark.parametrize("key", ["cafe", "miams"])
def test_what_the_box_will_not_undo_the_replay_refuses_in_its_words(key):
    """A roll the table asked for, or the setup, stays: "Can't undo: ...", as on the box."""
    spec, actions = GAMES[key], example(key)
    cut = next(c for c in range(1, len(actions) + 1)
               if not spec.rules.is_undoable(actions[c - spec.rules.last_step(actions[:c])[0]]))
    game = replayed(key, actions[:cut])
    with pytest.raises(RuleError, match=r"^Can't undo: "):
        game.play({"type": UNDO})
    assert game.actions == actions[:cut]  # nothing changed
    with pytest.raises(RuleError, match="Nothing to undo"):
        Replay(spec).play({"type": UNDO})


def test_undoing_makans_setup_takes_the_whole_game_back_as_the_box_does():
    """Makan's setup undoes (the box withdraws the game): nothing is left, and a new setup
    starts another game."""
    actions = example("makan")
    game = replayed("makan", [actions[0], {"type": UNDO}])
    assert game.actions == [] and game.state == GAMES["makan"].rules.initial_state()
    assert replayed("makan", [actions[0], {"type": UNDO}, *actions]).actions == actions


def test_the_command_replays_undos_and_says_a_refused_one_by_its_line(tmp_path, capsys):
    actions = example("makan")
    cut = undoable_cuts("makan")[3]
    count, _ = GAMES["makan"].rules.last_step(actions[:cut])
    path = tmp_path / "undone.jsonl"
    path.write_text("\n".join(json.dumps(a) for a in [
        *actions[:cut], {"type": "undo"}, *actions[cut - count:]]) + "\n", encoding="utf-8")
    assert main(["replay", "makan", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out) == GAMES["makan"].rules.summary(GAMES["makan"].rules.replay(actions))
    path.write_text(json.dumps(actions[0]) + '\n{"type": "undo", "then": 3}\n', encoding="utf-8")
    assert main(["replay", "makan", str(path)]) == 2
    _, err = capsys.readouterr()
    assert err == f"{path}:2: refused: an undo's \"then\" is a list of actions\n"
