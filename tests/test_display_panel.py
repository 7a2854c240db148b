"""The page-diff writer on luma.oled's own driver classes, checked against a model panel."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from luma.core.interface.serial import spi
from luma.oled.device import sh1106, ssd1306
from PIL import Image, ImageDraw

from hardware.display import OledDisplay, PageDiffDisplay, changed_columns, pack_pages
from hardware.model_panel import SMBUS_BLOCK, BusCount, ModelPanel, unpack_pages

DRIVERS = {"ssd1306": ssd1306, "sh1106": sh1106}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def panel(controller: str, rotate: int = 0, clock: Clock | None = None, guard_s: float = 300.0):
    model = ModelPanel(controller)
    device = DRIVERS[controller](model, width=128, height=64, rotate=rotate)
    return model, PageDiffDisplay(device, controller, clock or Clock(), guard_s=guard_s)


def shown(display: PageDiffDisplay, image: Image.Image) -> bytes:
    """What the panel's RAM must hold for ``image``: luma's rotation applied."""
    return display.device.preprocess(image.convert("1")).tobytes()


def frame(shapes, size=(128, 64)) -> Image.Image:
    image = Image.new("1", size, 0)
    draw = ImageDraw.Draw(image)
    for x, y, w, h, ink in shapes:
        draw.rectangle((x, y, x + w, y + h), fill=255 if ink else 0)
    return image


shape = st.tuples(st.integers(0, 127), st.integers(0, 127), st.integers(0, 40),
                  st.integers(0, 20), st.booleans())
step = st.one_of(
    st.tuples(st.just("frame"), st.lists(shape, max_size=6)),
    st.tuples(st.just("contrast"), st.integers(0, 255)),
    st.tuples(st.just("power"), st.booleans()),
    st.tuples(st.just("wait"), st.floats(0, 400)),
)


@settings(max_examples=150, deadline=None)
@given(controller=st.sampled_from(sorted(DRIVERS)), rotate=st.sampled_from([0, 1, 2, 3]),
       steps=st.lists(step, min_size=1, max_size=25))
@pytest.mark.slow
def test_after_any_frames_and_power_or_contrast_changes_the_panel_holds_the_last_frame(
        controller, rotate, steps):
    clock = Clock()
    model, display = panel(controller, rotate, clock)
    size = (display.width, display.height)
    last, contrast, powered = None, model.contrast, True
    for kind, value in steps:
        if kind == "frame":
            last = frame(value, size)
            display.show(last)
        elif kind == "contrast":
            display.set_contrast(value)
            contrast = value
        elif kind == "power":
            display.set_power(value)
            powered = value
        else:
            clock.now += value
        if last is not None:
            assert model.image().tobytes() == shown(display, last)
        assert model.contrast == contrast
        assert model.on == powered


@pytest.mark.parametrize("controller", sorted(DRIVERS))
def test_the_writer_and_lumas_full_frame_write_leave_the_same_ram(controller):
    image = frame([(3, 5, 40, 12, True), (60, 30, 20, 30, True), (70, 35, 4, 4, False)])
    luma_model = ModelPanel(controller)
    device = DRIVERS[controller](luma_model)
    OledDisplay(device).show(image)
    model, display = panel(controller)
    display.show(frame([(0, 0, 127, 63, True)]))
    display.show(image)
    assert model.ram == luma_model.ram
    assert model.image().tobytes() == image.tobytes()


@pytest.mark.parametrize("controller", sorted(DRIVERS))
def test_one_changed_pixel_sends_one_column_of_one_page(controller):
    model, display = panel(controller)
    image = frame([(10, 10, 30, 30, True)])
    display.show(image)
    model.take()
    image.putpixel((100, 50), 255)
    display.show(image)
    sent = model.take()
    assert sent.transactions == 2  # the window, then its one byte
    assert sent.payload_bytes == (6 if controller == "ssd1306" else 3) + 1


def test_changed_pages_of_an_ssd1306_share_one_window():
    model, display = panel("ssd1306")
    display.show(frame([]))
    model.take()
    display.show(frame([(40, 20, 17, 23, True)]))  # rows 20..43: pages 2 to 5, 18 columns
    sent = model.take()
    assert (sent.transactions, sent.payload_bytes) == (2, 6 + 4 * 18)


@pytest.mark.parametrize("controller", sorted(DRIVERS))
def test_wake_contrast_and_the_guard_send_the_whole_frame(controller):
    clock = Clock()
    model, display = panel(controller, clock=clock, guard_s=60)
    image = frame([(5, 5, 5, 5, True)])
    display.show(image)
    assert display.full_writes == 1
    # The panel's RAM is glitched; only a whole write can repair it.
    model.ram[4][:] = bytes(range(len(model.ram[4])))
    display.set_power(False)
    display.set_power(True)
    assert display.full_writes == 2 and model.image().tobytes() == image.tobytes()
    model.take()
    display.set_contrast(9)  # dimming an idle screen sends only the contrast
    assert model.take().transactions == 1
    display.show(frame([(6, 6, 5, 5, True)]))
    assert display.full_writes == 3
    clock.now += 59
    display.show(image)
    assert display.full_writes == 3
    clock.now += 1
    display.show(frame([(6, 6, 5, 5, True)]))
    assert display.full_writes == 4


def test_a_full_frame_costs_what_lumas_i2c_class_sends():
    """luma's i2c class sends data in 32-byte SMBus blocks on a bus it is given, and in one
    i2c_rdwr message of up to 4096 bytes on the bus it opens itself (the box's case)."""
    for block, transactions in ((SMBUS_BLOCK, 1 + 32), (4096, 1 + 1)):
        model = ModelPanel("ssd1306", block=block)
        device = ssd1306(model)
        model.take()
        device.display(frame([(0, 0, 9, 9, True)]))
        sent = model.take()
        assert (sent.transactions, sent.payload_bytes) == (transactions, 6 + 1024)


def test_bus_time_counts_nine_clocks_a_byte_and_a_start_and_stop_a_transaction():
    count = BusCount(transactions=2, payload_bytes=10)
    assert count.wire_bytes == 14
    assert count.seconds(100_000) == pytest.approx((14 * 9 + 4) / 100_000)


def test_packing_and_column_windows():
    image = frame([(17, 9, 0, 0, True)])
    pages = pack_pages(image)
    assert pages[1][17] == 0b10 and sum(map(sum, pages)) == 2
    assert unpack_pages(pages).tobytes() == image.tobytes()
    assert changed_columns(pages[1], pack_pages(frame([]))[1]) == (17, 17)
    assert changed_columns(pages[0], pages[0]) is None


class SpiPins:
    """Stands in for RPi.GPIO and spidev under luma's spi class: D/C low is a command."""

    LOW, HIGH, OUT, BCM = 0, 1, 0, 11

    def __init__(self, model: ModelPanel) -> None:
        self.model, self.dc = model, 0

    def open(self, port, device): ...
    def setmode(self, mode): ...
    def setwarnings(self, flag): ...
    def setup(self, pin, mode): ...
    def cleanup(self, *pins): ...

    def output(self, pin, value):
        if pin == 24:
            self.dc = value

    def writebytes(self, data):
        if self.dc:
            self.model.data(list(data))
        else:
            self.model.command(*data)

    def close(self): ...


@pytest.mark.parametrize("controller", sorted(DRIVERS))
def test_the_writer_drives_an_spi_panel_through_lumas_spi_class(controller):
    model = ModelPanel(controller)
    pins = SpiPins(model)
    serial = spi(spi=pins, gpio=pins, gpio_DC=24, gpio_RST=25)
    display = PageDiffDisplay(DRIVERS[controller](serial), controller, Clock())
    for shapes in ([(0, 0, 50, 50, True)], [(20, 20, 60, 10, True)]):
        display.show(frame(shapes))
        assert model.image().tobytes() == frame(shapes).tobytes()
