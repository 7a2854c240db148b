"""The OLED: a luma.core device behind a frame-change check, and a page-diff writer.

luma keeps doing what it does well (init sequences, contrast, power, the I²C/SPI interfaces,
rotation); :class:`PageDiffDisplay` replaces its full-frame write with one that sends only
the columns of each 8-row page that changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PIL import Image

GUARD_S = 300.0
"""A full write at least this often (on the box's clock), in case the panel's RAM glitched."""

SH1106_COLUMN_OFFSET = 2
"""A 128-wide panel on the SH1106's 132-column RAM starts at column 2 (luma's default)."""

# Bytes a window costs beyond its pixels on I²C: its command transaction (address, control
# and 6 command bytes) and the data transaction's address and control bytes.
_WINDOW_COST = 10


class LumaDevice(Protocol):
    """What :class:`OledDisplay` uses of a luma.core device (luma ships no type information)."""

    width: int
    height: int
    persist: bool  # True: cleanup() leaves the last frame on the panel

    def display(self, image: Image.Image) -> None: ...
    def contrast(self, level: int) -> None: ...
    def show(self) -> None: ...
    def hide(self) -> None: ...
    def cleanup(self) -> None: ...


class PanelDriver(LumaDevice, Protocol):
    """What :class:`PageDiffDisplay` uses beyond that of a luma.oled ``ssd1306``/``sh1106``."""

    def preprocess(self, image: Image.Image) -> Image.Image: ...
    def command(self, *commands: int) -> None: ...
    def data(self, data: list[int]) -> None: ...


class OledDisplay:
    """Writes a frame to a luma device, whole, only when it differs from the last one."""

    def __init__(self, device: LumaDevice) -> None:
        self._device = device
        self.width: int = device.width
        self.height: int = device.height
        self._last: bytes | None = None
        self.frames_written = 0
        self.powered = True

    def show(self, image: Image.Image) -> bool:
        if image.mode != "1":
            image = image.convert("1")
        data = image.tobytes()
        if data == self._last:
            return False
        self._write(image)
        self._last = data
        self.frames_written += 1
        return True

    def _write(self, image: Image.Image) -> None:
        self._device.display(image)

    def set_contrast(self, level: int) -> None:
        self._device.contrast(max(0, min(255, int(level))))

    def set_power(self, on: bool) -> None:
        if on == self.powered:
            return
        self.powered = on
        if on:
            self._device.show()
        else:
            self._device.hide()

    @property
    def device(self) -> LumaDevice:
        return self._device

    def close(self) -> None:
        # luma clears the panel on cleanup; keep the last frame (e.g. "powered off") instead.
        self._device.persist = True
        self._device.cleanup()


def pack_pages(image: Image.Image) -> list[bytes]:
    """The eight pages of a 128×64 mode-'1' image, each 128 column bytes, bit 0 the top row."""
    # Turned a quarter clockwise, each image row is one panel column, page 7 first.
    data = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return [data[7 - page :: 8] for page in range(8)]


def changed_columns(old: bytes, new: bytes) -> tuple[int, int] | None:
    """The first and last column where two pages differ, or None when they are equal."""
    diff = int.from_bytes(old, "big") ^ int.from_bytes(new, "big")
    if not diff:
        return None
    last = len(new) - 1
    return last - (diff.bit_length() - 1) // 8, last - ((diff & -diff).bit_length() - 1) // 8


class PageDiffDisplay(OledDisplay):
    """Sends only the smallest column window of each changed page to an SSD1306 or SH1106.

    The driver (a luma.oled ``ssd1306`` or ``sh1106``) has set the panel up; this writes
    through its ``command``/``data``, so I²C and SPI alike. A whole frame goes at a wake
    (before the panel lights), and as the first write after a contrast change or once
    ``guard_s`` has passed without a whole write.
    """

    _device: PanelDriver

    def __init__(self, device: PanelDriver, controller: str, clock: Callable[[], float], *,
                 column_offset: int | None = None, guard_s: float = GUARD_S) -> None:
        super().__init__(device)
        if controller not in ("ssd1306", "sh1106"):
            raise ValueError(f"no page-diff writer for {controller!r}")
        self._paged = controller == "sh1106"
        self._offset = column_offset if column_offset is not None else (
            SH1106_COLUMN_OFFSET if self._paged else 0)
        self._clock = clock
        self._guard_s = guard_s
        self._panel: list[bytes] | None = None  # what the panel's RAM holds; None: unknown
        self._image: Image.Image | None = None
        self._full_at = clock()
        self.full_writes = 0

    def _write(self, image: Image.Image) -> None:
        self._image = image
        if self._clock() - self._full_at >= self._guard_s:
            self._panel = None
        self._send(pack_pages(self._device.preprocess(image)))

    def _send(self, pages: list[bytes]) -> None:
        full = self._panel is None
        old = self._panel or [b""] * 8
        windows: list[tuple[int, tuple[int, int]]] = []
        for page in range(8):
            columns = (0, 127) if full else changed_columns(old[page], pages[page])
            if columns is not None:
                windows.append((page, columns))
        if self._paged:
            for page, (first, last) in windows:
                column = first + self._offset
                self._device.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)
                self._device.data(list(pages[page][first : last + 1]))
        else:
            # luma's ssd1306 init sets horizontal addressing (0x20 0x00): the data of a window
            # fills its columns page after page, so one window can cover several pages.
            for top, bottom, first, last in _merged(windows):
                self._device.command(0x21, first + self._offset, last + self._offset,
                                     0x22, top, bottom)
                self._device.data(list(b"".join(pages[page][first : last + 1]
                                                for page in range(top, bottom + 1))))
        self._panel = pages
        if full:
            self._full_at = self._clock()
            self.full_writes += 1

    def rewrite(self) -> None:
        """Send the whole last frame again (the panel's RAM may not hold it)."""
        self._panel = None
        if self._image is not None:
            self._send(pack_pages(self._device.preprocess(self._image)))

    def set_contrast(self, level: int) -> None:
        super().set_contrast(level)
        self._panel = None  # the next frame goes whole; dimming an idle screen sends nothing

    def set_power(self, on: bool) -> None:
        if on and not self.powered:
            self.rewrite()  # before the panel lights, so it never shows stale RAM
        super().set_power(on)


def _merged(windows: list[tuple[int, tuple[int, int]]]) -> list[tuple[int, int, int, int]]:
    """SSD1306 windows (top page, bottom page, first column, last column): runs of changed
    pages share one window when its extra columns cost less than another transaction pair."""
    merged: list[tuple[int, int, int, int]] = []
    for page, (first, last) in windows:
        if merged:
            top, bottom, a, b = merged[-1]
            joined = (page - top + 1) * (max(b, last) - min(a, first) + 1)
            apart = (bottom - top + 1) * (b - a + 1) + last - first + 1 + _WINDOW_COST
            if bottom == page - 1 and joined <= apart:
                merged[-1] = (top, page, min(a, first), max(b, last))
                continue
        merged.append((page, page, first, last))
    return merged
