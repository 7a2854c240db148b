"""Nothing from a release runs as root while its slot is built: the updater (root) runs the
venv's creation and pip as the box's user, through setpriv, and gives the slot to root after."""

from __future__ import annotations

import os
import pwd
import subprocess

import pytest

from companion.appliance import slotbuild, update

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the updater runs as root")


def test_the_build_runs_as_the_user_with_no_new_privileges(tmp_path):
    slot = tmp_path / "slots" / "b"
    slot.mkdir(parents=True)
    prefix = slotbuild.as_build_user("nobody", slot)
    nobody = pwd.getpwnam("nobody")
    assert os.stat(slot).st_uid == nobody.pw_uid
    who = subprocess.run([*prefix, "sh", "-c", "id -u; grep NoNewPrivs /proc/self/status"],
                         capture_output=True, text=True, check=True).stdout.split()
    assert who == [str(nobody.pw_uid), "NoNewPrivs:", "1"]


def test_a_missing_build_user_is_said_before_anything_is_built(tmp_path):
    with pytest.raises(slotbuild.BuildUserError, match="the user 'no-such-user' that builds an update "
                       "does not exist"):
        slotbuild.as_build_user("no-such-user", tmp_path)


def test_without_a_user_the_build_runs_as_the_caller(tmp_path):
    assert slotbuild.as_build_user(None, tmp_path) == []


def test_a_journal_put_back_by_root_belongs_to_the_box_again(tmp_path):
    """Issue 36: "Rollback while in phase `journal` puts back a journal owned by root: the box
    starts read-only and holds play in RAM"."""
    from companion.journal.journal import Journal

    nobody = pwd.getpwnam("nobody")
    state = tmp_path / "state"
    journal, _ = Journal.open(state)
    journal.close()
    for path in (state, *state.iterdir()):
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    copy = tmp_path / "copy.db"
    update.backup_journal(state / "journal.db", copy)  # as root, as the updater does
    assert os.stat(copy).st_uid == 0
    update.restore_journal(copy, state / "journal.db")
    info = os.stat(state / "journal.db")
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (nobody.pw_uid, nobody.pw_gid, 0o640)
