"""Three slots: an update is built in the one nothing points at, so a cut during the build
keeps the running and the kept version (issue 36: "A cut during the build leaves the running
and the kept version intact, and the next boot cleans up"). Real venvs and real pip, offline,
in a temporary prefix (tests/test_update.py's fixtures)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from companion.appliance import slots, update
from tests import test_update
from tests.test_update import installed

pytestmark = pytest.mark.slow

signer, releases, prefix, box = (test_update.signer, test_update.releases, test_update.prefix,
                                 test_update.box)
# The updater in a child process, killed by the test while pip builds the new slot; its box
# never starts (the kill comes first, and a start would stop the test with an exit).
CHILD = textwrap.dedent('''
    import sys
    from pathlib import Path
    from companion.appliance import signing, slots, update

    class NoBox:
        def stop(self):
            sys.exit("the build was not cut")
        start = stop

    prefix, state, release, keys = (Path(arg) for arg in sys.argv[1:])
    update.install(release, state, layout=slots.Layout(prefix), service=NoBox(),
                   python=sys._base_executable, system_site_packages=False,
                   keys=signing.trusted_keys(keys), build_user=None, say=print)
''')


def install(layout, state, service, release, signer) -> str:
    return update.install(release, state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=lambda line: None)


def both_versions_run(layout: slots.Layout, running: str, kept: str) -> bool:
    return (installed(layout, layout.running()), installed(layout, layout.kept() or "")) == (
        f"companion {running}", f"companion {kept}")


def test_a_build_killed_mid_pip_keeps_both_versions_and_the_next_boot_removes_it(
        box, releases, signer):
    layout, state, service = box
    assert install(layout, state, service, releases["0.1.1"], signer) == "0.1.1"
    service.stop()
    assert (layout.running(), layout.kept()) == ("b", "a")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(layout.prefix), str(state), str(releases["0.1.2"]),
         str(signer[0].parent)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    building = layout.slot("c") / "lib"
    while child.poll() is None and not list(building.glob("python3*/site-packages/cryptography")):
        time.sleep(0.05)  # pip is installing the lock's wheels into the free slot
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL, "the build ended before it could be cut"
    assert layout.slot("c").exists() and layout.version("c") is None  # half built
    cut = sorted(path.name for path in layout.prefix.glob("incoming-*"))
    assert len(cut) == 1
    assert both_versions_run(layout, "0.1.1", "0.1.0")
    said: list[str] = []
    assert update.boot_check(layout=layout, say=said.append)
    assert said == [f"removed {cut[0]}, left by an update cut off",
                    "removed slots/c, left by an update cut off"]
    assert not layout.slot("c").exists() and not list(layout.prefix.glob("incoming-*"))
    assert both_versions_run(layout, "0.1.1", "0.1.0")
    assert not update.boot_check(layout=layout, say=said.append)  # nothing more to remove


def test_rollback_and_forward_again_then_an_update_of_a_box_laid_out_before_the_kept_link(
        box, releases, signer):
    layout, state, service = box
    assert install(layout, state, service, releases["0.1.1"], signer) == "0.1.1"
    for running, kept in (("0.1.0", "0.1.1"), ("0.1.1", "0.1.0")):  # back, then forward
        assert update.rollback(layout=layout, service=service, say=lambda line: None,
                               state_dir=state) == running
        assert both_versions_run(layout, running, kept)
    assert (layout.running(), layout.kept(), layout.target("safe")) == ("b", "a", "b")
    # Laid out the old way: slots a and b, no kept link; the other slot with a version is kept.
    layout.unpoint("kept")
    assert layout.kept() == "a" and slots.Layout(layout.prefix).free() == "c"
    said: list[str] = []
    assert update.install(releases["0.1.1"], state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=said.append) == "0.1.1"
    assert said[2] == "installing 0.1.1 into slot c, beside 0.1.1 running and 0.1.0 kept"
    assert said[-1] == "updated: 0.1.1 runs, 0.1.1 is kept; companion-update --rollback goes back"
    # The version kept before is removed: two versions on the card again.
    assert (layout.running(), layout.kept()) == ("c", "b")
    assert sorted(path.name for path in (layout.prefix / "slots").iterdir()) == ["b", "c"]
    assert os.readlink(layout.prefix / "kept") == "slots/b"
    assert both_versions_run(layout, "0.1.1", "0.1.1")
