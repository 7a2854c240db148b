"""A box in its own process for the power-cut test: presses ACTION and prints ``ACK n`` each
time the screen has confirmed an action (after the journal committed it)."""

from __future__ import annotations

import sys

from companion.games.catalog import GAMES
from companion.simulator.simbox import SimBox
from tests.counter_game import SPEC


def main(state_dir: str) -> None:
    GAMES[SPEC.key] = SPEC
    box = SimBox(state_dir)
    if box.screen.name() == "ResumeScreen":
        box.press("OK")
    else:
        box.app.table.push(SPEC.screens.new_game(box.app.table))
        box.press("OK")
    while True:
        box.press("ACTION")
        print(f"ACK {box.app.play.session.state}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
