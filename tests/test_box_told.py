"""The box is told, nothing polls: the phone page's saved settings and the updater's news reach
the loop as the files land (inotify), with the virtual clock standing still."""

from __future__ import annotations

import io
import json
import os
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.appliance.slots import RESULT_NAME, SPOOL_NAME
from companion.records import roster, settings
from companion.records.settings import HANDED
from companion.simulator.simbox import SimBox
from companion.web.update import hand_over

RELEASE = "table-companion-0.3.0-aarch64.release"


@dataclass
class Upload:
    """A file as the page's form hands it over."""

    filename: str
    file: io.BytesIO


def told(box: SimBox, until: Callable[[], bool] | None = None, timeout: float = 10.0) -> None:
    """Wait for the watch's thread to post what landed (or, with ``until``, for that to hold),
    letting the loop take it, without moving the virtual clock."""
    ends = time.monotonic() + timeout
    while box.app.events.empty() if until is None else not until():
        assert time.monotonic() < ends, "the box was not told"
        time.sleep(0.01)
        if until is not None:
            box.app.pump()
    box.app.pump()


@pytest.fixture
def state(tmp_path) -> Path:
    state = tmp_path / "state"
    (state / SPOOL_NAME).mkdir(parents=True)  # systemd-tmpfiles makes it on the box
    (state / "hotspot").mkdir()  # and this one, for companion-hotspot.service
    return state


@pytest.fixture
def box(state):
    sim = SimBox(state)
    yield sim
    sim.close()


def inotify_instances() -> int:
    return sum(os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
               for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}"))


def test_nothing_is_due_on_an_idle_box_but_the_panel_dimming(box):
    assert box.app.next_deadline() == box.app.panel.idle_deadline()


def test_settings_saved_on_the_phone_are_used_as_soon_as_the_page_announces_them(box, state):
    with roster.connect(state) as conn:
        settings.save(conn, "volume", 1)
    assert box.app.settings.values["volume"] != 1
    assert settings.announce(state)
    told(box)
    assert box.app.settings.values["volume"] == 1 and box.app.hardware.buzzer.volume == 1


def release_file(path: Path, version: str) -> bytes:
    """A file that starts as a release does (its release.json first)."""
    manifest = json.dumps({"format": 2, "version": version}).encode()
    with tarfile.open(path, "w") as archive:
        member = tarfile.TarInfo("release.json")
        member.size = len(manifest)
        archive.addfile(member, io.BytesIO(manifest))
    return path.read_bytes()


def test_a_release_from_the_phone_waits_for_ok_on_the_box_then_goes_to_the_updater(
        box, state, tmp_path):
    """Issue 36: "an upload from the phone page only stages a verified release; it is installed
    after someone presses a button on the box (an "Install 0.3.0? OK / Back" screen)"."""
    said = hand_over(state, Upload(RELEASE, io.BytesIO(release_file(tmp_path / "r", "0.3.0"))))
    assert "press OK on the box to install it" in said
    told(box)
    assert box.screen.name() == "ConfirmScreen"
    assert box.screen.question == "Install 0.3.0? The box restarts; every game is kept."
    assert not (state / SPOOL_NAME / RELEASE).exists()  # nothing reaches the updater yet
    box.press("OK")
    assert (state / SPOOL_NAME / RELEASE).exists() and not (state / HANDED / RELEASE).exists()
    # The spool's news: the updater (root, its path unit) takes it from here.
    told(box, lambda: box.app.stack.toast_lines == ["Update received:", "installing it now"])


def test_back_on_the_box_leaves_a_release_out(box, state, tmp_path):
    hand_over(state, Upload(RELEASE, io.BytesIO(release_file(tmp_path / "r", "0.3.0"))))
    told(box)
    box.press("BACK")
    assert not (state / HANDED / RELEASE).exists() and not (state / SPOOL_NAME / RELEASE).exists()
    assert box.app.stack.toast_lines == ["Update not installed:", "0.3.0 left out"]


def test_a_file_that_is_not_a_release_is_refused_without_a_question(box, state):
    hand_over(state, Upload(RELEASE, io.BytesIO(b"x" * 1000)))
    told(box)
    assert box.screen.name() != "ConfirmScreen" and not (state / HANDED / RELEASE).exists()
    assert box.app.stack.toast_lines[0] == "Update refused:"
    assert box.beeps()[-1] == "error"


def test_a_refused_update_is_said_with_its_reason_and_an_error_beep(box, state):
    (state / SPOOL_NAME / RESULT_NAME).write_text(
        f"{RELEASE}: not installed: unsigned release\n")
    told(box)
    assert box.app.stack.toast_lines == ["Update not installed:", "unsigned release"]
    assert box.beeps()[-1] == "error"


def test_the_updaters_result_names_the_version_running(box, state):
    (state / SPOOL_NAME / RESULT_NAME).write_text(f"{RELEASE}: running 0.3.0\n")
    told(box)
    assert box.app.stack.toast_lines == ["Update finished:", "running 0.3.0"]


def test_a_partial_upload_and_other_files_say_nothing(box, state):
    (state / SPOOL_NAME / (RELEASE + ".partial")).write_bytes(b"x")
    (state / settings.HANDED / "notes.txt").write_text("hello")
    settings.announce(state)  # a file the box does watch, landing after the others
    told(box)
    assert box.app.stack.toast_lines is None


def test_a_box_makes_the_folders_it_watches_when_they_are_missing(tmp_path):
    """A card flashed before they existed: the box makes them in its state directory."""
    box = SimBox(tmp_path / "state")
    try:
        box.app.watch.stop()
        assert box.app.watch.start() == [tmp_path / "state" / HANDED,
                                         tmp_path / "state" / SPOOL_NAME]
    finally:
        box.close()


def test_every_box_of_a_process_shares_one_inotify_instance(state, tmp_path):
    """The kernel allows a user 128 instances; the tests run hundreds of boxes."""
    boxes = [SimBox(state)]
    before = inotify_instances()
    boxes += [SimBox(tmp_path / f"other-{n}") for n in range(3)]
    try:
        assert inotify_instances() == before == 1
        settings.announce(state)
        told(boxes[0])
    finally:
        for box in boxes:
            box.close()


def test_the_box_own_wifi_network_is_told_on_the_panel_and_in_about(box, state):
    """Issue 37: "the OLED shows the hotspot's name and passphrase and the address": told
    once as companion-hotspot.service writes it (no polling), and in About with its QR code."""
    from companion.appliance.durable import write_durably
    from companion.appliance.hotspot_state import Mode, State
    from companion.screens.system import AboutScreen

    opened = State(Mode.OPEN, "Companion-9C1E", "abcdefghjk")
    write_durably(state / "hotspot" / "hotspot.json", opened.as_text().encode())  # as the service
    told(box)
    assert box.app.stack.toast_lines == ["Wi-Fi Companion-9C1E", "key abcdefghjk"]
    about = AboutScreen(box.app.table)
    assert about.address == "http://10.42.0.1/wifi"
    lines = about.lines()
    assert lines[lines.index("Wi-Fi: box's own"):][:4] == [
        "Wi-Fi: box's own", " Companion-9C1E", " key abcdefghjk", " http://10.42.0.1/wifi"]
    write_durably(state / "hotspot" / "hotspot.json", State(Mode.JOINED, network="Home").as_text().encode())
    told(box)
    assert box.app.stack.toast_lines == ["Wi-Fi joined:", "Home"]
