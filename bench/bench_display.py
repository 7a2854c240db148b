"""Display figures: bytes on the I²C bus per change, press to photon, render time per screen.

Frames go through luma.oled's own ``ssd1306`` driver class, as on the box, onto a recording
bus that counts what luma's i2c class would send (on the box it opens the bus itself and sends
data in one i2c_rdwr message of up to 4,096 bytes; each transaction also carries the address
and a control byte). Bus time is modeled: 9 clocks a byte plus a start and a stop.

- ``bus_bytes_*``: every byte on the wire (address and control bytes too) of one full frame,
  of each frame while the Café timer runs (one a second), of each menu move (UP/DOWN on the
  home and settings menus); ``*_ratio`` is the share of a full frame.
- ``press_to_photon_ms_*``: from the pin edge of a press (mock pin driven, gpiozero's
  callback, the queue, the decoder, the screen's action, the frame drawn, luma's dummy copy
  for the simulator and the page-diff writer on the recording bus) to the end of the loop's
  pump, in the loop thread's CPU time (the machine is shared: ``press_wall_ms`` is the wall
  time), plus the modeled bus time of what that press sent. Presses: menu moves (also alone
  as ``menu_move_to_photon_*``) and opening and leaving a menu, which redraws most of the
  screen. ``full_frame`` repeats it all with luma's own whole-frame ``display()``.
- ``render_ms``: ``App.render()`` on each named screen (as ``companion screenshot`` reaches
  it), in CPU time: the frame composed and compared with the one on the panel (unchanged, so
  not written).
- ``max_frame_ms_long_text``: the slowest of 100 frames (CPU time) with a 10,000-character
  name as the title, the hint, a centred line, a list line and a wrapped paragraph.

    python bench/bench_display.py [--quick]

Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from companion.commands.screenshot import render as walk_to
from companion.frame.canvas import compose
from companion.simulator.simbox import SimBox
from companion.simulator.walk import named_screens
from hardware.display import OledDisplay, PageDiffDisplay
from hardware.model_panel import BUS_SPEEDS_HZ, SMBUS_BLOCK, BusCount, RecordingBus

DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}
AIMS = {"timer_tick_ratio": 0.15, "menu_move_ratio": 0.35, "photon_400k_ms": 12,
        "photon_100k_ms": 40, "render_p50_ms": 2, "render_max_ms": 5}


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def spread(values: list[float], digits: int = 3) -> dict[str, float]:
    return {"p50": round(statistics.median(values), digits), "p99": round(p99(values), digits),
            "max": round(max(values), digits), "samples": len(values)}


def busy_frame() -> Image.Image:
    """A frame with ink in every page, so no write of it can be skipped."""
    image = Image.new("1", (128, 64), 0)
    ImageDraw.Draw(image).rectangle((0, 0, 127, 63), outline=255)
    return image


def full_frame(samples: int) -> dict[str, Any]:
    """One whole frame: luma's ``display()`` (the old path) and the page-diff writer's first."""
    out: dict[str, Any] = {}
    image = busy_frame()
    for name, driver in DRIVERS.items():
        for label, block in (("rdwr", 4096), ("smbus32", SMBUS_BLOCK)):
            bus = RecordingBus(block)
            device = driver(bus)
            bus.take()
            cpu = []
            for _ in range(samples):
                started = time.thread_time()
                device.display(image)
                cpu.append((time.thread_time() - started) * 1000)
            count = BusCount(bus.count.transactions // samples, bus.count.payload_bytes // samples)
            out[f"luma_{name}_{label}"] = dict(describe(count), display_cpu_ms_p50=round(
                statistics.median(cpu), 3))
        bus = RecordingBus()
        writer = PageDiffDisplay(driver(bus), name, lambda: 0.0)
        bus.take()
        writer.show(image)
        out[f"page_diff_{name}"] = describe(bus.take())
        # The writer's own CPU: every page changed (a whole frame), then one pixel.
        other, dot = Image.new("1", (128, 64), 0), image.copy()
        dot.putpixel((64, 32), 255)
        for label, frames in (("whole", (other, image)), ("one_pixel", (dot, image))):
            cpu = []
            for index in range(samples):
                started = time.thread_time()
                writer.show(frames[index % 2])
                cpu.append((time.thread_time() - started) * 1000)
            out[f"page_diff_{name}"][f"cpu_ms_p50_{label}"] = round(statistics.median(cpu), 3)
    return out


def describe(count: BusCount) -> dict[str, Any]:
    return {"wire_bytes": count.wire_bytes, "transactions": count.transactions,
            **{f"bus_ms_{speed}": round(count.seconds(hz) * 1000, 2)
               for speed, hz in BUS_SPEEDS_HZ.items()}}


def fresh(name: str) -> SimBox:
    return walk_to(name, named_screens()[name])


def attach(box: SimBox, path: str, controller: str = "ssd1306") -> RecordingBus:
    """Write the box's frames also through luma's driver class onto a recording bus."""
    display = box.app.hardware.display
    if path == "page_diff":
        bus = display.measure(controller, box.clock.now, RecordingBus())
    else:
        bus = RecordingBus()
        display.panel = OledDisplay(ssd1306(bus))
        display.panel.show(display.frame())
    bus.take()
    return bus


def timer_ticks(seconds: int, controller: str = "ssd1306") -> list[int]:
    """Wire bytes of each frame written while the Café timer runs."""
    box = fresh("cafe-timer")
    try:
        bus = attach(box, "page_diff", controller)
        display = box.app.hardware.display
        sent: list[int] = []
        for _ in range(seconds * 20):
            written = display.frames_written
            box.advance(0.05)
            if display.frames_written != written:
                sent.append(bus.take().wire_bytes)
        return sent
    finally:
        box.close()


class Presses:
    """Each press that changed the frame: its wire bytes, its loop time (CPU and wall) and
    its press-to-photon time at each bus speed (CPU time plus bus time)."""

    def __init__(self) -> None:
        self.moves: list[int] = []
        self.cpu: list[float] = []
        self.wall: list[float] = []
        self.photon: dict[str, list[float]] = {speed: [] for speed in BUS_SPEEDS_HZ}
        self.photon_moves: dict[str, list[float]] = {speed: [] for speed in BUS_SPEEDS_HZ}

    def add(self, cpu_s: float, wall_s: float, count: BusCount, move: bool) -> None:
        self.cpu.append(cpu_s * 1000)
        self.wall.append(wall_s * 1000)
        for speed, hz in BUS_SPEEDS_HZ.items():
            self.photon[speed].append((cpu_s + count.seconds(hz)) * 1000)
            if move:
                self.photon_moves[speed].append((cpu_s + count.seconds(hz)) * 1000)
        if move:
            self.moves.append(count.wire_bytes)


def presses(path: str, rounds: int, controller: str = "ssd1306") -> Presses:
    """Menu moves (UP/DOWN on the home and settings menus) and menu changes (OK, BACK)."""
    box = fresh("home")
    try:
        bus = attach(box, path, controller)
        display = box.app.hardware.display
        finger = box.finger
        measured = Presses()

        def press(button: str, move: bool) -> None:
            written = display.frames_written
            if button in ("OK", "BACK"):  # these act on release
                finger.down(button)
                box.app.pump()
                box.advance(0.06)
                bus.take()
            wall, cpu = time.perf_counter(), time.thread_time()
            (finger.up if button in ("OK", "BACK") else finger.down)(button)
            box.app.pump()
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
            count = bus.take()
            if button in ("UP", "DOWN"):
                finger.up(button)
                box.app.pump()
            box.advance(0.06)
            bus.take()
            if display.frames_written != written:
                measured.add(cpu, wall, count, move)

        for round_ in range(rounds + 1):
            if round_ == 1:  # the first round fills the font caches: not measured
                measured = Presses()
            for _ in range(6):
                press("DOWN", True)
            press("UP", True)
            press("OK", False)  # the selected home item; its screen is drawn whole
            for _ in range(5):
                press("DOWN", True)
            press("BACK", False)
        return measured
    finally:
        box.close()


def render_times(names: list[str], renders: int) -> dict[str, dict[str, float]]:
    out = {}
    for name in names:
        box = fresh(name)
        try:
            box.app.panel.render()
            times = []
            for _ in range(renders):
                started = time.thread_time()
                box.app.panel.render()
                times.append((time.thread_time() - started) * 1000)
            out[name] = {"p50": round(statistics.median(times), 3), "max": round(max(times), 3)}
        finally:
            box.close()
    return out


def long_text(renders: int) -> float:
    name = ("Wilhelmina " * 1000)[:10_000]
    times = []
    for _ in range(renders):
        started = time.thread_time()
        compose(name, "1/4", name, lambda canvas: (canvas.center(0, name), canvas.line(2, name),
                                                   canvas.paragraph(name, 3)))
        times.append((time.thread_time() - started) * 1000)
    return round(max(times), 3)


def measure(quick: bool = False) -> dict[str, Any]:
    """Every figure above; ``quick`` takes few samples, only to check that it runs."""
    full = full_frame(3 if quick else 50)
    frame_bytes = full["page_diff_ssd1306"]["wire_bytes"]
    ticks = timer_ticks(5 if quick else 120)
    rounds = 2 if quick else 25
    new, old = presses("page_diff", rounds), presses("full_frame", rounds)
    screens = list(named_screens())
    renders = render_times(screens[:4] if quick else screens, 5 if quick else 60)
    p50s = [figures["p50"] for figures in renders.values()]
    maxes = [figures["max"] for figures in renders.values()]
    result: dict[str, Any] = {
        "benchmark": "display",
        "driver": "luma.oled ssd1306 on a recording I2C bus (i2c_rdwr blocks, as on the box)",
        "bus_bytes_full_frame": frame_bytes,
        "bus_bytes_per_timer_tick": round(statistics.median(ticks)),
        "bus_bytes_per_timer_tick_max": max(ticks),
        "timer_tick_ratio": round(statistics.median(ticks) / frame_bytes, 3),
        "bus_bytes_per_menu_move": round(statistics.median(new.moves)),
        "bus_bytes_per_menu_move_max": max(new.moves),
        "menu_move_ratio": round(statistics.median(new.moves) / frame_bytes, 3),
        "press_cpu_ms": spread(new.cpu),
        "press_wall_ms": spread(new.wall),
        **{f"press_to_photon_ms_p99_{speed}": round(p99(values), 2)
           for speed, values in new.photon.items()},
        "press_to_photon_ms_p50_400k": round(statistics.median(new.photon["400k"]), 2),
        **{f"menu_move_to_photon_ms_p99_{speed}": round(p99(values), 2)
           for speed, values in new.photon_moves.items()},
        "render_ms_p50": round(statistics.median(p50s), 3),
        "render_ms_max": round(max(maxes), 3),
        "render_ms": renders,
        "max_frame_ms_long_text": long_text(5 if quick else 100),
        "sh1106": {
            "bus_bytes_full_frame": full["page_diff_sh1106"]["wire_bytes"],
            "bus_bytes_per_timer_tick": round(statistics.median(
                timer_ticks(5 if quick else 30, "sh1106"))),
            "bus_bytes_per_menu_move": round(statistics.median(
                presses("page_diff", 1 if quick else 5, "sh1106").moves)),
        },
        "full_frame": {
            "press_cpu_ms": spread(old.cpu),
            **{f"press_to_photon_ms_p99_{speed}": round(p99(values), 2)
               for speed, values in old.photon.items()},
            **{f"menu_move_to_photon_ms_p99_{speed}": round(p99(values), 2)
               for speed, values in old.photon_moves.items()},
            "bus_bytes_per_change": frame_bytes,
        },
        "frames": full,
        "aims": AIMS,
    }
    result["ok"] = (result["timer_tick_ratio"] <= AIMS["timer_tick_ratio"]
                    and result["menu_move_ratio"] <= AIMS["menu_move_ratio"]
                    and result["press_to_photon_ms_p99_400k"] < AIMS["photon_400k_ms"]
                    and result["press_to_photon_ms_p99_100k"] < AIMS["photon_100k_ms"]
                    and result["render_ms_p50"] < AIMS["render_p50_ms"]
                    and result["render_ms_max"] < AIMS["render_max_ms"])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples: checks it runs")
    print(json.dumps(measure(parser.parse_args(argv).quick)))


if __name__ == "__main__":
    main()
