"""The one reader of requirements.lock and the one builder of a slot (companion.appliance
.lockfile and .slotbuild), which systemd/install.sh and image/build.sh run with the system's
python3 from the source tree, before any venv exists, and companion update imports."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import lockfile, slotbuild
from companion.appliance.release import sha256
from tests.wheel_files import make_wheel

REPO = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = getattr(sys, "_base_executable", sys.executable)


def from_source(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """As install.sh runs it: the system's Python, no site-packages (-S: nothing third-party
    importable), the source tree on the path."""
    return subprocess.run([SYSTEM_PYTHON, "-S", "-m", f"companion.appliance.{module}", *args],
                          capture_output=True, text=True, cwd="/",
                          env={"PATH": os.environ["PATH"], "PYTHONPATH": str(REPO)})


def test_the_lock_reads_every_pin_with_its_machine_and_hashes():
    pins = {pin.name: pin for pin in lockfile.read_lock(REPO / lockfile.LOCK_NAME)}
    assert pins["lgpio"].machine == "aarch64" and pins["pyserial"].machine is None
    assert all(len(digest) == 64 for pin in pins.values() for digest in pin.hashes)
    assert lockfile.version_of(REPO / lockfile.LOCK_NAME, "lgpio") == pins["lgpio"].version


def test_a_slots_lock_leaves_out_what_is_built_from_source_and_keeps_every_hash(tmp_path):
    lock = REPO / lockfile.LOCK_NAME
    result = from_source("lockfile", "for-slot", str(lock), str(tmp_path / "slot.lock"))
    assert result.returncode == 0, result.stderr
    kept = lockfile.read_lock(tmp_path / "slot.lock")
    assert [pin.name for pin in kept] == [pin.name for pin in lockfile.read_lock(lock)
                                          if pin.name != "lgpio"]
    assert kept == [pin for pin in lockfile.read_lock(lock) if pin.name != "lgpio"]


def test_a_pins_version_is_printed_for_the_shell_and_a_damaged_lock_named(tmp_path):
    result = from_source("lockfile", "version", str(REPO / lockfile.LOCK_NAME), "lgpio")
    assert result.returncode == 0 and result.stdout.strip() == lockfile.version_of(
        REPO / lockfile.LOCK_NAME, "lgpio")
    damaged = tmp_path / "requirements.lock"
    damaged.write_text("pyserial==3.5\n")
    result = from_source("lockfile", "version", str(damaged), "pyserial")
    assert result.returncode == 1
    assert result.stderr == ("lockfile: requirements.lock line 1: expected NAME==VERSION "
                             "--hash=sha256:…\n")
    result = from_source("lockfile", "version", str(REPO / lockfile.LOCK_NAME), "numpy")
    assert (result.returncode, result.stderr) == (1, "lockfile: requirements.lock pins no numpy\n")


def test_the_slot_builder_runs_without_any_third_party_package():
    result = from_source("slotbuild", "--help")
    assert result.returncode == 0 and "--wheels" in result.stdout, result.stderr


@pytest.fixture
def wheels(tmp_path):
    """A program wheel (table-companion) and one locked dependency, and their lock."""
    folder = tmp_path / "wheels"
    dependency = make_wheel(folder, "tinydep", "1.0", {"tinydep.py": "VALUE = 7\n"})
    make_wheel(folder, "table-companion", "9.9.9", {"tinyprog.py": "import tinydep\n"},
               requires=("tinydep",))
    lock = tmp_path / "requirements.lock"
    lockfile.write_lock(lock, [
        lockfile.Pin("tinydep", "1.0", None, (sha256(dependency),)),
        lockfile.Pin("lgpio", "0.2.2.0", "aarch64", ("0" * 64,)),
    ])
    return folder, lock


@pytest.mark.slow
def test_a_slot_is_built_offline_from_hash_checked_wheels_and_keeps_its_lock(wheels, tmp_path):
    folder, lock = wheels
    slot = tmp_path / "slots" / "a"
    result = from_source("slotbuild", str(slot), "--lock", str(lock), "--wheels", str(folder),
                         "--python", SYSTEM_PYTHON)
    assert result.returncode == 0, result.stderr
    ran = subprocess.run([str(slot / "bin" / "python"), "-c", "import tinyprog, tinydep; "
                          "print(tinydep.VALUE)"], capture_output=True, text=True, check=True)
    assert ran.stdout == "7\n"
    assert [pin.name for pin in lockfile.read_lock(slot / lockfile.LOCK_NAME)] == ["tinydep"]


@pytest.mark.slow
def test_a_wheel_whose_hash_is_not_the_locked_one_is_not_installed(wheels, tmp_path):
    folder, lock = wheels
    make_wheel(folder, "tinydep", "1.0", {"tinydep.py": "import os; os.system('touch /x')\n"})
    slot = tmp_path / "slots" / "a"
    with pytest.raises(subprocess.CalledProcessError):
        slotbuild.build_slot(slot, folder, lock, SYSTEM_PYTHON, system_site_packages=False)
    assert not list(slot.glob("lib/python*/site-packages/tinydep.py"))
