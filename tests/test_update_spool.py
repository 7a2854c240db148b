"""A release file a cut left in the spool is tried again at the next boot, but not forever:
after its second try cut off it is set aside, and the box and ``companion doctor`` say so.
The updater's messages are kept on the data partition, and after a boot that found a cut
update ``companion doctor`` shows them (docs/update.md)."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from companion.appliance import privileged, slots, spool
from companion.box.updates import set_aside_health, update_health
from companion.doctor.updates import check_updates

RELEASE = "table-companion-0.3.0-aarch64.release"


@pytest.fixture
def box(tmp_path):
    layout = slots.Layout(tmp_path / "opt")
    layout.prefix.mkdir()
    state = tmp_path / "state"
    (state / slots.SPOOL_NAME).mkdir(parents=True)
    (tmp_path / "keys").mkdir()
    return layout, state, state / slots.SPOOL_NAME


def run_cut_off(target, *args, **kwargs) -> None:
    """``target(*args, **kwargs)`` in a child the power leaves (SIGKILL: no cleanup runs)."""
    child = multiprocessing.get_context("fork").Process(target=target, args=args,
                                                        kwargs=kwargs)
    child.start()
    child.join()
    assert child.exitcode == -signal.SIGKILL


def power_cut(*_args, **_kwargs) -> str:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("killed")


def updater(layout, state, tmp_path, *words) -> int:
    return privileged.main(["update", *words, "--prefix", str(layout.prefix), "--state-dir",
                            str(state), "--keys", str(tmp_path / "keys")])


def test_a_release_cut_off_twice_is_set_aside_and_said(box, monkeypatch):
    layout, state, handed = box
    (handed / RELEASE).write_bytes(b"a release")
    monkeypatch.setattr(spool, "install", power_cut)
    for tries in (1, 2):  # the boot after each cut takes it up again
        run_cut_off(spool.take_spooled, handed, state, layout=layout)
        assert (handed / RELEASE).exists()
        assert spool.read_tries(layout.prefix) == {RELEASE: tries}
    installed: list[str] = []
    monkeypatch.setattr(spool, "install",
                        lambda release, *_a, **_k: installed.append(release.name) or "0.3.1")
    lines = spool.take_spooled(handed, state, layout=layout)
    assert installed == [], "not a third try"
    assert lines == [f"{RELEASE}: not installed: {spool.cut_off_twice(RELEASE)}"]
    assert sorted(path.name for path in handed.iterdir()) == [
        slots.RESULT_NAME, RELEASE + slots.SET_ASIDE]
    assert spool.read_tries(layout.prefix) == {}
    # The box: the updater's news as it lands, and at its next start.
    told = update_health(handed, slots.RESULT_NAME)
    assert told is not None and told.error
    assert told.lines == ("Update not installed:", spool.cut_off_twice(RELEASE))
    at_start = set_aside_health(handed)
    assert at_start is not None and at_start.lines == ("Update set aside:",
                                                       "cut off twice, see doctor")
    [finding] = check_updates(handed, layout.prefix)
    assert finding.detail.startswith(f"{RELEASE} was not installed: its install was cut off twice")
    assert "check the power supply" in finding.fix
    # A release handed over later is tried (and the one set aside goes).
    (handed / "table-companion-0.3.1-aarch64.release").write_bytes(b"another")
    spool.take_spooled(handed, state, layout=layout)
    assert installed == ["table-companion-0.3.1-aarch64.release"]
    assert set_aside_health(handed) is None and check_updates(handed, layout.prefix) == []


def test_a_try_that_ends_is_not_counted_as_cut_off(box):
    layout, state, handed = box
    for _ in range(3):
        (handed / RELEASE).write_bytes(b"not a release")
        [line] = spool.take_spooled(handed, state, layout=layout)
        assert line.startswith(f"{RELEASE}: not installed: ") and "cut off" not in line
    assert not (layout.prefix / spool.TRIES_NAME).exists() and not (handed / RELEASE).exists()


def test_the_messages_of_an_update_cut_off_are_in_doctor_after_the_boot_that_found_it(
        box, tmp_path, monkeypatch):
    layout, state, handed = box
    (handed / RELEASE).write_bytes(b"a release")

    def install_cut_off(release, _state_dir, *, layout, say, **_kwargs) -> str:
        say(f"checking {release.name}")
        (layout.prefix / "incoming-k2j4x").mkdir()  # as the updater's build leaves it
        say("installing 0.3.0 into slot b, beside 0.2.0 running")
        return power_cut()

    monkeypatch.setattr(spool, "install", install_cut_off)
    run_cut_off(updater, layout, state, tmp_path, "--spool", str(handed))
    assert check_updates(handed, layout.prefix) == []  # no boot found it yet
    assert updater(layout, state, tmp_path, "--boot-check") == 0
    [finding] = check_updates(handed, layout.prefix)
    lines = [line.strip() for line in finding.detail.splitlines()[1:]]
    runs = [line.split(" ", 3)[3] for line in lines if line.startswith(spool.SECTION)]
    said = [line.split(" ", 1)[1] for line in lines if not line.startswith(spool.SECTION)]
    assert runs == ["update --spool", "update --boot-check"]
    assert said == [f"checking {RELEASE}", "installing 0.3.0 into slot b, beside 0.2.0 running",
                    "removed incoming-k2j4x, left by an update cut off"]
    # The install the boot takes up again starts a new section; the cut one is still shown.
    monkeypatch.setattr(spool, "install", lambda *_a, say, **_k: say("updated") or "0.3.0")
    assert updater(layout, state, tmp_path, "--spool", str(handed)) == 0
    assert check_updates(handed, layout.prefix)[0].detail == finding.detail
    log = (layout.prefix / spool.LOG_NAME).read_text().splitlines()
    assert log[-3].startswith(spool.SECTION) and log[-3].endswith("update --spool")
    assert log[-2].endswith(" updated") and log[-1].endswith(f"{RELEASE}: running 0.3.0")


def test_the_updaters_log_keeps_within_its_bound(tmp_path):
    for run in range(400):
        say = spool.UpdateLog(tmp_path, f"update run {run}")
        for step in range(20):
            say(f"step {step} " + "x" * 40)
    text = (tmp_path / spool.LOG_NAME).read_text()
    assert len(text) <= spool.LOG_MAX_BYTES + 2000
    assert text.startswith(spool.SECTION)
    assert text.splitlines()[-1].endswith("step 19 " + "x" * 40)
    assert spool.sections(text)[-1][0].endswith("update run 399")


def test_root_writes_last_txt_through_no_link_the_box_user_planted(box, tmp_path):
    """Issue 36: "root writes `last.txt` through a symlink that the `companion` user planted"."""
    layout, state, handed = box
    aims = {name: tmp_path / f"aim-{name}" for name in ("result", "fresh")}
    for aim in aims.values():
        aim.write_text("root's file")
    (handed / slots.RESULT_NAME).symlink_to(aims["result"])
    (handed / (slots.RESULT_NAME + ".new")).symlink_to(aims["fresh"])
    (handed / RELEASE).write_bytes(b"not a release")
    [line] = spool.take_spooled(handed, state, layout=layout)
    assert [aim.read_text() for aim in aims.values()] == ["root's file", "root's file"]
    result = handed / slots.RESULT_NAME
    assert not result.is_symlink() and result.read_text() == line + "\n"
    assert not (handed / (slots.RESULT_NAME + ".new")).exists()
