"""In the emulated box: the box pairs smart dice its own way and reads them through its own
Bluetooth transport (bleak → BlueZ → the kernel's HCI).

First it pairs the dice given as a player does on Settings → Dice: Find dice, then OK on each
die and its colour, the next once the last is read; one JSON line ``{"paired_s": ...}`` tells
the seconds from the search's start to every die paired and connected (``null`` and a
``problem`` when that fails). Then one
JSON line each time the box sees the dice come or go, and one for each settled set it takes,
with the milliseconds from the transport receiving the last notification to the box's state
holding the set. Runs until stopped.

    python ble_watch.py STATE_DIR PAIRING...   (each pairing 'MAKE ADDRESS KIND')
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import partial

from companion.box import dice
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps

PAIR_S = 240  # every die found and connected, under TCG
SEARCHES = 5  # Find dice again while a die is not listed


def until(box: SimBox, done: Callable[[], bool], deadline: float) -> bool:
    """Run the box's loop in real time until ``done`` or ``deadline`` (perf_counter)."""
    while not done():
        if time.perf_counter() > deadline:
            return False
        box.app.pump()
        time.sleep(0.01)
    return True


def read(box: SimBox, count: int) -> bool:
    """The box reads its ``count`` paired dice, every one connected."""
    return box.app.sensor.online and len(box.app.sensor.kinds) == count


def pair(box: SimBox, pairings: list[str]) -> tuple[float | None, str]:
    """The dice paired on Settings → Dice; the seconds it took, or None and why not."""
    began = time.perf_counter()
    deadline = began + PAIR_S
    box_dice = box.app.dice
    run_steps(box, ("menu:Settings", "menu:Dice", "menu:Find dice"))
    wanted = [line.split() for line in pairings]
    for searches in range(1, SEARCHES + 1):
        if not until(box, lambda: not box_dice.searching, deadline):
            return None, "the search did not end"
        found = [die.address.upper() for die in box_dice.found]
        if all(address.upper() in found for _, address, _ in wanted):
            break
        if searches == SEARCHES:
            return None, box_dice.problem or f"found only {found}"
        refused = box_dice.search()  # what OK on "No dice found" does, or Find dice again
        if refused:
            return None, refused
    box.app.pump()  # the list of the dice found on the screen
    for count, (_make, address, kind) in enumerate(wanted, 1):
        box.screen.selected = found.index(address.upper())
        box.press("OK")
        run_steps(box, (f"menu:{kind.capitalize()}",))
        # as a player sees the die paired and read before the next
        if not until(box, partial(read, box, count), deadline):
            return None, box.app.sensor.last_problem or f"die {count} did not connect"
    return time.perf_counter() - began, ""


def main() -> None:
    state_dir, pairings = sys.argv[1], sys.argv[2:]
    # Simulated buttons and screen; the dice go the box's own way (its BoxDice) over the real
    # radio: bleak and BlueZ, where the simulator would take its virtual dice.
    bluetooth = dice.radio(virtual=False)
    dice.radio = lambda virtual: bluetooth
    box = SimBox(state_dir)
    seconds, problem = pair(box, pairings)
    print(json.dumps({"paired_s": None if seconds is None else round(seconds, 1),
                      "problem": problem}), flush=True)
    link = box.app.dice.link
    if link is None:
        sys.exit("no die paired")
    heard = [0.0]
    notified = link.notified

    def timed(address: str, data: bytes) -> None:
        heard[0] = time.perf_counter()
        notified(address, data)

    link.notified = timed
    online, faces = None, box.app.sensor.faces
    while True:
        box.app.pump()
        sensor = box.app.sensor
        if sensor.faces is not faces:
            faces = sensor.faces
            print(json.dumps({"faces": list(faces),
                              "ms": round((time.perf_counter() - heard[0]) * 1000, 2)}), flush=True)
        if sensor.online != online:
            online = sensor.online
            print(json.dumps({"online": online, "problem": sensor.last_problem}), flush=True)
        time.sleep(0.002)


if __name__ == "__main__":
    main()
