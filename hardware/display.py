"""The OLED: a luma.core device behind a frame-change check."""

from __future__ import annotations

from PIL import Image


class OledDisplay:
    """Writes a frame to a luma device only when it differs from the last one.

    luma's monochrome drivers always push the whole 1 KB frame over I²C, so skipping
    unchanged frames is what keeps the bus (and the loop) quiet.
    """

    def __init__(self, device: object) -> None:
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
        self._device.display(image)
        self._last = data
        self.frames_written += 1
        return True

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
    def device(self) -> object:
        return self._device

    def close(self) -> None:
        # luma clears the panel on cleanup; keep the last frame (e.g. "powered off") instead.
        self._device.persist = True
        self._device.cleanup()
