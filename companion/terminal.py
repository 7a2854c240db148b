"""The interactive simulator's terminal: the OLED as Unicode half-blocks, keys as buttons.

Each character cell shows two pixel rows (▀ ▄ █), so the 128×64 panel is 128 columns by
32 lines, at its real resolution. Works over SSH; needs no graphics library.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import threading
import time
import tty
from collections.abc import Callable
from typing import Any, TextIO

from PIL import Image

HELP = "↑/w ↓/s move  ⏎/o OK  ⌫/b BACK  space/a ACTION  O B A = hold (long)  q quit"

_KEYS = {
    "w": "UP", "k": "UP", "s": "DOWN", "j": "DOWN",
    "o": "OK", "\r": "OK", "\n": "OK",
    "b": "BACK", "\x7f": "BACK", "\x08": "BACK",
    "a": "ACTION", " ": "ACTION",
}
_LONG_KEYS = {"O": "OK", "B": "BACK", "A": "ACTION", "W": "UP", "S": "DOWN"}
_ARROWS = {"A": "UP", "B": "DOWN"}


def frame_to_text(image: Image.Image) -> list[str]:
    """The frame as 32 lines of half-block characters."""
    pixels = image.convert("1").load()
    width, height = image.size
    rows = []
    for y in range(0, height, 2):
        chars = []
        for x in range(width):
            top = pixels[x, y] != 0
            bottom = y + 1 < height and pixels[x, y + 1] != 0
            chars.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
        rows.append("".join(chars))
    return rows


def decode_keys(data: str) -> list[tuple[str, bool]]:
    """Key bytes → (button, long) presses; unknown keys are ignored; 'q' gives ('QUIT', False)."""
    presses: list[tuple[str, bool]] = []
    i = 0
    while i < len(data):
        char = data[i]
        if char == "\x1b" and data[i + 1 : i + 2] == "[" and i + 2 < len(data):
            button = _ARROWS.get(data[i + 2])
            if button:
                presses.append((button, False))
            i += 3
            continue
        if char in ("q", "\x03"):
            presses.append(("QUIT", False))
        elif char in _KEYS:
            presses.append((_KEYS[char], False))
        elif char in _LONG_KEYS:
            presses.append((_LONG_KEYS[char], True))
        i += 1
    return presses


class TerminalPanel:
    """Paints frames and a status line to a terminal stream."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self.status = ""
        self._lock = threading.Lock()
        self._last: Image.Image | None = None

    def paint(self, image: Image.Image) -> None:
        with self._lock:
            self._last = image.copy()
            lines = frame_to_text(image)
            border = "─" * len(lines[0])
            text = "\x1b[H" + f"┌{border}┐\r\n"
            text += "".join(f"│{line}│\r\n" for line in lines)
            text += f"└{border}┘\r\n{HELP}\x1b[K\r\n{self.status}\x1b[K\r\n"
            self.out.write(text)
            self.out.flush()

    def set_status(self, status: str) -> None:
        self.status = status
        if self._last is not None:
            self.paint(self._last)


class KeyboardFinger(threading.Thread):
    """Reads keys and presses the simulated buttons like a finger (down, hold, up)."""

    def __init__(self, finger: Any, long_press_s: Callable[[], float],
                 on_quit: Callable[[], None], fd: int) -> None:
        super().__init__(name="keyboard", daemon=True)
        self.finger, self.long_press_s, self.on_quit, self.fd = finger, long_press_s, on_quit, fd
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            data = os.read(self.fd, 64).decode("utf-8", "ignore")
            if not data:
                self.on_quit()
                return
            for button, long in decode_keys(data):
                if button == "QUIT":
                    self.on_quit()
                    return
                self.finger.down(button)
                time.sleep(self.long_press_s() + 0.15 if long else 0.06)
                self.finger.up(button)
                time.sleep(0.04)


class RawTerminal:
    """Puts the terminal in cbreak mode, hides the cursor, and restores both on exit."""

    def __init__(self, fd: int, out: TextIO = sys.stdout) -> None:
        self.fd, self.out = fd, out

    def __enter__(self) -> RawTerminal:
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        self.out.write("\x1b[?25l\x1b[2J")
        return self

    def __exit__(self, *exc: object) -> None:
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        self.out.write("\x1b[?25h\r\n")
        self.out.flush()
