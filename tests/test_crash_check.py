"""bench/crash_check.py: the crash-state campaign's judgement of a journal found after a cut
against the steps its box acknowledged (no QEMU: the steps and journals are written here)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from crash_check import HALF, LOST, OK, acknowledged, played, verdict  # bench/ is no package

GAME = 1


def act(kind: str, **fields: object) -> dict[str, object]:
    return {"type": kind, **fields}


def steps_of(*lists: list[dict[str, object]]) -> list[dict[int, tuple[str, ...]]]:
    return [played({GAME: actions}) for actions in lists]


def journal(actions: list[dict[str, object]]) -> dict[int, tuple[str, ...]]:
    return played({GAME: actions})


A, B, C = act("roll", face=1), act("roll", face=2), act("roll", face=3)


def test_the_journal_of_the_required_step_or_a_later_one_passes():
    steps = steps_of([A], [A, B], [A, B, C])
    assert verdict(steps, 0, journal([A])) == OK
    assert verdict(steps, 0, journal([A, B, C])) == OK  # later steps reached the disk too
    assert verdict(steps, 2, journal([A, B, C])) == OK


def test_an_acknowledged_action_missing_is_lost():
    steps = steps_of([A], [A, B], [A, B, C])
    assert verdict(steps, 1, journal([A])) == LOST
    assert verdict(steps, 2, journal([])) == LOST


def test_an_action_acknowledged_and_then_undone_may_be_gone():
    """After an undo the undone action is rightly absent: the undo's step comes after the
    required one (the earlier checker counted this as a loss)."""
    steps = steps_of([A], [A, B], [A], [A, C])
    assert verdict(steps, 1, journal([A])) == OK  # the undo reached the disk before its frame
    assert verdict(steps, 2, journal([A])) == OK
    # but once the undo was acknowledged, the undone action back in the journal is a loss
    assert verdict(steps, 2, journal([A, B])) == LOST


def test_an_undo_then_more_actions_in_one_step_pass_through_what_the_two_share():
    steps = steps_of([A, B], [A, C])
    assert verdict(steps, 0, journal([A])) == OK
    assert verdict(steps, 0, journal([A, C])) == OK
    assert verdict(steps, 0, journal([A, B, C])) == HALF


def test_the_cafes_own_clock_readings_are_neither_lost_nor_extra():
    """The box journals the round clock every few seconds by itself; a reading taken after
    the last acknowledgement, or one whose write the cut took, changes nothing."""
    start, order = act("round_start", at=0.0), act("order_done", side="light", at=7.5)
    clock = [act("clock", at=float(t)) for t in (3, 6, 9)]
    steps = steps_of([start], [start, clock[0], clock[1], order])
    assert verdict(steps, 0, journal([start, clock[0]])) == OK  # a reading, nothing pressed
    assert verdict(steps, 1, journal([start, order])) == OK  # its readings cut off
    assert verdict(steps, 1, journal([start, clock[0], clock[1], order, clock[2]])) == OK
    assert verdict(steps, 1, journal([start, clock[0]])) == LOST  # the order is still lost


def test_a_change_never_acknowledged_and_on_no_acknowledged_path_is_half_written():
    steps = steps_of([A], [A, B])
    assert verdict(steps, 0, journal([A, C])) == HALF
    assert verdict(steps, 0, journal([A, B, C, C])) == OK  # whole actions after the last step


def test_a_step_appending_several_actions_may_be_cut_part_way():
    steps = steps_of([A], [A, B, C])
    assert verdict(steps, 0, journal([A, B])) == OK
    assert verdict(steps, 1, journal([A, B])) == LOST


def test_before_any_acknowledgement_any_state_on_the_way_to_the_first_passes():
    steps = steps_of([A, B])
    assert verdict(steps, -1, journal([])) == OK
    assert verdict(steps, -1, journal([A])) == OK
    assert verdict(steps, -1, journal([C])) == HALF


def test_games_are_compared_one_by_one():
    first, second = {1: [A, B]}, {1: [A, B], 2: [C]}
    steps = [played(first), played(second)]
    assert verdict(steps, 1, played({1: [A, B], 2: [C]})) == OK
    assert verdict(steps, 1, played({1: [A, B]})) == LOST  # the second game's action lost
    assert verdict(steps, 0, played({1: [A, B], 2: []})) == OK  # a game started, nothing played


def test_the_acknowledged_lists_are_rebuilt_from_each_lines_change():
    lines = [{"game": 4, "n": 1, "keep": 0, "tail": [A]},
             {"game": 4, "n": 3, "keep": 1, "tail": [B, C]},
             {"game": 4, "n": 2, "keep": 1, "tail": [C]},  # an undo of two, then a clock reading
             {"game": 5, "n": 1, "keep": 0, "tail": [B]}]
    assert acknowledged(lines) == [{4: [A]}, {4: [A, B, C]}, {4: [A, C]}, {4: [A, C], 5: [B]}]
    with pytest.raises(ValueError, match="2 actions rebuilt, the line says 3"):
        acknowledged([lines[0], {"game": 4, "n": 3, "keep": 1, "tail": [B]}])


def test_a_game_forgotten_after_its_setup_was_undone_is_no_loss():
    """Undoing a game's setup forgets the game (no saved game, no history); the box's line
    says so, and from that step on the journal rightly holds nothing of it."""
    setup = act("setup", players=2)
    lines = [{"game": 1, "n": 1, "keep": 0, "tail": [setup]},
             {"game": 1, "n": 2, "keep": 1, "tail": [A]},
             {"game": 1, "forgot": True},
             {"game": 1, "n": 1, "keep": 0, "tail": [B]}]  # the next game may reuse the id
    raw = acknowledged(lines)
    assert raw == [{1: [setup]}, {1: [setup, A]}, {}, {1: [B]}]
    steps = [played(step) for step in raw]
    assert verdict(steps, 1, played({})) == OK  # forgotten before its line came
    assert verdict(steps, 2, played({})) == OK
    assert verdict(steps, 2, played({1: [setup, A]})) == LOST  # the forgetting was shown
    assert verdict(steps, 2, played({1: [B]})) == OK
    assert verdict(steps, 1, played({1: [setup]})) == LOST  # back to an earlier step


def test_the_box_process_says_when_it_forgets_a_game(tmp_path, capsys, monkeypatch):
    """Undoing Makan Mania's setup forgets the game: the box process says so, and after every
    press the lists rebuilt from its lines are what the journal holds."""
    import json
    import random

    import reliability

    from companion.simulator.simbox import SimBox

    monkeypatch.setattr(reliability, "UNDO_P", 0.3)
    monkeypatch.setattr(reliability, "_last", ())
    monkeypatch.setattr(reliability, "_shown", (None, []))
    box, rng = SimBox(tmp_path, seed=5), random.Random(5)
    journal, lines = box.app.play.journal, []
    for _ in range(150):
        reliability._step(box, rng, "makan")
        reliability._report(box.app)
        lines += [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        rebuilt = acknowledged([line for line in lines if "n" in line or "forgot" in line])
        held = {g: journal.load(g).actions for g, _, _ in journal.history(limit=100)}
        assert played(rebuilt[-1] if rebuilt else {}) == played(held)
    box.close()
    assert any(line.get("forgot") for line in lines)


def test_the_box_process_lines_rebuild_every_acknowledged_list(tmp_path, capsys, monkeypatch):
    """The reliability campaign's box process, played here with its own presses (undos
    included): each line's change rebuilds the actions its screen showed."""
    import itertools
    import json
    import random

    import reliability

    from companion.simulator.simbox import SimBox

    monkeypatch.setattr(reliability, "UNDO_P", 0.3)
    monkeypatch.setattr(reliability, "_last", ())
    monkeypatch.setattr(reliability, "_shown", (None, []))
    box, rng, shown = SimBox(tmp_path, seed=3), random.Random(3), []
    for _ in range(80):
        reliability._step(box, rng, "cafe")
        reliability._report(box.app)
        if box.app.play.session is not None:
            shown.append(list(box.app.play.session.actions))
    box.close()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    acked = [line for line in lines if "n" in line]
    assert any(line["keep"] < prev["n"] for prev, line in itertools.pairwise(acked))  # undos came
    rebuilt = [step[acked[-1]["game"]] for step in acknowledged(acked)]
    assert rebuilt[-1] == shown[-1]
    assert all(step in shown for step in rebuilt)


def test_an_undo_pressed_after_the_last_step_may_have_reached_the_disk():
    """The cut came after an undo's commit and before its frame: the last step's last actions
    are gone from the journal, which is no loss (the box had begun what the table asked)."""
    lines = [{"game": GAME, "n": 1, "keep": 0, "tail": [A]},
             {"game": GAME, "n": 4, "keep": 1, "tail": [B, C, A]},
             {"undoing": True}]
    steps = [played(step) for step in acknowledged(lines)]
    assert len(steps) == 2  # the undo's line is no step
    assert verdict(steps, 1, journal([A, B, C]), undo_pressed_last=True) == OK
    assert verdict(steps, 1, journal([A]), undo_pressed_last=True) == OK
    assert verdict(steps, 1, journal([A, B, C]), undo_pressed_last=False) == LOST
    # one undo never takes back more than the last few actions: the first is still required
    assert verdict(steps, 1, journal([]), undo_pressed_last=True) == LOST
    assert verdict(steps, 1, journal([B]), undo_pressed_last=True) == LOST
