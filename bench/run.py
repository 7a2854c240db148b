"""Every benchmark in one run: one JSON object of the figures the README's table lists.

    python bench/run.py [--json] [--quick] [--no-tests]

Calls each benchmark script's own functions (``bench_display.measure``, ``bench_box``,
``bench_cafe_timer.run``, ``bench_miams_simulate.main``, ``bench_makan_replay.measure``,
``bench_sensor`` with ``ble_dice.bench_parse``, ``bench_miams_odds.main``, ``bench_history.measure``,
``bench_web.measure``, ``press_walk``) and keeps their full output under ``details``.
Timings are medians and p99 over hundreds of samples; rates are the median window with the
slowest and fastest beside them. docs/benchmarks.md names what each figure includes.
``--quick`` takes few samples and leaves out the test suite: it checks that everything runs
(CI). The whole run takes under 3 minutes on the 2-core development machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

import bench_box
import bench_cafe_timer
import bench_display
import bench_history
import bench_makan_replay
import bench_miams_odds
import bench_miams_simulate
import bench_sensor
import bench_web
import ble_dice
import press_walk


def machine() -> dict[str, Any]:
    """Where the figures came from."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info
                          if line.startswith(("model name", "Model"))), "")
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "cores": os.cpu_count(),
            "python": sys.version.split()[0], "system": platform.platform(terse=True)}


def timed(seconds: dict[str, float], name: str, fn: Callable[[], Any]) -> Any:
    began = time.perf_counter()
    try:
        return fn()
    finally:
        seconds[name] = round(time.perf_counter() - began, 1)


PRESS_WALK_FIGURES = ("press_files", "press_app_visits", "press_frames_rendered", "app_members")


def dice_figures(quick: bool) -> dict[str, Any]:
    """The serial sensor's parse rate and FACE-to-frame latency; the smart dice's parse rate."""
    return {"parse": bench_sensor.bench_parse(10_000 if quick else 100_000),
            "game_latency_ms": bench_sensor.bench_game(30 if quick else 300),
            "smart_dice_parse": ble_dice.bench_parse(20_000 if quick else 200_000)}


def run(quick: bool, tests: bool) -> dict[str, Any]:
    """Run every benchmark; the headline figures first, each benchmark's output in ``details``."""
    took: dict[str, float] = {}
    display = timed(took, "display", lambda: bench_display.measure(quick))
    box = timed(took, "box", lambda: bench_box.measure(quick))
    rounds, round_s = (1, 3.0) if quick else (2, 6.0)
    timer = timed(took, "cafe_timer", lambda: bench_cafe_timer.run(rounds, round_s, hog=False))
    deadlines = timed(took, "cafe_deadlines", lambda: bench_cafe_timer.run(
        rounds + 1, round_s, hog=True, probe_ms=15))
    miams = timed(took, "miams_simulate", lambda: bench_miams_simulate.main(
        games=2_000 if quick else 50_000))  # full: windows of 10,000 games, as the command plays
    makan = timed(took, "makan_replay", lambda: bench_makan_replay.measure(
        0.6 if quick else 4.0, 4 if quick else 12))
    sensor = timed(took, "sensor", lambda: dice_figures(quick))
    odds = timed(took, "miams_odds", lambda: bench_miams_odds.main(
        counts=(20, 5) if quick else (200, 60)))
    history = timed(took, "history", lambda: bench_history.measure(
        1_000 if quick else 10_000, 5 if quick else 20))
    web = timed(took, "web", lambda: bench_web.measure(quick))
    walk = timed(took, "press_walk", press_walk.measure)
    suite = timed(took, "test_suite", bench_box.test_suite) if tests else None
    journaled, idle = box["journaled"], box["idle"]
    figures: dict[str, Any] = {
        "machine": machine(),
        "quick": quick,
        "press_to_frame_ms_p50": display["press_wall_ms"]["p50"],
        "press_to_frame_ms_p99": display["press_wall_ms"]["p99"],
        "journaled_press_to_frame_ms_p50": journaled["presses"]["p50"],
        "journaled_press_to_frame_ms_p99": journaled["presses"]["p99"],
        "fsync_ms_p99": journaled["fsync_ms"]["p99"],
        "bus_bytes_full_frame": display["bus_bytes_full_frame"],
        "bus_bytes_per_timer_tick": display["bus_bytes_per_timer_tick"],
        "bus_bytes_per_menu_move": display["bus_bytes_per_menu_move"],
        "press_to_photon_ms_p99_400k": display["press_to_photon_ms_p99_400k"],
        "press_to_photon_ms_p99_100k": display["press_to_photon_ms_p99_100k"],
        "render_ms_p50": display["render_ms_p50"],
        "render_ms_max": display["render_ms_max"],
        "render_ms_per_screen": display["render_ms"],
        "display_writes_idle_per_min": max(box["display_writes_idle_per_min"].values()),
        "idle_cpu_percent": idle["idle_cpu_percent"],
        "timer_cpu_percent": timer["cpu_percent_of_one_core"]["mean"],
        "idle_wakeups_per_s": idle["idle_wakeups_per_s"],
        "deadline_error_ms_p50": deadlines["deadline_late_ms"]["p50"],
        "deadline_error_ms_p99": deadlines["deadline_late_ms"]["p99"],
        "deadline_samples": deadlines["deadline_late_ms"]["samples"],
        "startup_to_first_frame_s": idle["startup_to_first_frame_s"],
        "rss_mb": idle["rss_mb"],
        "miams_games_per_s": {level: miams[level]["games_per_s"]
                              for level in ("snacking", "lunch", "munchies")},
        "miams_simulate_command_games_per_s": {
            level: box["simulate_command_games_per_s"][level]
            for level in ("snacking", "lunch", "munchies")},
        "makan_replays_per_s": makan["median_replays_per_s"],
        "makan_apply_replays_per_s": makan["apply_replays_per_s"],
        "sensor_lines_per_s": sensor["parse"]["lines_per_s_wall_median"],
        "sensor_face_to_state_ms_p99": sensor["game_latency_ms"]["p99"],
        "ble_notifications_per_s": sensor["smart_dice_parse"]["messages_per_s_wall_median"],
        "miams_odds_ms_p99": {"one_reroll": odds["rerolls_1"]["miams_odds_ms_p99"],
                              "two_rerolls": odds["rerolls_2"]["miams_odds_ms_p99"]},
        "history_list_ms": history["history_list_ms"],
        "stats_ms": history["stats_ms"],
        "web_rss_mb": web["rss_mb"],
        "web_live_ms_p50": web["live_ms_p50"],
        "web_live_ms_max": web["live_ms_max"],
        "box_press_to_frame_ms_p99_alone": web["box_press_to_frame_ms_p99_alone"],
        "box_press_to_frame_ms_p99_three_pages": web["box_press_to_frame_ms_p99_watched"],
        "web_pin_guesses_checked_per_pin": web["pin_guesses_checked_per_pin"],
        "web_slow_clients_survived": web["slow_clients_survived"],
        "web_http_5xx": web["http_5xx"],
        **{key: walk[key] for key in PRESS_WALK_FIGURES},
        "test_suite_s": suite["test_suite_s"] if suite else None,
        "seconds": took,
    }
    figures["details"] = {"display": display, "box": box, "cafe_timer": timer,
                          "cafe_deadlines": deadlines, "miams_simulate": miams,
                          "makan_replay": makan, "sensor": sensor, "miams_odds": odds,
                          "history": history, "web": web, "press_walk": walk,
                          "test_suite": suite}
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true",
                        help="one JSON object on one line (default: indented)")
    parser.add_argument("--quick", action="store_true",
                        help="few samples and no test suite: checks that everything runs (CI)")
    parser.add_argument("--no-tests", action="store_true", help="leave out the test suite's time")
    args = parser.parse_args(argv)
    figures = run(args.quick, tests=not (args.quick or args.no_tests))
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
