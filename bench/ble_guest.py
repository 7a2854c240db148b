"""Smart dice through the box's real radio path, in the emulated box (bench/appliance.py's
``ble`` check).

The guest's second USB-serial line ends on the host in a bumble controller speaking H4; in the
guest, ``btattach -P h4`` hands that line to the kernel's ``hci_uart``, BlueZ's bluetoothd
takes the adapter, and the box (image/test-agent/ble_watch.py: the box's own Settings → Dice
and transport, bleak over BlueZ's D-Bus) pairs the dice and reads them. On the host, that
controller shares a bumble link with the peripherals of bench/ble_dice.py (two Pixels, two
GoDice, each advertising and serving GATT as its make does). Rolls are thrown with fuzzed
notifications between them, the dice lie still under a burst of nonsense, and dice vanish and
come back. BlueZ's state folder is on the data partition: it must have kept what it learnt of
each die there, and logged no error writing it.
"""

from __future__ import annotations

import asyncio
import json
import queue
import random
import shlex
import threading
import time
from pathlib import Path
from typing import Any

from ble_dice import AIR_DICE, BOX_ADDRESS, BumbleDie, percentile, peripherals_on, send_nonsense, send_roll

WATCH_PID = "/run/companion-ble-watch.pid"
WATCH_ERRORS = "/run/companion-ble-watch.err"
ATTACH_S = 120  # btattach, bluetoothd and the adapter powered, under TCG
CONNECT_S = 300  # four dice found and connected by BlueZ under TCG
PAIR_S = 300  # the box's search and pairing of the four, under TCG (the watch gives up at 240)
PAIR_AIM_S = 60.0  # "pairs them on the box in under a minute" (issue 41)
SETTLE_S = 30  # a settled roll's way to the box's state, at most
# A throw's dice tumble for a second at least. Each die has its own connection, and under
# emulation one die's "rolling" can reach the box after the others' rest when all come at once:
# the box would then take that die's last face as part of a set no table can make.
TUMBLE_S = 1.0


class HostRadio:
    """The host's half: the box's controller (H4 over QEMU's chardev socket ``hci_socket``)
    and the dice's peripherals on one bumble link, on an asyncio loop of their own."""

    def __init__(self, hci_socket: Path) -> None:
        self.hci_socket = hci_socket
        self.loop = asyncio.new_event_loop()
        self.dice: list[BumbleDie] = []
        self.transport: Any = None
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    async def _start(self) -> None:
        from bumble import hci
        from bumble.controller import Controller
        from bumble.link import LocalLink
        from bumble.transport import open_transport

        class BoxController(Controller):
            """bumble's link names a connection's data by the sender's random address of the
            moment, and BlueZ takes a new one for each active scan: the box's controller
            keeps its public address there, the one its connections are made with."""

            def on_hci_le_set_random_address_command(self, _command: Any) -> Any:
                return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.reported: set[Any] = set()  # the advertisers reported since the scan began

            def on_hci_le_set_scan_enable_command(self, command: Any) -> Any:
                self.reported = set()
                return super().on_hci_le_set_scan_enable_command(command)

            def on_advertising_pdu(self, pdu: Any) -> None:
                """bumble reports every advertisement even when the host asked for duplicates
                filtered, as the kernel does: two reports per die every few milliseconds,
                which bluetoothd and the box, under TCG, took seconds to work through (a search
                then ended late, across the kernel's own end of the scan, and BlueZ's discovery
                stayed wedged). A controller reports each advertiser once per scan."""
                scanning = self.le_scan_enable
                if scanning and self.filter_duplicates:
                    if pdu.advertiser_address in self.reported:
                        self.le_scan_enable = False  # no report, but a pending connection goes on
                    self.reported.add(pdu.advertiser_address)
                try:
                    super().on_advertising_pdu(pdu)
                finally:
                    self.le_scan_enable = scanning

            def on_hci_le_create_connection_cancel_command(self, _command: Any) -> Any:
                """bumble answers a cancel but keeps the attempt pending: every later one is
                refused and BlueZ waits for an end that never comes. A controller ends it
                with a connection complete event saying so, after the command's answer."""
                pending = self.pending_le_connection
                if pending is None:
                    return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
                self.pending_le_connection = None
                ended = hci.HCI_LE_Connection_Complete_Event(
                    status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR,
                    connection_handle=0, role=hci.Role.CENTRAL,
                    peer_address_type=pending.peer_address.address_type,
                    peer_address=pending.peer_address, connection_interval=0,
                    peripheral_latency=0, supervision_timeout=0, central_clock_accuracy=0)
                asyncio.get_running_loop().call_soon(self.send_hci_packet, ended)
                return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

        link = LocalLink()
        self.transport = await open_transport(f"unix:{self.hci_socket}")
        box = BoxController("box", host_source=self.transport.source,
                            host_sink=self.transport.sink, link=link, public_address=BOX_ADDRESS)
        box.random_address = box.public_address
        peripherals = await peripherals_on(link, AIR_DICE)
        self.dice = [peripherals[die.address] for die in AIR_DICE]

    def run(self, coroutine: Any, timeout: float = 30.0) -> Any:
        """Run ``coroutine`` on the radio's loop from another thread."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def start(self) -> None:
        self.run(self._start())

    def close(self) -> None:
        if self.transport is not None:
            self.run(self.transport.close())
        self.loop.call_soon_threadsafe(self.loop.stop)


def plug_radio_line(guest: Any, hci_socket: Path) -> None:
    """A second USB-serial line plugged into the running guest (serial number ``radio``), its
    host end QEMU's socket ``hci_socket``, which the host's controller connects to."""
    guest.qmp("chardev-add", id="radio", backend={
        "type": "socket", "data": {"addr": {"type": "unix", "data": {"path": str(hci_socket)}},
                                   "server": True, "wait": False}})


def attach(guest: Any) -> str:
    """The guest's Bluetooth up on the radio line: hci_uart, btattach, bluetoothd; '' or what
    went wrong."""
    reply = guest.qmp("device_add", driver="usb-serial", id="radio", chardev="radio",
                      bus="xhci.0", serial="radio")
    tty = ""
    deadline = time.monotonic() + ATTACH_S
    while not tty and time.monotonic() < deadline:
        rc, tty, err = guest.sh("modprobe hci_uart && readlink -e /dev/serial/by-id/*_radio-if00-port0")
        tty = tty.strip() if rc == 0 else ""
        time.sleep(1)
    if not tty:
        return f"no radio line: {reply} {err.strip()}"
    rc, _, err = guest.sh(f"setsid btattach -B {shlex.quote(tty)} -P h4 "
                          "> /run/btattach.log 2>&1 < /dev/null & "
                          "systemctl start bluetooth.service")
    if rc != 0:
        return f"bluetoothd did not start: {err.strip()}"
    deadline = time.monotonic() + ATTACH_S
    while time.monotonic() < deadline:
        _, out, _ = guest.sh("bluetoothctl power on", timeout=60)
        if "succeeded" in out:
            return ""
        time.sleep(2)
    return "adapter not powered: " + guest.sh("cat /run/btattach.log; bluetoothctl list")[1][-400:]


def ble_check(guest: Any, hci_socket: Path, python: str, lib: str, state: str, rolls: int,
              reconnects: int, seed: int, malformed_per_roll: int = 3) -> dict[str, Any]:
    """The figures ``ble_*`` of bench/appliance.py (see its docstring)."""
    figures: dict[str, Any] = {"ble_pair_s": None, "ble_state_writable": False,
                               "ble_dice_connected": 0, "ble_rolls": 0, "ble_rolls_read": 0,
                               "ble_roll_to_state_ms_p99": None, "ble_reconnects": 0,
                               "ble_reconnected": 0, "ble_reconnect_s_max": None,
                               "ble_malformed_sent": 0, "ble_false_faces": 0}
    plug_radio_line(guest, hci_socket)
    radio = HostRadio(hci_socket)
    radio.start()
    try:
        problem = attach(guest)
        if problem:
            figures["ble_problem"] = problem
            return figures
        pairings = " ".join(shlex.quote(f"{die.make} {die.address} {die.kind}") for die in AIR_DICE)
        lines = guest.stream(f"echo $$ > {WATCH_PID}; exec runuser -u companion -g companion -G bluetooth -- "
                             f"{python} {lib}/ble_watch.py {state}/ble-watch {pairings} "
                             f"2> {WATCH_ERRORS}",
                             timeout=CONNECT_S)
        seen: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=lambda: [seen.put(json.loads(line)) for line in lines],
                         daemon=True).start()
        try:
            read_dice(radio, seen, figures, rolls, reconnects, random.Random(seed), malformed_per_roll)
            said = state_writable(guest)
            figures["ble_state_writable"] = not said
            if said:
                figures["ble_state_problem"] = said
            if not figures["ble_dice_connected"]:  # what the box, BlueZ and the line said
                figures["ble_problem"] = guest.sh(
                    "journalctl -u bluetooth --no-pager | grep -v -e cached_name -e store_device "
                    f"| tail -4; tail -3 /run/btattach.log; bluetoothctl devices Connected; "
                    f"tail -5 {WATCH_ERRORS}")[1][-1200:]
        finally:
            guest.sh(f"kill $(cat {WATCH_PID})")
        return figures
    finally:
        radio.close()


def state_writable(guest: Any) -> str:
    """"" when BlueZ kept what it learnt of the dice in /var/lib/bluetooth (a folder a die in
    the adapter's) and logged no error there; else what the mount, the folder and bluetoothd's
    log say."""
    errors = ("journalctl -u bluetooth -o cat --no-pager | grep /var/lib/bluetooth "
              "| grep -i -e unable -e fail -e error -e read-only")
    folders = " ".join(f"/var/lib/bluetooth/{BOX_ADDRESS}/{die.address}" for die in AIR_DICE)
    rc, _, _ = guest.sh(f"ls -d {folders} 2> /dev/null | grep -q . && ! {errors} -q")
    if rc == 0:
        return ""
    return guest.sh(f"findmnt /var/lib/bluetooth; ls -R /var/lib/bluetooth | head -20; {errors} "
                    "| sort | uniq -c | head -5")[1][-1200:]


def read_dice(radio: HostRadio, seen: queue.Queue[dict[str, Any]], figures: dict[str, Any],
              rolls: int, reconnects: int, rng: random.Random, malformed_per_roll: int) -> None:
    def next_line(key: str, seconds: float) -> dict[str, Any] | None:
        """The box's next line telling ``key``; lines of the other key are counted as they go."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = seen.get(timeout=left)
            except queue.Empty:
                return None
            if key in line:
                return line
            if "faces" in line:  # a set nobody threw
                figures["ble_false_faces"] += 1
        return None

    def online(value: bool, seconds: float) -> bool:
        while (line := next_line("online", seconds)) is not None:
            if line["online"] is value:
                return True
        return False

    latencies: list[float] = []

    def throw() -> None:
        names, _sent = send_roll(radio.run, radio.dice, AIR_DICE, rng, malformed_per_roll, figures,
                                 TUMBLE_S)
        line = next_line("faces", SETTLE_S)
        if line is not None and tuple(line["faces"]) == names:
            figures["ble_rolls_read"] += 1
            latencies.append(line["ms"])
        elif line is not None:
            figures["ble_false_faces"] += 1

    paired = next_line("paired_s", PAIR_S)
    if paired is not None:
        figures["ble_pair_s"] = paired["paired_s"]
        if paired["problem"]:
            figures["ble_problem"] = paired["problem"]
    if not online(True, CONNECT_S):
        return
    figures["ble_dice_connected"] = len(AIR_DICE)
    for _ in range(rolls):
        throw()
    send_nonsense(radio.run, radio.dice, rng, 10 * malformed_per_roll, figures)  # dice lying still
    next_line("quiet", 5)  # nothing but a set would show, and none may come of nonsense
    waits = []
    for n in range(reconnects):
        die = radio.dice[n % len(radio.dice)]
        radio.run(die.vanish())
        figures["ble_reconnects"] += 1
        if not online(False, 60):
            continue
        began = time.monotonic()
        radio.run(die.appear())
        if online(True, CONNECT_S):
            figures["ble_reconnected"] += 1
            waits.append(time.monotonic() - began)
            throw()  # and it reads again
    figures["ble_roll_to_state_ms_p99"] = round(percentile(latencies, 99), 2) if latencies else None
    figures["ble_reconnect_s_max"] = round(max(waits), 1) if waits else None
