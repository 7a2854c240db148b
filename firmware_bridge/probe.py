"""A one-off check that a port carries a dice sensor: open it, ask HELLO?, listen for the answer.

``companion doctor`` uses it; the running box uses :mod:`firmware_bridge.link` instead.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import serial

from .parser import Parser
from .protocol import ASKING, PROTOCOL_VERSION, Hello, HelloQuery, encode


@dataclass(frozen=True)
class SensorReport:
    """What a port said: ``opened`` and ``answered`` (a HELLO came back); ``detail`` in words."""

    opened: bool
    answered: bool
    detail: str


def sensor_answers(port: Any, wait_s: float = 3.0, ask_every_s: float = 1.0) -> tuple[bool, str]:
    """Ask an open port HELLO? (in v2, then v1 for an old board, in turn) and listen:
    (True, who it is) or (False, what went wrong). An old v1 sensor is found and named, though
    the box reads it only with ``[sensor] protocol = 1``."""
    parser = Parser(accept_v1=True)
    asking = itertools.cycle(ASKING)
    heard = asked = 0
    started = time.monotonic()
    while (now := time.monotonic()) < started + wait_s:
        if now >= started + asked * ask_every_s:
            port.write(encode(HelloQuery(), asked & 0xFF, next(asking)))
            asked += 1
        data = port.read(port.in_waiting or 1)
        heard += len(data)
        for frame in parser.feed(data):
            if isinstance(frame.message, Hello):
                hello = frame.message
                old = "" if hello.version >= PROTOCOL_VERSION else (
                    f", protocol v{hello.version}: update its firmware, or set [sensor] "
                    "protocol = 1")
                return True, (f"sensor {hello.sensor_id} (firmware {hello.firmware}{old}), "
                              f"{len(hello.kinds)} dice")
    if parser.problems:
        return False, f"sends no valid lines ({parser.last_problem})"
    if heard:
        return False, f"sent {heard} bytes but no HELLO in {wait_s:g} s"
    return False, f"sent nothing in {wait_s:g} s"


def probe_sensor(url: str, baud: int, wait_s: float = 3.0,
                 opener: Callable[..., Any] = serial.serial_for_url) -> SensorReport:
    """Open ``url`` as the link would (any ``serial_for_url`` URL) and ask who is there."""
    try:
        port = opener(url, baudrate=baud, timeout=0.1, write_timeout=0.5)
    except (serial.SerialException, OSError, ValueError) as exc:  # ValueError: a bad URL
        return SensorReport(False, False, str(exc))
    try:
        answered, detail = sensor_answers(port, wait_s)
    except (serial.SerialException, OSError) as exc:  # unplugged mid-conversation
        answered, detail = False, f"failed while talking: {exc}"
    finally:
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()  # the device may already be gone
    return SensorReport(True, answered, detail)
