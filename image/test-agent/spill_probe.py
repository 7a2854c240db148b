"""In the emulated box: a box plays on a journal in STATE_DIR (on the data partition) while
the data partition fails; where its held play went, as one JSON line.

Prints ``{"ready": true}`` once the first action is on the disk, then waits (at most
WAIT_S) for the partition to refuse writes (the caller forces an ext4 error), plays on,
and prints the journal's status and the About screen's lines.

    python spill_probe.py STATE_DIR
"""

from __future__ import annotations

import json
import os
import sys
import time

from companion.screens.system import AboutScreen
from companion.simulator.simbox import SimBox

WAIT_S = 300


def writable(path: str) -> bool:
    """Whether a file can still be written there (a failed ext4 refuses with EROFS)."""
    try:
        with open(path, "w") as probe:
            probe.write("1")
        return True
    except OSError:
        return False


def main() -> int:
    state_dir = sys.argv[1]
    box = SimBox(state_dir)
    journal = box.app.play.journal
    game = journal.new_game("tally")
    journal.append(game, {"type": "add", "n": 1}, undoable=True)
    print(json.dumps({"ready": True}), flush=True)
    deadline = time.monotonic() + WAIT_S
    while writable(os.path.join(state_dir, "probe-write")):
        if time.monotonic() > deadline:
            print(json.dumps({"error": "the data partition never turned read-only"}), flush=True)
            return 1
        time.sleep(0.5)
    for n in (2, 3):
        journal.append(game, {"type": "add", "n": n}, undoable=True)
    status = journal.status
    print(json.dumps({"ok": status.ok, "held": status.held, "kept_on": status.kept_on,
                      "kept_in": status.kept_in,
                      "about": AboutScreen(box.app.table).lines()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
