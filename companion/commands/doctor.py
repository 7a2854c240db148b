"""``companion doctor``: can this box run? One line per check, each with its fix."""

from __future__ import annotations

import argparse
import contextlib
import queue
import sys
import time
from typing import Any

from companion.commands import add_common
from companion.doctor.by_hand import BUTTON_TIMEOUT_S, check_buttons, check_buzzer
from companion.doctor.checks import FAIL, WARN, Finding, Probes, can_run, config_findings, diagnose


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check config, game data files, display, pins, sensor, state dir and service",
        description="Check everything the box needs and print one line per check with its fix. "
        "Exit status 0 only if the box can run. Run it as the service user to test its "
        "permissions: sudo -u companion companion doctor. With --buttons: press each button "
        "when asked, then listen to each buzzer pattern (stop the service first).",
    )
    add_common(parser)
    parser.add_argument("--sim", action="store_true",
                        help="check against the simulated hardware (no Pi needed; with --buttons "
                        "the simulator's keys press the buttons)")
    parser.add_argument("--buttons", action="store_true",
                        help="test the wiring: press each button when asked, then hear the buzzer")
    parser.add_argument("--timeout", type=float, default=BUTTON_TIMEOUT_S, metavar="S",
                        help=f"seconds to wait for each button (default {BUTTON_TIMEOUT_S:g})")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.buttons:
        return test_buttons(args)
    probes = Probes.sim() if args.sim else Probes.device()
    findings = diagnose(args.config, probes, state_dir=args.state_dir, sim=args.sim)
    for finding in findings:
        print(finding.line())
    ok = can_run(findings)
    warned = any(f.level == WARN for f in findings)
    if not ok:
        print("The box cannot run: fix the FAIL lines above.")
    else:
        print("The box can run; the warn lines above are worth fixing." if warned else "The box can run.")
    return 0 if ok else 1


def open_parts(cfg: Any, sim: bool, post: Any) -> tuple[Any, Any, Any]:
    """The buttons and buzzer only (the display is not needed): (buttons, buzzer, finger).

    ``finger`` presses the simulated buttons; None on the real board.
    """
    if sim:
        from hardware import sim as backend

        hardware = backend.build(cfg, post)
        return hardware.buttons, hardware.buzzer, hardware.extras["finger"]
    from hardware.buttons import GpioButtons
    from hardware.buzzer import RecordingBuzzer, gpio_buzzer
    from hardware.clock import MonotonicClock

    now = MonotonicClock().now
    buttons = GpioButtons(cfg.button_pins(), post, now, bounce_s=cfg.buttons.bounce_ms / 1000 or None)
    if cfg.buzzer.kind == "none":
        return buttons, RecordingBuzzer(now, 0), None
    try:
        return buttons, gpio_buzzer(cfg.buzzer.pin, cfg.buzzer.kind, cfg.buzzer.volume), None
    except Exception:
        buttons.close()
        raise


def test_buttons(args: argparse.Namespace) -> int:
    """Press each button when asked, then play each buzzer pattern; exit 0 if every button came."""
    found, cfg = config_findings(args.config)
    if cfg is None:
        for finding in found:
            print(finding.line())
        return 1
    edges: queue.Queue = queue.Queue()
    try:
        buttons, buzzer, finger = open_parts(cfg, args.sim, edges.put)
    except Exception as exc:  # gpiozero: GPIOPinInUse, BadPinFactory; lgpio: "GPIO busy"
        print(Finding("button", FAIL, f"cannot claim the pins: {exc}",
                      "stop the box first (sudo systemctl stop companion), then run "
                      "`companion doctor` to find what else holds them").line())
        return 1
    with contextlib.ExitStack() as stack:
        stack.callback(buttons.close)
        stack.callback(buzzer.close)
        if finger is not None and sys.stdin.isatty():
            stack.enter_context(_keys_press(finger))
            print("Simulated buttons: w/s UP/DOWN, o OK, b BACK, a ACTION.")
        findings = []
        for finding in check_buttons(cfg, edges, lambda text: print(text, flush=True),
                                     args.timeout):
            findings.append(finding)
            print(finding.line(), flush=True)
        if cfg.buzzer.kind != "none" and not args.sim:
            print(f"Listen: the buzzer on BCM {cfg.buzzer.pin} plays each pattern. Silent? Check its "
                  "wires, and [buzzer] kind: tonal for a passive buzzer, active for one that "
                  "beeps by itself.", flush=True)
        # The simulator's buzzer only records: nothing to wait for.
        wait = (lambda _seconds: None) if args.sim else time.sleep
        for finding in check_buzzer(cfg, buzzer.play, wait):
            print(finding.line(), flush=True)
    ok = can_run(findings)
    print("Every button answered." if ok else "Fix the buttons above, then run this again.")
    return 0 if ok else 1


@contextlib.contextmanager
def _keys_press(finger: Any) -> Any:
    """While open, keys typed in this terminal press the simulated buttons (a tap each)."""
    from companion.simulator.terminal import KeyboardReader, RawTerminal

    def tap(button: str, _long: bool) -> None:
        finger.down(button)
        finger.up(button)

    fd = sys.stdin.fileno()
    reader = KeyboardReader(tap, lambda: None, fd)
    with RawTerminal(fd, screen=False):
        reader.start()
        try:
            yield
        finally:
            reader.stopped.set()
            reader.join(timeout=1)
