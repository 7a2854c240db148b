"""One update at a time: the box's update lock refuses a second install or rollback with the
reason, and whoever takes it first clears what a cut during an earlier build left."""

from __future__ import annotations

import fcntl

import pytest

from companion.appliance import slots, update


@pytest.fixture
def layout(tmp_path):
    layout = slots.Layout(tmp_path / "opt")
    for slot in slots.SLOTS:
        layout.slot(slot).mkdir(parents=True)
    layout.point("a")
    return layout


def test_a_second_update_is_refused_while_one_holds_the_lock(layout, tmp_path):
    with open(layout.prefix / update.LOCK_FILE, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(update.UpdateError, match="another update or rollback is running on "
                           "this box: wait for it to finish"):
            update.install(tmp_path / "any.release", tmp_path / "state", layout=layout)
        with pytest.raises(update.UpdateError, match="another update or rollback is running"):
            update.rollback(layout=layout)


def test_what_a_cut_build_left_is_cleared_by_the_next_update(layout):
    left = layout.prefix / "incoming-k2j4x" / "release" / "wheels"
    left.mkdir(parents=True)
    (left / "half.whl").write_bytes(b"x" * 100)
    with pytest.raises(update.UpdateError, match="no version is kept"):
        update.rollback(layout=layout)
    assert not list(layout.prefix.glob("incoming-*"))
