"""A recording bus and a model SSD1306/SH1106 panel, for tests and the display benchmark.

Both are luma serial interfaces (``command``, ``data``, ``cleanup``), so luma.oled's own
driver classes and the page-diff writer can be built on them. :class:`RecordingBus` counts
what an I²C bus would carry; :class:`ModelPanel` also interprets the bytes into the
controller's RAM, the way the chip does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from PIL import Image

# luma's i2c interface on a bus it opens itself (smbus2, as on the box) sends data with
# i2c_rdwr in blocks of up to 4096 bytes; on a bus object it is handed, in SMBus block
# writes of 32. Each block is one transaction with a control byte in front.
RDWR_BLOCK = 4096
SMBUS_BLOCK = 32
BUS_SPEEDS_HZ = {"100k": 100_000, "400k": 400_000, "1m": 1_000_000}


@dataclass
class BusCount:
    """Bytes and transactions an I²C bus carried; a byte is 9 clocks (8 bits and the ack)."""

    transactions: int = 0
    payload_bytes: int = 0  # command and pixel bytes, without address and control bytes

    @property
    def wire_bytes(self) -> int:
        """Every byte on the wire: the address and control byte of each transaction too."""
        return self.payload_bytes + 2 * self.transactions

    def seconds(self, hz: int) -> float:
        """Bus time at ``hz``: 9 clocks a byte plus a start and a stop a transaction."""
        return (9 * self.wire_bytes + 2 * self.transactions) / hz


class RecordingBus:
    """A luma serial interface that only counts transactions as luma's i2c class makes them."""

    def __init__(self, block: int = RDWR_BLOCK) -> None:
        self.block = block
        self.count = BusCount()

    def command(self, *cmd: int) -> None:
        if len(cmd) > 32:
            raise ValueError("luma sends at most 32 command bytes in one transaction")
        self.count.transactions += 1
        self.count.payload_bytes += len(cmd)

    def data(self, data: Sequence[int] | bytes) -> None:
        size = len(data)
        self.count.transactions += -(-size // self.block)
        self.count.payload_bytes += size

    def cleanup(self) -> None:
        pass

    def take(self) -> BusCount:
        """The count since the last ``take``, and start a new one."""
        count, self.count = self.count, BusCount()
        return count


# Commands that take argument bytes, by controller: {first byte: number of arguments}.
_SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA3: 2, 0xA8: 1, 0xD3: 1,
                 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}
# SH1106 has no addressing modes or windows; luma's init also sends the SSD1306 charge pump
# pair (0x8D 0x14) and a lone 0x20, which the chip takes as no-ops.
_SH1106_ARGS = {0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1,
                0xDB: 1}

HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


class ModelPanel(RecordingBus):
    """An SSD1306 or SH1106 that keeps its own display RAM, pointers, contrast and power.

    ``image()`` is the 128×64 window of RAM the panel shows (SH1106: 128 of its 132 columns
    from ``column_offset``), in RAM order; luma's segment remap and COM scan only decide
    how the glass is mounted.
    """

    def __init__(self, controller: str, *, column_offset: int | None = None,
                 block: int = RDWR_BLOCK) -> None:
        super().__init__(block)
        if controller not in ("ssd1306", "sh1106"):
            raise ValueError(f"unknown controller {controller!r}")
        self.controller = controller
        self.columns = 128 if controller == "ssd1306" else 132
        self.column_offset = column_offset if column_offset is not None else (
            0 if controller == "ssd1306" else 2)
        self.ram = [bytearray(self.columns) for _ in range(8)]
        self.on = False
        self.contrast = 0x7F
        self.mode = PAGE  # the SSD1306 reset default
        self.column, self.page = 0, 0
        self.column_window = (0, self.columns - 1)
        self.page_window = (0, 7)

    def command(self, *cmd: int) -> None:
        super().command(*cmd)
        args = _SSD1306_ARGS if self.controller == "ssd1306" else _SH1106_ARGS
        i = 0
        while i < len(cmd):
            op = cmd[i]
            count = args.get(op, 0)
            if i + count >= len(cmd):
                raise ValueError(f"command 0x{op:02X} cut short in {bytes(cmd).hex()}")
            self._execute(op, cmd[i + 1 : i + 1 + count])
            i += 1 + count

    def _execute(self, op: int, args: Sequence[int]) -> None:
        ssd = self.controller == "ssd1306"
        if op in (0xAE, 0xAF):
            self.on = op == 0xAF
        elif op == 0x81:
            self.contrast = args[0]
        elif 0xB0 <= op <= 0xB7 and (not ssd or self.mode == PAGE):
            self.page = op & 0x07
        elif op <= 0x0F and (not ssd or self.mode == PAGE):
            self.column = (self.column & 0xF0) | op
        elif 0x10 <= op <= 0x1F and (not ssd or self.mode == PAGE):
            self.column = (self.column & 0x0F) | (op & 0x0F) << 4
        elif ssd and op == 0x20:
            self.mode = args[0] & 0x03
        elif ssd and op == 0x21:
            self.column_window = (args[0] & 0x7F, args[1] & 0x7F)
            self.column = self.column_window[0]
        elif ssd and op == 0x22:
            self.page_window = (args[0] & 0x07, args[1] & 0x07)
            self.page = self.page_window[0]

    def data(self, data: Sequence[int] | bytes) -> None:
        super().data(data)
        for value in data:
            self._write(value)

    def _write(self, value: int) -> None:
        if self.column < self.columns:
            self.ram[self.page][self.column] = value
        if self.controller == "sh1106":
            self.column = min(self.column + 1, self.columns)  # stops at the end of the page
            return
        first, last = self.column_window
        top, bottom = self.page_window
        if self.mode == PAGE:
            self.column = 0 if self.column >= 127 else self.column + 1
        elif self.mode == HORIZONTAL:
            if self.column >= last:
                self.column = first
                self.page = top if self.page >= bottom else self.page + 1
            else:
                self.column += 1
        elif self.page >= bottom:
            self.page = top
            self.column = first if self.column >= last else self.column + 1
        else:
            self.page += 1

    def image(self) -> Image.Image:
        """The 128×64 RAM window the panel shows, whether or not the panel is on."""
        start = self.column_offset
        pages = [bytes(row[start : start + 128]) for row in self.ram]
        return unpack_pages(pages)


def unpack_pages(pages: Iterable[bytes]) -> Image.Image:
    """A 128×64 mode-'1' image from eight pages of 128 column bytes (bit 0 the top row)."""
    columns = bytearray(1024)
    for page, row in enumerate(pages):
        columns[7 - page :: 8] = row
    return Image.frombytes("1", (64, 128), bytes(columns)).transpose(Image.Transpose.ROTATE_90)
