"""Settings: volume/mute, contrast, long-press time, the dice (the sensor's status, smart dice
paired and found: :mod:`.dice`), and which roster player is the box's user."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.screens.dice import DiceScreen
from companion.screens.me import ask_me, me_label
from companion.ui.widgets import (
    InfoScreen,
    MenuItem,
    MenuScreen,
    MessageScreen,
    StepperScreen,
)

if TYPE_CHECKING:
    from companion.contract.spec import BoxTable

VOLUME_NAMES = ("Mute", "Quiet", "Medium", "Loud")


class SettingsScreen(MenuScreen):

    app: BoxTable
    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Settings", [])
        self.on_enter()

    def on_enter(self) -> None:
        s = self.app.settings
        sensor = self.app.sensor
        sensor_text = "none" if not sensor.configured else ("online" if sensor.online else "offline")
        self.items = [
            MenuItem("Sound", self._volume, VOLUME_NAMES[s["volume"]]),
            MenuItem("Contrast", self._contrast, f"{s['contrast']}/255"),
            MenuItem("Long press", self._long_press, f"{s['long_press_s']:.1f}s"),
            MenuItem("Dice", lambda: self.app.push(DiceScreen(self.app, self._sensor)), sensor_text),
            MenuItem("Me", lambda: ask_me(self.app, lambda: None), me_label(self.app)),
        ]

    def _volume(self) -> None:
        app = self.app

        def set_volume(value: int) -> None:
            app.change_setting("volume", value)
            app.beep("ok")
            app.pop()

        app.push(StepperScreen(app, "Sound", "Buzzer volume", app.settings["volume"], 0,
                               len(VOLUME_NAMES) - 1, set_volume, shown=VOLUME_NAMES.__getitem__))

    def _contrast(self) -> None:
        app = self.app

        def set_contrast(value: int) -> None:
            app.change_setting("contrast", value)
            app.pop()

        # The config's unit (0..255), so the box and config.toml show the same number.
        app.push(StepperScreen(app, "Contrast", "Level 0..255",
                               app.settings["contrast"], 0, 255, set_contrast, step=15))

    def _long_press(self) -> None:
        app = self.app

        def set_long(tenths: int) -> None:
            app.change_setting("long_press_s", tenths / 10)
            app.pop()

        app.push(StepperScreen(app, "Long press", "Hold time to count long",
                               round(app.settings["long_press_s"] * 10), 5, 20, set_long,
                               shown=lambda tenths: f"{tenths / 10:.1f}s"))

    def _sensor(self) -> None:
        sensor = self.app.sensor
        if not sensor.configured:
            lines = ["No dice read the table.", "Find dice pairs smart", "dice; or set [sensor]",
                     "port in config.toml"]
            self.app.push(MessageScreen(self.app, "Dice sensor", lines))
            return

        def rows() -> list[tuple[str, str]]:
            """Read at every frame: counts climb live while the cable is wiggled."""
            kinds = dict.fromkeys(sensor.kinds)
            dice = " ".join(f"{sensor.kinds.count(k)} {k}" for k in kinds)
            out = [("Status", "online" if sensor.online else "offline"),
                   ("Id", sensor.sensor_id or "-"), ("Firmware", sensor.firmware or "-"),
                   ("Dice", dice or "-")]
            if sensor.battery:
                out.append(("Battery", " ".join("-" if level is None else f"{level}%"
                                                for level in sensor.battery)))
            # the biggest counts first: what an installer should look at (cable, baud, noise)
            counts = sorted(((v, k) for k, v in sensor.counters.items() if v), reverse=True)
            out += [(name.replace("_", " ").capitalize(), str(count)) for count, name in counts]
            out += [] if counts else [("Errors", "none")]
            if sensor.last_problem:
                out += [("Last problem:", ""), (sensor.last_problem, "")]
            return out

        self.app.push(InfoScreen(self.app, "Dice sensor", rows))
