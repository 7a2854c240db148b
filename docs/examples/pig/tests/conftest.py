"""Pig's tests run on the box's simulator (its own gpiozero MockFactory pins, luma's dummy
display, a virtual clock) with every installed game registered, as the box registers them."""

from __future__ import annotations

import pytest

from companion.games.catalog import GAMES, discover
from companion.simulator.simbox import SimBox


@pytest.fixture(autouse=True)
def games():
    """The games as the box finds them: every ``table_companion.games`` entry point, Pig's too
    (the project's own tests may have kept only the project's games)."""
    saved = dict(GAMES)
    GAMES.clear()
    GAMES.update(discover())
    yield GAMES
    GAMES.clear()
    GAMES.update(saved)


@pytest.fixture
def box(tmp_path):
    """A simulated box with its journal in a fresh state directory."""
    sim = SimBox(tmp_path / "state")
    yield sim
    sim.close()
