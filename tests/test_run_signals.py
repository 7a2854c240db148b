"""The box stops on SIGTERM wherever the signal lands in its loop."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

# The box's own queue and handler; a signal every 0.2 ms while the loop waits on the queue
# with short timeouts, as it does between deadlines, so many land inside a get.
HAMMER = textwrap.dedent("""
    import queue, signal, sys, time
    from companion.games import box_config
    from companion.box.boot import build_app
    from companion.commands.run import stop_on_signals

    app = build_app(box_config.parse({}), sim=True, journal=False, virtual_clock=True)
    stop_on_signals(app, (signal.SIGALRM,))
    signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
    ends = time.monotonic() + 1.0
    got = 0
    while time.monotonic() < ends:
        try:
            got += type(app.events.get(timeout=0.0001)).__name__ == "Stop"
        except queue.Empty:
            pass
    signal.setitimer(signal.ITIMER_REAL, 0)
    while True:
        try:
            got += type(app.events.get_nowait()).__name__ == "Stop"
        except queue.Empty:
            break
    print(got)
""")


def test_a_stop_signal_landing_inside_the_loops_queue_wait_does_not_hang_the_box():
    """A handler that takes a lock the interrupted loop already holds never returns; the box
    would then ignore SIGTERM until systemd kills it with the journal open."""
    done = subprocess.run([sys.executable, "-c", HAMMER], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 100  # the signals came, and each one's Stop reached the queue
