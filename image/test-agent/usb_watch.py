"""In the emulated box: a Café round runs with the dice sensor on the emulated USB-serial;
one JSON line each time the box sees the sensor come or go, until stopped.

    python usb_watch.py STATE_DIR [PORT]
"""

from __future__ import annotations

import json
import sys
import time

from companion.games import box_config
from companion.simulator.simbox import SimBox
from companion.simulator.walk import run_steps


def main() -> None:
    state_dir, port = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "/dev/ttyUSB0"
    box = SimBox(state_dir, cfg=box_config.parse({"sensor": {"port": port}}))
    run_steps(box, ("game:cafe", "menu:Start"))
    for _ in range(6):  # through whatever the setup still asks, to the running round
        if box.app.play.session.state.phase == "running":
            break
        box.press("OK")
    sensor, online = box.app.sensor, None
    while True:
        box.advance(0.1, step=0.1)  # the round's clock goes on
        if sensor.online != online:
            online = sensor.online
            print(json.dumps({"online": online, "phase": box.app.play.session.state.phase,
                              "at": time.monotonic()}), flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
