"""The interactive simulator's terminal: the OLED drawn in characters, keys as buttons.

With room (130×37) each character shows two pixel rows (▀ ▄ █), so the 128×64 panel is
128 columns by 32 lines, at its real resolution. In a smaller terminal (such as 80×24) each
character is a Unicode braille cell of 2×4 pixels: the panel is 64 columns by 16 lines.
Works over SSH; needs no graphics library.

Keys are handled as they arrive: the keyboard thread posts each one to the loop, where
:class:`KeyPresser` presses the button and schedules its release on the app's clock.
"""

from __future__ import annotations

import os
import select
import shutil
import sys
import termios
import threading
import tty
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, TextIO

from PIL import Image

from ..box.events import Call, Stop
from .simbox import PRESS_S

if TYPE_CHECKING:
    from ..box.app import App, Timer

HELP = "↑/w ↓/s move  ⏎/o OK  ⌫/b BACK  space/a ACTION  O B A = hold (long)  r roll dice  q quit"
HELP_SHORT = "w/s move o OK b BACK a ACTION  O B A hold  r roll  q quit"

# Characters the two renderings need: the panel, its border, the help and status lines.
FULL_SIZE = (130, 37)
COMPACT_SIZE = (66, 20)

# A key arriving again while its button is still down (terminal auto-repeat) keeps the button
# down this much longer: more than the gap between repeats (25-50 ms in common terminals), so a
# held key is a held button and the box's own auto-repeat takes over.
REPEAT_HOLD_S = 0.12
LONG_MARGIN_S = 0.15  # a hold lasts this much past the long-press threshold

_KEYS = {
    "w": "UP", "k": "UP", "s": "DOWN", "j": "DOWN",
    "o": "OK", "\r": "OK", "\n": "OK",
    "b": "BACK", "\x7f": "BACK", "\x08": "BACK",
    "a": "ACTION", " ": "ACTION",
}
_LONG_KEYS = {"O": "OK", "B": "BACK", "A": "ACTION", "W": "UP", "S": "DOWN"}
_ARROWS = {"A": "UP", "B": "DOWN"}

# Braille dot bits by (x, y) inside a 2×4 cell (Unicode's dots 1-8).
_BRAILLE_BITS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


def _to_cells(image: Image.Image, dots: tuple[tuple[int, ...], ...],
              glyph: Callable[[int], str]) -> list[str]:
    """The frame as lines of character cells; ``dots[x][y]`` is the bit a lit pixel at (x, y)
    of a cell adds, and ``glyph`` turns a cell's bits into its character."""
    pixels = image.convert("1").load()
    if pixels is None:  # Pillow gives no pixel access only for an image with no data
        return []
    width, height = image.size
    rows = []
    for top in range(0, height, len(dots[0])):
        chars = []
        for left in range(0, width, len(dots)):
            bits = 0
            for dx, column in enumerate(dots):
                for dy, bit in enumerate(column):
                    x, y = left + dx, top + dy
                    if x < width and y < height and pixels[x, y] != 0:
                        bits |= bit
            chars.append(glyph(bits))
        rows.append("".join(chars))
    return rows


def frame_to_text(image: Image.Image) -> list[str]:
    """The frame as 32 lines of half-block characters (top pixel 1, bottom pixel 2)."""
    return _to_cells(image, ((1, 2),), " ▀▄█".__getitem__)


def frame_to_braille(image: Image.Image) -> list[str]:
    """The frame as 16 lines of 64 braille cells, each 2×4 pixels."""
    return _to_cells(image, _BRAILLE_BITS, lambda bits: chr(0x2800 + bits))


def rendering_for(columns: int, lines: int) -> str | None:
    """``full`` when the terminal has room for it, else ``compact``; None if even that won't fit."""
    if columns >= FULL_SIZE[0] and lines >= FULL_SIZE[1]:
        return "full"
    if columns >= COMPACT_SIZE[0] and lines >= COMPACT_SIZE[1]:
        return "compact"
    return None


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
        elif char == "r":  # not a button: the paired virtual dice roll (docs/sensor.md)
            presses.append(("ROLL", False))
        elif char in _KEYS:
            presses.append((_KEYS[char], False))
        elif char in _LONG_KEYS:
            presses.append((_LONG_KEYS[char], True))
        i += 1
    return presses


class TerminalPanel:
    """Paints frames and a status line to a terminal stream, in the rendering that fits."""

    def __init__(self, out: TextIO = sys.stdout,
                 size: Callable[[], tuple[int, int]] = shutil.get_terminal_size) -> None:
        self.out = out
        self.size = size
        self.status = ""
        self._lock = threading.Lock()
        self._last: Image.Image | None = None
        self._rendering: str | None = None

    def paint(self, image: Image.Image) -> None:
        with self._lock:
            self._last = image.copy()
            columns, lines = self.size()
            rendering = rendering_for(columns, lines) or "compact"
            text = "\x1b[H"
            if rendering != self._rendering:  # the terminal was resized: clear what was drawn
                text += "\x1b[2J\x1b[H"
                self._rendering = rendering
            rows = frame_to_text(image) if rendering == "full" else frame_to_braille(image)
            keys = HELP if len(HELP) <= columns else HELP_SHORT
            border = "─" * len(rows[0])
            text += f"┌{border}┐\r\n"
            text += "".join(f"│{row}│\r\n" for row in rows)
            text += f"└{border}┘\r\n{keys}\x1b[K\r\n{self.status[:columns]}\x1b[K\r\n"
            self.out.write(text)
            self.out.flush()

    def set_status(self, status: str) -> None:
        self.status = status
        if self._last is not None:
            self.paint(self._last)


@dataclass
class _Down:
    button: str
    release: Timer  # lifts the button


class KeyPresser:
    """Presses the simulated buttons for keys, on the loop thread, like one finger.

    A press is the button going down now and up at a time scheduled on the app's clock, so
    nothing waits. The same key again while its button is down (terminal auto-repeat) keeps
    it down a little longer instead of queuing presses; another key lifts it first, so a
    quick OK then DOWN is not reordered (DOWN counts when it goes down, OK when let go).
    """

    def __init__(self, app: App) -> None:
        self.app = app
        self.finger = app.hardware.extras["finger"]
        self._down: _Down | None = None

    @property
    def idle(self) -> bool:
        """True when no button is held for a key."""
        return self._down is None

    def press(self, button: str, long: bool = False) -> None:
        now = self.app.clock.now()
        down = self._down
        if down is not None and down.button == button:
            until = max(down.release.at, now + REPEAT_HOLD_S)
            down.release.cancel()
            down.release = self.app.clock.at(until, self.lift)
            return
        self.lift()
        held = self.app.settings.values["long_press_s"] + LONG_MARGIN_S if long else PRESS_S
        self.finger.down(button)
        self._down = _Down(button, self.app.clock.at(now + held, self.lift))

    def lift(self) -> None:
        """Release the held button, if any."""
        down, self._down = self._down, None
        if down is not None:
            down.release.cancel()
            self.finger.up(down.button)


class KeyboardReader(threading.Thread):
    """Reads the terminal and hands each key on as it arrives; 'q' (or the end) quits."""

    def __init__(self, on_key: Callable[[str, bool], None], on_quit: Callable[[], None],
                 fd: int) -> None:
        super().__init__(name="keyboard", daemon=True)
        self.on_key, self.on_quit, self.fd = on_key, on_quit, fd
        self.stopped = threading.Event()

    def feed(self, data: str) -> bool:
        """Hand on the keys in ``data``; False once a quit key was read."""
        for button, long in decode_keys(data):
            if button == "QUIT":
                self.on_quit()
                return False
            self.on_key(button, long)
        return True

    def run(self) -> None:
        while not self.stopped.is_set():
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            data = os.read(self.fd, 64).decode("utf-8", "ignore")
            if not data:  # the terminal is gone
                self.on_quit()
                return
            if not self.feed(data):
                return


def app_keyboard(app: App, presser: KeyPresser, fd: int) -> KeyboardReader:
    """Keys for the running box: each posted to its loop; 'q' stops the loop at once."""

    def quit_now() -> None:
        app.stop()  # the loop leaves after the event in hand, whatever keys are queued behind it
        app.events.put(Stop("quit"))  # and wakes if it was waiting

    def on_key(button: str, long: bool) -> None:
        if button == "ROLL":
            dice = app.hardware.extras.get("dice")  # the virtual dice paired now, if any
            if dice is not None:
                dice.throw()  # the link posts the news onto the loop's queue by itself
            return
        app.events.put(Call(partial(presser.press, button, long)))

    return KeyboardReader(on_key, quit_now, fd)


class RawTerminal:
    """Puts the terminal in cbreak mode (keys arrive unbuffered, unechoed) and restores it on
    exit; with ``screen`` also hides the cursor and clears the screen for the panel."""

    def __init__(self, fd: int, out: TextIO = sys.stdout, screen: bool = True) -> None:
        self.fd, self.out, self.screen = fd, out, screen

    def __enter__(self) -> RawTerminal:
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        if self.screen:
            self.out.write("\x1b[?25l\x1b[2J")
        return self

    def __exit__(self, *exc: object) -> None:
        termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        if self.screen:
            self.out.write("\x1b[?25h\r\n")
            self.out.flush()
