"""The OLED's last word when the box cannot run (companion/appliance/stopped.py): why, in words,
from what systemd passes an OnFailure= unit, or the data partition missing; drawn whole on a
luma device and left there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import ImageChops

from companion.appliance import stopped
from companion.frame.font import BitmapFont

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("env", "said"), [
    ({"MONITOR_SERVICE_RESULT": "start-limit-hit"}, "it failed 5 times in 10 minutes."),
    ({"MONITOR_SERVICE_RESULT": "exit-code", "MONITOR_EXIT_STATUS": "2"},
     "a setting in config.toml is wrong."),
    ({"MONITOR_SERVICE_RESULT": "watchdog"}, "it stopped answering (watchdog)."),
    ({"MONITOR_SERVICE_RESULT": "exit-code", "MONITOR_EXIT_STATUS": "9"},
     "it ended with status 9."),
    ({"MONITOR_SERVICE_RESULT": "something-new"}, "systemd gave up restarting it."),
])
def test_why_systemd_gave_up_is_said_in_words(env, said):
    assert stopped.reason(env) == said


def test_a_missing_data_partition_comes_first_and_a_sound_boot_says_nothing():
    assert stopped.reason({}, data_there=False) == stopped.NO_DATA
    assert stopped.reason({"MONITOR_SERVICE_RESULT": "exit-code", "MONITOR_EXIT_STATUS": "203"},
                          data_there=False) == stopped.NO_DATA
    assert stopped.reason({}) is None


@pytest.mark.parametrize("why", [*stopped.RESULTS.values(), *stopped.EXIT_STATUS.values(),
                                 stopped.NO_DATA])
def test_every_reason_is_drawn_whole(why, monkeypatch):
    """Every word of every reason and its next step on the 128×64 panel: nothing cut, nothing
    past the last line."""
    drawn: list[str] = []
    draw, fit = BitmapFont.draw, BitmapFont.fit

    def spy_draw(self, image, xy, text, fill=255):
        drawn.append(text)
        return draw(self, image, xy, text, fill)

    monkeypatch.setattr(BitmapFont, "draw", spy_draw)
    monkeypatch.setattr(BitmapFont, "fit", lambda self, text, width: (
        text if fit(self, text, width) == text else pytest.fail(f"cut: {text!r}")))
    stopped.frame(why)
    words = " ".join(drawn).split()
    expected = f"{stopped.TITLE} {why} {stopped.NO_DATA_NEXT if why == stopped.NO_DATA else stopped.NEXT}"
    assert set(expected.lower().split()) <= {w.lower() for w in words}
    assert stopped.HINT in drawn


def test_the_frame_stays_on_the_panel_after_the_process_ends():
    """luma clears a device at exit unless it persists: the reason must stay."""
    device = dummy(width=128, height=64, mode="1")
    image = stopped.frame(stopped.RESULTS["start-limit-hit"])
    stopped.show(image, device)
    assert device.persist is True
    assert ImageChops.difference(device.image.convert("1"), image.convert("1")).getbbox() is None


def test_the_command_draws_only_when_something_is_wrong(tmp_path):
    png = tmp_path / "frame.png"
    run = [sys.executable, "-m", "companion.appliance.stopped", "--png", str(png),
           "--config", str(tmp_path / "none.toml")]
    quiet = subprocess.run([*run, "--data", "/"], capture_output=True, text=True, cwd=REPO,
                           env={"PATH": "/usr/bin:/bin"})
    assert (quiet.returncode, quiet.stdout, png.exists()) == (0, "", False)
    missing = subprocess.run([*run, "--data", str(tmp_path / "data")], capture_output=True,
                             text=True, cwd=REPO, env={"PATH": "/usr/bin:/bin"})
    assert missing.returncode == 0 and png.exists()
    assert missing.stdout == f"{stopped.TITLE} — {stopped.NO_DATA}\n"


def test_a_broken_config_still_leaves_the_display_settings(tmp_path):
    """The box may have stopped for a bad config.toml: the screen still finds its panel."""
    bad = tmp_path / "config.toml"
    bad.write_text("[display]\ndriver = 'sh1106'\n[buttons]\nup = 'five'\n")
    assert stopped.display_settings(bad).driver == "sh1106"
    bad.write_text("[display]\ndriver = 'nokia'\n")
    assert stopped.display_settings(bad).driver == "ssd1306"   # the default, not a crash
    bad.write_text("not toml at all [")
    assert stopped.display_settings(bad).driver == "ssd1306"
