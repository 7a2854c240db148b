"""The phone page while an update is being tried: the box plays on the trial's copy of the
journal, and undoing the trial carries that copy's roster and settings over the journal's, so
a change the page wrote to the journal then would be gone. The page refuses it instead, with
the reason, and takes it once the update is kept or undone (docs/update.md)."""

from __future__ import annotations

import re
import shutil
import sqlite3

from companion.appliance import journal_merge, slots, update
from companion.cli import main
from companion.records import roster
from tests.test_history import EXAMPLES, ROOT
from tests.web_process import WebProcess


def names(state) -> list[str]:
    with roster.connect(state) as conn:
        return sorted(player.name for player in roster.players(conn))


def volume(state) -> str | None:
    with sqlite3.connect(state / slots.JOURNAL_NAME) as conn:
        row = conn.execute("SELECT value FROM settings WHERE key = 'volume'").fetchone()
    return row[0] if row else None


def test_a_roster_or_settings_change_during_a_trial_is_refused_and_taken_after(tmp_path):
    state = tmp_path / "state"
    key = next(iter(EXAMPLES))
    assert main(["history", "--state-dir", str(state), "import",
                 str(ROOT / "docs" / "examples" / EXAMPLES[key]), "--game", key]) == 0
    journal, trial = state / slots.JOURNAL_NAME, state / slots.TRIAL_DIR / slots.JOURNAL_NAME
    before = names(state)
    # What the updater does once it has stopped the box: the trial's copy, which the new
    # version plays on.
    update.backup_journal(journal, trial)
    web = WebProcess(state)
    try:
        session = web.session()
        token = re.search(rb'name="csrf" value="([^"]+)"',
                          web.get("/roster", session)[2]).group(1).decode()
        status, _, body = web.post("/roster", {"op": "add", "name": "Ada", "csrf": token},
                                   session)
        assert status == 400 and roster.UPDATE_TRIED.encode() in body
        status, _, body = web.post("/settings", {"volume": "1", "csrf": token}, session)
        assert status == 409 and roster.UPDATE_TRIED.encode() in body
        assert (names(state), volume(state)) == (before, None)  # nothing half written
        # The trial undone: its copy's roster and settings are carried over the journal's.
        journal_merge.carry_plays(trial, journal)
        shutil.rmtree(trial.parent)
        assert names(state) == before
        status, headers, _ = web.post("/roster", {"op": "add", "name": "Ada", "csrf": token},
                                      session)
        assert status == 303 and "Added%20Ada" in headers["location"]
        assert web.post("/settings", {"volume": "1", "csrf": token}, session)[0] == 303
    finally:
        web.close()
    assert names(state) == sorted([*before, "Ada"])
    assert volume(state) == "1"
