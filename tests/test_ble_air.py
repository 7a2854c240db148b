"""The box's Bluetooth transport over an emulated radio (bumble's LocalLink, no BlueZ): two
Pixels and two GoDice peripherals found, connected and read; fuzzed notifications refused;
a die that vanishes and comes back connected again by itself (bench/ble_dice.py's air part)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import ble_dice  # noqa: E402  (bench/ is no package)


def test_dice_over_the_air_are_read_refuse_nonsense_and_come_back():
    figures = ble_dice.bench_air(rolls=5, reconnects=2, malformed_per_roll=2)
    assert figures["ble_dice_connected"] == 4
    assert figures["ble_rolls_read"] == figures["ble_rolls"] == 7  # 5, and one after each return
    assert figures["ble_malformed_sent"] > 0 and figures["ble_false_faces"] == 0
    assert figures["ble_reconnected"] == figures["ble_reconnects"] == 2
