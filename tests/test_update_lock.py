"""One update at a time: the box's update lock refuses a second install or rollback with the
reason, and whoever takes it first (the next boot's check too) clears what a cut during an
earlier build left: ``incoming-*`` and the slot nothing points at, nothing else."""

from __future__ import annotations

import fcntl
import glob
import json
import os
from pathlib import Path

import pytest

from companion.appliance import slots, update

REPO = Path(__file__).resolve().parent.parent


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


def holds(layout: slots.Layout, slot: str, version: str) -> None:
    (layout.slot(slot) / "release.json").write_text(json.dumps({"version": version}))


def test_the_boot_check_removes_a_cut_build_and_nothing_the_box_points_at(layout):
    holds(layout, "a", "0.1.0")
    holds(layout, "b", "0.0.9")
    layout.point("b", "kept")
    (layout.slot("c") / "bin").mkdir()  # the build cut off: no release.json yet
    (layout.prefix / "incoming-q7x" / "release").mkdir(parents=True)
    said: list[str] = []
    assert update.boot_check(layout=layout, say=said.append)
    assert said == ["removed incoming-q7x, left by an update cut off",
                    "removed slots/c, left by an update cut off"]
    assert sorted(path.name for path in layout.prefix.iterdir() if path.name.startswith(
        ("incoming-", "slots"))) == ["slots"]
    assert sorted(path.name for path in (layout.prefix / "slots").iterdir()) == ["a", "b"]
    assert not update.boot_check(layout=layout, say=said.append)


def test_a_box_laid_out_before_the_kept_link_keeps_the_other_slot_that_holds_a_version(layout):
    holds(layout, "a", "0.1.0")
    holds(layout, "b", "0.0.9")
    assert (layout.kept(), layout.free()) == ("b", "c")
    assert slots.Layout(layout.prefix).pointed() == {"a", "b"}
    (layout.slot("b") / "release.json").unlink()  # an older updater's build, cut off in b
    assert (layout.kept(), layout.free()) == (None, "b")
    assert update.boot_check(layout=layout, say=lambda line: None)
    assert sorted(path.name for path in (layout.prefix / "slots").iterdir()) == ["a"]


def test_a_slot_a_trial_names_is_not_a_leftover(layout):
    layout.point("b", "kept")
    slots.write_json(layout.trial, {"from": "a", "to": "c", "kept": "b", "phase": "trial"})
    assert update.leftovers(layout) == []


def boot_check_starts(prefix, state_dir) -> bool:
    """Whether companion-update-check.service's conditions (any of its ``|`` ones) hold, with
    /opt/companion at ``prefix`` and /var/lib/companion at ``state_dir``."""
    unit = (REPO / "systemd/companion-update-check.service").read_text().splitlines()
    found = []
    for line in unit:
        kind, _, path = line.partition("=|")
        if kind not in ("ConditionPathExists", "ConditionPathExistsGlob"):
            continue
        path = path.replace("/opt/companion", str(prefix)).replace("/var/lib/companion",
                                                                   str(state_dir))
        found.append(any(glob.glob(path)) if kind.endswith("Glob") else os.path.exists(path))
    assert found
    return any(found)


class StartsAtOnce:
    def stop(self) -> None:
        pass

    def start(self) -> bool:
        return True


def test_a_cut_once_the_update_was_kept_is_cleared_at_the_next_boot(layout, tmp_path,
                                                                   monkeypatch):
    """The power goes between trial.json's removal and the setting aside of the slot kept
    before: the next boot's check starts (the trial's folder is still there), removes that
    slot and the folder, and the boot after starts no check."""
    for slot, version in (("a", "0.1.0"), ("b", "0.0.9"), ("c", "0.1.1")):
        holds(layout, slot, version)
    layout.point("b", "kept")
    state = tmp_path / "state"
    (state / slots.TRIAL_DIR).mkdir(parents=True)
    slots.write_json(layout.trial, {"from": "a", "to": "c", "kept": "b", "phase": "journal",
                                    "version": "0.1.1", "state_dir": str(state)})
    layout.point("c")
    assert boot_check_starts(layout.prefix, state)

    def power_cut(*_args) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(update, "remove_slot", power_cut)
    with pytest.raises(KeyboardInterrupt):
        update._try(layout, StartsAtOnce(), state, lambda line: None)
    monkeypatch.undo()
    assert not layout.trial.exists() and layout.slot("b").exists()
    assert boot_check_starts(layout.prefix, state)
    said: list[str] = []
    assert update.boot_check(layout=layout, say=said.append, state_dir=state)
    assert said == ["removed slots/b, left by an update cut off",
                    "removed update-trial, left by an update cut off"]
    assert sorted(path.name for path in (layout.prefix / "slots").iterdir()) == ["a", "c"]
    assert (layout.running(), layout.kept(), layout.version("a")) == ("c", "a", "0.1.0")
    assert not boot_check_starts(layout.prefix, state)
    assert not update.boot_check(layout=layout, say=said.append, state_dir=state)
