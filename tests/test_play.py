"""Play on its own: an action, an undo or a start returns an Outcome and calls no screen (a Play
is made without any: no stack, no table, no panel); the journal's health is told, not asked."""

from __future__ import annotations

from companion.box.panel import Health
from companion.box.play import Change, Play
from companion.journal.journal import Journal
from hardware.clock import VirtualClock
from tests.counter_game import SPEC


class LoopClock:
    """The screens' clock without a loop: deadlines are kept, not run."""

    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.deadlines: list[float] = []

    def now(self) -> float:
        return self.clock.now()

    def at(self, when: float, fn) -> None:
        self.deadlines.append(when)


def made(tmp_path) -> tuple[Play, Journal, list[Health]]:
    journal, _ = Journal.open(tmp_path)
    play = Play(journal, {SPEC.key: SPEC}, LoopClock())
    told: list[Health] = []
    play.tell = told.append
    return play, journal, told


def test_an_action_comes_back_as_its_outcome_journaled_first(tmp_path):
    play, journal, told = made(tmp_path)
    started = play.start(SPEC.key)
    assert started.accepted and started.change is Change.SHOW and started.game is SPEC
    outcome = play.apply({"type": "add", "n": 3})
    assert outcome.accepted and outcome.state == 3 and outcome.change is Change.NONE
    assert not outcome.say and not outcome.error
    assert play.session is not None and play.session.state == 3
    assert journal.load(play.session.game_id).actions == [{"type": "add", "n": 3}]
    assert told[-1] == Health("journal", ok=True)  # each write tells the journal's health
    journal.close()


def test_a_refused_action_says_why_and_changes_nothing(tmp_path):
    play, journal, _ = made(tmp_path)
    play.start(SPEC.key)
    outcome = play.apply({"type": "jump"})
    assert not outcome.accepted and outcome.error and outcome.say == ("Unknown action jump",)
    assert play.session is not None and play.session.state == 0 and play.session.actions == []
    assert journal.load(play.session.game_id).actions == []
    journal.close()


def test_an_undo_says_what_it_took_back_and_asks_the_game_rebuilt(tmp_path):
    play, journal, _ = made(tmp_path)
    play.start(SPEC.key)
    play.apply({"type": "add", "n": 2})
    play.apply({"type": "add", "n": 5})
    outcome = play.undo()
    assert outcome.accepted and outcome.state == 2 and outcome.change is Change.GAME
    assert outcome.say == ("Undone: add 5",) and outcome.beep == "ok"
    assert play.session is not None
    assert journal.load(play.session.game_id).actions == [{"type": "add", "n": 2}]
    play.apply({"type": "roll", "value": 4})
    refused = play.undo()  # "rolls the table asked for stay"
    assert not refused.accepted and refused.error and refused.say == ("Can't undo: roll 4",)
    journal.close()


def test_nothing_to_undo_is_said_without_an_error(tmp_path):
    play, journal, _ = made(tmp_path)
    play.start(SPEC.key)
    outcome = play.undo()
    assert not outcome.accepted and not outcome.error and outcome.say == ("Nothing to undo",)
    journal.close()


def test_the_panel_shows_what_the_parts_told_it(box):
    panel = box.app.panel
    assert "⚠" not in panel.status_icons() and "⊘" not in panel.status_icons()
    panel.tell(Health("journal", ok=False, lines=("Disk full:", "play kept in memory"), error=True))
    assert "⚠" in panel.status_icons()
    assert box.app.stack.toast_lines == ["Disk full:", "play kept in memory"]
    panel.tell(Health("sensor", ok=False))  # a sensor that tells is one
    assert "⊘" in panel.status_icons()
    panel.tell(Health("sensor", ok=True))
    panel.tell(Health("journal", ok=True))
    assert panel.status_icons() == "◎"
