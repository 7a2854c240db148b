"""``companion doctor --buttons``: checks a person does by hand on a fresh build. They press
each button when asked while the doctor watches the pins' edges, then listen to each buzzer
pattern."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator

from companion.games import box_config as config_module

from .checks import FAIL, OK, WARN, Finding

BUTTON_TIMEOUT_S = 10.0


def _next_press(edges: queue.Queue, timeout_s: float, ignore: set[str]) -> str | None:
    """The next button to close its switch within ``timeout_s`` (bounces of ``ignore`` skipped)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            edge = edges.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if edge.pressed and edge.button not in ignore:
            return edge.button


def check_buttons(cfg: config_module.Config, edges: queue.Queue, say: Callable[[str], None],
                  timeout_s: float = BUTTON_TIMEOUT_S) -> Iterator[Finding]:
    """Ask for each button in turn and watch its pin's edges: one line each, seen or not,
    given as soon as that button is done."""
    pins = cfg.button_pins()
    seen: set[str] = set()
    for name, pin in pins.items():
        key = f"[buttons] {name.lower()}"
        while not edges.empty():  # releases and bounces of the button before
            edges.get_nowait()
        say(f"Press {name} (BCM {pin})...")
        pressed = _next_press(edges, timeout_s, seen)
        if pressed == name:
            seen.add(name)
            yield Finding("button", OK, f"{name} seen on BCM {pin}")
        elif pressed is None:
            yield Finding("button", FAIL, f"{name} not seen on BCM {pin} within {timeout_s:g} s",
                          f"check the switch's wires to BCM {pin} and to GND, and {key} = {pin} "
                          "(README, Wiring)")
        else:
            yield Finding("button", FAIL, f"{name} not seen; {pressed} (BCM {pins[pressed]}) "
                          "closed instead",
                          f"the two may be swapped: swap the wires, or the pins of {key} and "
                          f"[buttons] {pressed.lower()}")


def check_buzzer(cfg: config_module.Config, play: Callable[[str], None],
                 wait: Callable[[float], None]) -> list[Finding]:
    """Play each buzzer pattern in turn, one line each; only a listener can tell if it sounded."""
    from hardware.buzzer import PATTERNS

    buzzer = cfg.buzzer
    if buzzer.kind == "none":
        return [Finding("buzzer", OK, 'none fitted ([buzzer] kind = "none"): nothing to play')]
    if buzzer.volume == 0:
        return [Finding("buzzer", WARN, "[buzzer] volume = 0: the patterns would be silent",
                        "set [buzzer] volume = 1, 2 or 3")]
    findings = []
    for pattern, steps in PATTERNS.items():
        play(pattern)
        seconds = sum(duration for _, duration in steps)
        wait(seconds + 0.3)  # the pattern, and a gap to tell it from the next
        findings.append(Finding("buzzer", OK, f"played {pattern} ({seconds:.2f} s) on BCM "
                                f"{buzzer.pin}, {buzzer.kind}"))
    return findings
