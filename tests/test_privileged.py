"""Root never runs a release's code: the updater and the first boot run from the copy that
install.sh puts on the root filesystem, with the system's Python in isolated mode.

The copy is staged by the real installer (``install.sh --root``) and run by this machine's
``/usr/bin/python3`` (Debian's, with python3-cryptography, as on the box)."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import privileged, slots

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from release_attacks import payload

REPO = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = Path("/usr/bin/python3")
UNITS = {"companion-update.service": "update --spool /var/lib/companion/update-spool",
         "companion-update-check.service": "update --boot-check",
         "companion-firstboot.service": "firstboot /boot/firmware/companion.txt"}


def system_python_missing() -> str | None:
    if not SYSTEM_PYTHON.exists():
        return "no /usr/bin/python3"
    found = subprocess.run([str(SYSTEM_PYTHON), "-I", "-c", "import sys, cryptography; "
                            "print(sys.version_info >= (3, 11))"], capture_output=True, text=True)
    if found.stdout.strip() != "True":
        return "/usr/bin/python3 is older than 3.11 or lacks python3-cryptography"
    return None


needs_system_python = pytest.mark.skipif(system_python_missing() is not None,
                                         reason=system_python_missing() or "")


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    """The copy as install.sh --root leaves it in a staging root."""
    root = tmp_path_factory.mktemp("root")
    result = subprocess.run(["bash", str(REPO / "systemd/install.sh"), "--root", str(root),
                             "--no-i2c", "--appliance"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return root / str(privileged.COPY).lstrip("/")


def test_every_unit_that_runs_as_root_runs_the_copy_isolated():
    for unit, command in UNITS.items():
        text = (REPO / "systemd" / unit).read_text()
        assert "User=" not in text, unit  # root: what it runs must not come from a release
        assert re.findall(r"(?m)^ExecStart=(.*)$", text) == [
            f"{SYSTEM_PYTHON} -I {privileged.COPY} {command}"], unit
    wrapper = (REPO / "systemd/companion-update").read_text()
    assert f'exec {SYSTEM_PYTHON} -I {privileged.COPY} update "$@"' in wrapper


def test_a_release_left_in_the_spool_waits_for_the_boots_check():
    """After a power cut amid an update the spool still holds its release, which
    companion-update.path starts again at boot: the boot's check must have finished first, or
    one of the two finds the update lock held and the release is dropped."""
    unit = (REPO / "systemd/companion-update-check.service").read_text()
    before = {name for line in unit.splitlines() if line.startswith("Before=")
              for name in line.removeprefix("Before=").split()}
    assert {"companion.service", "companion-update.service"} <= before


@needs_system_python
def test_the_copy_holds_every_module_root_imports_and_no_other(copy):
    """A module the updater (its spool, a plugin's install too) or the first boot comes to
    import must be in MODULES (else the box could not update at all); one they no longer
    import is not copied."""
    imported = subprocess.run(
        [str(SYSTEM_PYTHON), "-I", "-c", "import sys; sys.path[:0] = [sys.argv[1]]; "
         "import companion.appliance.spool, companion.appliance.firstboot, "
         "companion.appliance.plugin_install; "
         "print('\\n'.join(m.__file__ for m in list(sys.modules.values()) "
         "if m.__name__.split('.')[0] == 'companion'))", str(copy)],
        capture_output=True, text=True, check=True).stdout.split()
    assert sorted(str(Path(path).relative_to(copy)) for path in imported) == sorted(
        privileged.MODULES)
    for module in privileged.MODULES:
        assert (copy / module).read_bytes() == (REPO / module).read_bytes(), module
    assert (copy / "__main__.py").read_bytes() == (
        REPO / "companion/appliance/privileged.py").read_bytes()


def slot_with_payload(layout: slots.Layout, name: str, version: str, marks: Path) -> Path:
    """A slot whose site-packages hold a .pth file, as a hostile wheel would install one."""
    slot = layout.slot(name)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(slot)], check=True)
    site = next(slot.glob("lib/python3*/site-packages"))
    (site / "zz_payload.pth").write_bytes(payload(str(marks)))
    (slot / "release.json").write_text(json.dumps({"version": version}))
    return site


@needs_system_python
def test_going_back_at_boot_runs_nothing_from_either_slot(copy, tmp_path):
    """The boot's check runs while a release's slot is linked as the box's venv; in its
    folder, with its site-packages named in PYTHONPATH, still nothing of it runs as root."""
    layout = slots.Layout(tmp_path / "opt")
    marks, state = tmp_path / "marks", tmp_path / "state"
    state.mkdir()
    slot_with_payload(layout, "a", "0.1.0", marks)
    site = slot_with_payload(layout, "b", "0.2.0", marks)
    subprocess.run([str(layout.slot("b") / "bin/python"), "-c", "pass"], check=True)
    assert len(list(marks.iterdir())) == 1  # the payload runs in any start of the slot's Python
    shutil.rmtree(marks)
    layout.point("b")
    layout.point("a", "safe")
    slots.write_json(layout.trial, {"from": "a", "to": "b", "version": "0.2.0",
                                    "phase": "trial", "state_dir": str(state)})
    result = subprocess.run(
        [str(SYSTEM_PYTHON), "-I", str(copy), "update", "--boot-check", "--prefix",
         str(layout.prefix)], cwd=site, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(site), "PYTHONSTARTUP": str(site / "zz_payload.pth")})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "rolled back to 0.1.0: 0.2.0 was cut off before it reported READY\n"
    assert layout.running() == "a" and not layout.trial.exists()
    assert not marks.exists()


@needs_system_python
def test_the_copy_says_what_it_needs_and_refuses_an_unsigned_file(copy, tmp_path):
    run = [str(SYSTEM_PYTHON), "-I", str(copy), "update"]
    nothing = subprocess.run(run, capture_output=True, text=True)
    assert (nothing.returncode, nothing.stderr) == (
        2, "companion update: name a release file, or --rollback (see --help)\n")
    layout = slots.Layout(tmp_path / "opt")
    layout.slot("a").mkdir(parents=True)
    layout.point("a")
    odd = tmp_path / "notes.release"
    odd.write_text("hello")
    refused = subprocess.run([*run, str(odd), "--prefix", str(layout.prefix), "--state-dir",
                              str(tmp_path / "state"), "--keys", str(tmp_path)],
                             capture_output=True, text=True)
    assert refused.returncode == 1
    assert refused.stderr.startswith("companion update: notes.release") and \
        "is not a release file" in refused.stderr


@needs_system_python
def test_the_copy_says_each_step_as_it_comes_through_a_pipe(copy, tmp_path):
    """Under systemd the updater's output is a pipe to the journal: its first message must
    arrive while it still waits to read the file (a FIFO nobody writes yet), not at its end."""
    layout = slots.Layout(tmp_path / "opt")
    layout.slot("a").mkdir(parents=True)
    layout.point("a")
    handed = tmp_path / "slow.release"
    os.mkfifo(handed)
    updater = subprocess.Popen(
        [str(SYSTEM_PYTHON), "-I", str(copy), "update", str(handed), "--prefix",
         str(layout.prefix), "--state-dir", str(tmp_path / "state"), "--keys", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert updater.stdout is not None
    ready, _, _ = select.select([updater.stdout], [], [], 120)  # a bound, not a measure
    first = updater.stdout.readline() if ready else ""
    handed.write_bytes(b"hello")  # lets the updater read on, and refuse it
    assert first == "checking slow.release\n"
    assert updater.wait(timeout=120) == 1
