"""Phone page benchmark: `companion web` in its own process over a journal holding the three
example games, with three pages watching the Live stream while a simulated box plays a Makan
game into the same journal. Prints JSON:

- ``rss_mb``: the web process's resident memory after serving every page and the whole game
  (``VmRSS``), and ``peak_rss_mb`` (``VmHWM``); target < 40;
- ``live_ms_p50`` / ``live_ms_max``: from the box's commit of an action to its event reaching
  each of the three streams; target < 300;
- ``box_press_to_frame_ms_p99`` alone and while three pages watch (the roster changing every
  100 ms, so every page gets a new Live part ten times a second): the box's own responsiveness
  (its loop on the real clock, presses on the mock pins, as bench/fuzz_sensor.py times them);
  target: within 1 ms of each other.

    python bench/bench_web.py
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from bench_sensor import percentile  # noqa: E402
from fuzz_sensor import Presser  # noqa: E402

from companion import box_config  # noqa: E402
from companion.box.boot import build_app  # noqa: E402
from companion.box.events import Stop  # noqa: E402
from companion.cli import main as companion  # noqa: E402
from companion.games.catalog import GAMES  # noqa: E402
from companion.simulator.simbox import SimBox  # noqa: E402
from tests.test_history import EXAMPLES, example  # noqa: E402
from tests.web_process import WebProcess  # noqa: E402

WATCHERS = 3
PRESSES = 150
CHURN = """
import sys, time
from companion import roster
n = 0
while True:
    n += 1
    with roster.connect(sys.argv[1]) as conn:
        roster.add(conn, f"P{n}")
    time.sleep(0.1)
"""
PAGES = ("/", "/history", "/history/1", "/roster", "/export/games.csv", "/export/bgstats.json")


def memory(pid: int) -> dict[str, float]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return fields


def watch(web: WebProcess, cookie: str, arrivals: list[float], ready: threading.Event) -> None:
    """Read one Live stream, noting when each event arrives."""
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    conn.request("GET", "/events", headers={"Cookie": cookie})
    response = conn.getresponse()
    response.readline()
    ready.set()
    while True:
        line = response.readline()
        if not line:
            return
        if line == b"event: live\n":
            arrivals.append(time.perf_counter())


def press_to_frame(state: Path, web: WebProcess) -> dict[str, float]:
    """The box's press→frame p99, with no page open, then with three watching a busy journal."""
    app = build_app(box_config.parse({}), sim=True, state_dir=state / "box")
    presser = Presser(app)
    threading.Thread(target=app.run, daemon=True).start()
    time.sleep(0.5)
    try:
        presser.run(20)     # warm-up
        alone = [t for t in presser.run(PRESSES) if t is not None]
        for _ in range(WATCHERS):
            ready = threading.Event()
            threading.Thread(target=watch, args=(web, web.session(), [], ready),
                             daemon=True).start()
            ready.wait(10)
        # Another process writes, as the box would: this one's GIL stays the box's.
        churn = subprocess.Popen([sys.executable, "-c", CHURN, str(state)], cwd=ROOT)
        try:
            watched = [t for t in presser.run(PRESSES) if t is not None]
        finally:
            churn.kill()
            churn.wait()
    finally:
        app.events.put(Stop())
    return {"box_press_to_frame_ms_p99_alone": round(percentile(alone, 99), 2),
            "box_press_to_frame_ms_p99_watched": round(percentile(watched, 99), 2)}


def measure() -> dict[str, object]:
    """The phone page's figures (see the module's docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        for key, name in EXAMPLES.items():
            with contextlib.redirect_stdout(io.StringIO()):  # "game 1: ...": not this JSON
                companion(["history", "--state-dir", str(state), "import",
                           str(ROOT / "docs" / "examples" / name), "--game", key])
        box = SimBox(state)
        web = WebProcess(state)
        try:
            cookie = web.session()
            for path in PAGES:
                assert web.get(path, cookie)[0] == 200, path
            streams: list[list[float]] = [[] for _ in range(WATCHERS)]
            for arrivals in streams:
                ready = threading.Event()
                threading.Thread(target=watch, args=(web, web.session(), arrivals, ready),
                                 daemon=True).start()
                ready.wait(10)
            actions = example("makan")
            box.app.new_game(GAMES["makan"], actions[0])
            delays = []
            for action in actions[1:]:
                counts = [len(a) for a in streams]
                committed = time.perf_counter()
                box.app.dispatch(action)
                until = committed + 2.0
                while any(len(a) == c for a, c in zip(streams, counts, strict=True)):
                    if time.perf_counter() > until:
                        break
                    time.sleep(0.002)
                delays += [(a[-1] - committed) * 1000 for a, c in zip(streams, counts, strict=True)
                           if len(a) > c]
            used = memory(web.proc.pid)
            box.close()
            box = None
            responsive = press_to_frame(state, web)
        finally:
            web.close()
            if box is not None:
                box.close()
    return {
        "watchers": WATCHERS, "actions": len(actions) - 1,
        "rss_mb": used.get("VmRSS"), "peak_rss_mb": used.get("VmHWM"), "rss_target_mb": 40,
        "live_ms_p50": round(statistics.median(delays), 1),
        "live_ms_max": round(max(delays), 1), "live_target_ms": 300, **responsive,
    }


def main() -> int:
    print(json.dumps(measure(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
