"""The boot's figures inside the emulated box, from the guest's own clocks, for
``bench/pi_clock.py --only boot``: one line ``PI-CLOCK-BOOT {json}`` on the console, then the
guest powers off. Run by companion-boot-clock.service after the box is READY and a finger has
pressed OK (times in CLOCK_BOOTTIME / CLOCK_MONOTONIC ns from the kernel's start; nothing the
host does moves them).

    python3 boot_clock.py [FRAMES]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

FRAMES = "/run/companion/frames"  # the box's panel stand-in (companion run --sim-io)
UNIT = "companion.service"
DURATION = re.compile(r"(?:(\d+)min)?\s*(?:(\d+(?:\.\d+)?)s)?\s*(?:(\d+(?:\.\d+)?)ms)?$")


def seconds(ns: int) -> float:
    return round(ns / 1e9, 3)


def frame_times(lines: list[str]) -> dict[str, int]:
    """The first frame, the press, and the first frame after the press that differs from the
    one shown when it was made (ns)."""
    times: dict[str, int] = {}
    shown = None
    for line in lines:
        at, what, detail = [*line.split(), "", ""][:3]
        if what == "frame" and "first_frame" not in times:
            times["first_frame"] = int(at)
        if what == "press" and "press" not in times:
            times["press"] = int(at)
        elif what == "frame" and "press" in times and detail != shown:
            times["playable"] = int(at)
            break
        if what == "frame":
            shown = detail
    return times


def show(prop: str, unit: str | None = None) -> int:
    """A systemd timestamp property in ns (0 when systemd has none)."""
    out = subprocess.run(["systemctl", "show", "-p", prop, "--value", *([unit] if unit else [])],
                         capture_output=True, text=True).stdout.strip()
    return int(out or 0) * 1000


def kernel_note_ns(words: str) -> int | None:
    """When the kernel logged a line holding ``words`` (its ring buffer keeps what ``quiet``
    leaves off the console), in ns of its clock; None when it did not."""
    log = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    found = re.search(r"(?m)^\[\s*(\d+)\.(\d{6})\] .*" + re.escape(words), log)
    return int(found[1]) * 10**9 + int(found[2]) * 1000 if found else None


def duration_s(text: str) -> float | None:
    found = DURATION.match(text.strip())
    if not found or not any(found.groups()):
        return None
    minutes, secs, millis = (float(g) if g else 0.0 for g in found.groups())
    return round(minutes * 60 + secs + millis / 1000, 3)


def slowest_units(count: int = 5) -> list[list[object]]:
    out = subprocess.run(["systemd-analyze", "blame", "--no-pager"], capture_output=True,
                         text=True).stdout.splitlines()
    units = []
    for line in out[:count]:
        *took, unit = line.split()
        units.append([unit, duration_s(" ".join(took))])
    return units


def figures(frames: Path) -> dict[str, object]:
    times = frame_times(frames.read_text(encoding="ascii").splitlines()) if frames.exists() else {}
    ns = {"boot_to_first_frame_s": times.get("first_frame"),
          "boot_to_playable_s": times.get("playable"),
          "boot_to_ready_s": show("ActiveEnterTimestampMonotonic", UNIT) or None,
          "boot_to_initramfs_s": kernel_note_ns("Run /init as init process"),
          "boot_to_systemd_s": show("UserspaceTimestampMonotonic") or None,
          "boot_to_box_start_s": show("ExecMainStartTimestampMonotonic", UNIT) or None,
          "boot_press_at_s": times.get("press")}
    out: dict[str, object] = {key: seconds(value) if value else None for key, value in ns.items()}
    out["ns"] = {key: value for key, value in ns.items() if value}
    out["boot_slowest_units"] = slowest_units()
    chain = subprocess.run(["systemd-analyze", "critical-chain", UNIT, "--no-pager"],
                           capture_output=True, text=True).stdout.splitlines()
    out["boot_critical_chain"] = [line.strip() for line in chain[2:]]
    out["boot_box_state"] = subprocess.run(["systemctl", "show", "-p", "ActiveState", "-p",
                                            "NRestarts", UNIT], capture_output=True,
                                           text=True).stdout.split()
    out["boot_box_log"] = subprocess.run(["journalctl", "-b", "-u", UNIT, "-o", "short-monotonic",
                                          "--no-pager", "-n", "12"], capture_output=True,
                                         text=True).stdout.splitlines()
    return out


def main() -> None:
    found = figures(Path(sys.argv[1] if len(sys.argv) > 1 else FRAMES))
    with open("/dev/console", "w", encoding="utf-8") as console:
        console.write("PI-CLOCK-BOOT " + json.dumps(found) + "\n")
    with open("/proc/sysrq-trigger", "w") as trigger:  # power off: the host has what it needs
        trigger.write("o")


if __name__ == "__main__":
    main()
