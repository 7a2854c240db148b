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


def test_a_die_in_reach_advertises_again_once_its_connection_drops_and_a_vanished_one_not():
    """A controller stops advertising when a central connects; a die (and the emulated box's
    dice) advertise again once the connection drops, unless made to vanish."""
    import asyncio

    from bumble.link import LocalLink

    async def play() -> list[bool]:
        link = LocalLink()
        central = ble_dice.bumble_device("box", ble_dice.BOX_ADDRESS, link)
        await central.power_on()
        die = (await ble_dice.peripherals_on(link, ble_dice.AIR_DICE[:1]))[
            ble_dice.AIR_DICE[0].address]
        advertising = []
        for vanish in (False, True):
            connection = await asyncio.wait_for(central.connect(ble_dice.AIR_DICE[0].address), 10)
            await asyncio.sleep(0.1)
            advertising.append(die.device.is_advertising)  # connected: silent
            if vanish:
                await die.vanish()
            else:
                await connection.disconnect()
            await asyncio.sleep(0.2)
            advertising.append(die.device.is_advertising)
        await die.appear()
        advertising.append(die.device.is_advertising)
        return advertising

    assert asyncio.run(play()) == [False, True, False, False, True]


def test_the_emulated_box_radio_line_answers_hci_over_h4(tmp_path):
    """The host end of the emulated box's radio line (bench/ble_guest.py) is a controller
    speaking H4: it answers a Reset and gives the box's address, as btattach's kernel asks."""
    import socket

    import ble_guest

    path = tmp_path / "hci.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    radio = ble_guest.HostRadio(path)
    try:
        radio.start()  # connects: the listening socket's backlog takes it before accept
        line, _ = server.accept()
        line.settimeout(10)
        line.sendall(bytes([1, 0x03, 0x0C, 0]))  # HCI Reset
        assert line.recv(64) == bytes([4, 0x0E, 4, 1, 0x03, 0x0C, 0])  # its Command Complete, success
        line.sendall(bytes([1, 0x09, 0x10, 0]))  # Read BD_ADDR
        assert line.recv(64)[-6:] == bytes.fromhex(ble_guest.BOX_ADDRESS.replace(":", ""))[::-1]
    finally:
        radio.close()
        server.close()


def test_the_emulated_box_watch_pairs_the_box_own_way_on_the_real_radio(tmp_path):
    """image/test-agent/ble_watch.py, which the emulated box runs: the box's own Find dice
    with bleak's scanner; here no BlueZ answers, so the pairing says why it failed, not a
    crash."""
    import json
    import subprocess

    watch = Path(__file__).resolve().parent.parent / "image" / "test-agent" / "ble_watch.py"
    process = subprocess.Popen([sys.executable, str(watch), str(tmp_path / "state"),
                                "pixels F1:00:00:00:00:01 red"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
    finally:
        process.kill()
        errors = process.communicate()[1]
    told = json.loads(first)
    assert told["paired_s"] is None and "Bluetooth not running" in told["problem"], errors
    assert "Traceback" not in errors
