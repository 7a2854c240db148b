"""Shared fixtures: gpiozero's MockFactory pattern, a simulated box, a virtual sensor, golden PNGs."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from companion.simulator.simbox import SimBox
from tests.sensor_process import SimProcess

GOLDEN = Path(__file__).parent / "golden"
FAILED = Path(__file__).parent / "_failed"


@pytest.fixture(autouse=True)
def mock_pins():
    """Set MockFactory as gpiozero's default, yield it, then reset it, so pins never leak."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    saved = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = saved


@pytest.fixture(autouse=True)
def no_spare_places(monkeypatch):
    """Journals opened by tests write no spare to the machine's own places (/boot, a USB
    stick, /dev/shm); the tests of the spare give their places."""
    from companion.journal import journal

    monkeypatch.setattr(journal, "default_places", lambda: [])


@pytest.fixture
def ram_place():
    """A spare place on a memory filesystem (another device than the tests' state dirs)."""
    from companion.journal.spare import Place

    if not os.path.isdir("/dev/shm"):
        pytest.skip("no /dev/shm here")
    where = Path(tempfile.mkdtemp(prefix="companion-test-", dir="/dev/shm"))
    yield Place(where, "USB stick")
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture
def box(tmp_path):
    """A simulated box on a virtual clock with its journal in a fresh directory."""
    sim = SimBox(tmp_path / "state")
    yield sim
    sim.close()


@pytest.fixture
def sensor_path(tmp_path):
    """Where the virtual sensor's pseudo-terminal is linked (the box's sensor port)."""
    return tmp_path / "dice-sensor"


@pytest.fixture
def sim(sensor_path):
    """A virtual dice sensor in another process, on a real pseudo-terminal at ``sensor_path``."""
    process = SimProcess(sensor_path)
    yield process
    process.close()


def assert_golden(image: Image.Image, name: str) -> None:
    """Compare a frame with tests/golden/NAME.png. UPDATE_GOLDEN=1 rewrites the file.

    A changed screen is a reviewed diff: on mismatch the new frame is saved under
    tests/_failed/ for a look.
    """
    path = GOLDEN / f"{name}.png"
    image = image.convert("1")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        image.save(path)
        return
    if not path.exists():
        pytest.fail(f"no golden picture {path.name}; run with UPDATE_GOLDEN=1 and review it")
    expected = Image.open(path).convert("1")
    if ImageChops.difference(expected, image).getbbox() is not None:
        FAILED.mkdir(exist_ok=True)
        image.save(FAILED / path.name)
        pytest.fail(f"screen {name} changed; new frame in tests/_failed/{path.name}")
