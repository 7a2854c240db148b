"""In the emulated box: the box with paired smart dice read through its own Bluetooth transport
(bleak → BlueZ → the kernel's HCI); one JSON line each time the box sees the dice come or go,
and one for each settled set it takes, with the milliseconds from the transport receiving the
last notification to the box's state holding the set. Runs until stopped.

    python ble_watch.py STATE_DIR PAIRING...   (each pairing 'MAKE ADDRESS KIND')
"""

from __future__ import annotations

import json
import sys
import time

from companion.box import dice
from companion.games import box_config
from companion.simulator.simbox import SimBox


def main() -> None:
    state_dir, pairings = sys.argv[1], sys.argv[2:]
    # Simulated buttons and screen; the dice go the box's own way (its BoxDice) over the real
    # radio: bleak and BlueZ, where the simulator would take its virtual dice.
    bluetooth = dice.radio(virtual=False)
    dice.radio = lambda virtual: bluetooth
    box = SimBox(state_dir, box_config.parse({"dice": {"smart": pairings}}))
    link = box.app.dice.link
    if link is None:
        sys.exit("the box started no dice link for the pairings given")
    heard = [0.0]
    notified = link.notified

    def timed(index: int, data: bytes) -> None:
        heard[0] = time.perf_counter()
        notified(index, data)

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
