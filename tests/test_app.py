"""The loop: idle dimming, waking without acting, deadlines, toasts, settings that persist."""

from __future__ import annotations

from companion.box.events import Call
from companion.simulator.simbox import SimBox


def test_screen_dims_then_blanks_and_a_press_only_wakes_it(box):
    display = box.app.hardware.display
    box.jump(3 * 60 + 1)
    assert box.app.panel.idle_state == "dim"
    box.jump(12 * 60)
    assert box.app.panel.idle_state == "blank" and not display.powered
    selected = box.screen.selected
    box.press("DOWN")
    assert box.app.panel.idle_state == "awake" and display.powered
    assert box.screen.selected == selected, "the waking press must not act"
    box.press("DOWN")
    assert box.screen.selected != selected


def test_a_screen_that_keeps_awake_never_dims(box):
    box.screen.keeps_awake = True
    box.jump(60 * 60)
    assert box.app.panel.idle_state == "awake"


def test_deadlines_fire_in_order_once(box):
    fired = []
    now = box.clock.now()
    box.app.schedule(now + 2, lambda: fired.append("b"))
    box.app.schedule(now + 1, lambda: fired.append("a"))
    cancelled = box.app.schedule(now + 1.5, lambda: fired.append("x"))
    cancelled.cancel()
    assert box.app.next_deadline() <= now + 1
    box.jump(5)
    box.jump(5)
    assert fired == ["a", "b"]


def test_unchanged_frames_are_not_written_again(box):
    display = box.app.hardware.display
    written = display.frames_written
    box.app.events.put(Call(lambda: None))
    box.app.pump()
    assert display.frames_written == written
    box.press("DOWN")
    assert display.frames_written > written


def test_settings_apply_at_once_and_survive_a_restart(tmp_path):
    box = SimBox(tmp_path)
    box.app.settings.change("volume", 0)
    box.app.settings.change("long_press_s", 1.2)
    assert "🔇" in box.app.panel.status_icons()
    box.app.table.beep("tick")
    assert box.beeps() == []
    box.close()
    box = SimBox(tmp_path)
    try:
        assert box.app.settings.values["volume"] == 0
        assert box.app.settings.decoder.timing.long_press_s == 1.2
    finally:
        box.close()


def test_sound_setting_through_the_screens(box):
    box.screen.selected = [i.label for i in box.screen.items].index("Settings")
    box.press("OK")
    box.press("OK")  # Sound
    box.press("DOWN", long=True)  # hold: repeats down to Mute
    box.press("OK")
    assert box.app.settings.values["volume"] == 0
    assert box.screen.title == "Settings"
    assert box.screen.items[0].detail == "Mute"


def test_a_failing_screen_is_logged_and_the_box_goes_home(box, caplog):
    """Never a traceback on the OLED: an unexpected error returns to the menu with a note."""
    from companion.ui.widgets import Screen

    class Broken(Screen):
        title = "Broken"

        def draw(self, canvas):
            canvas.line(0, "about to fail")

        def on_button(self, event):
            raise ZeroDivisionError("bug")

    box.app.table.push(Broken(box.app.table))
    box.press("OK")
    assert box.app.errors == 1
    assert box.screen.name() == "HomeScreen"
    assert "unexpected error" in caplog.text
    box.press("DOWN")
    assert box.app.running


def test_a_display_write_error_is_counted_and_retried(box):
    """A loose I²C wire must not stop the box: the next frame is tried again."""
    display = box.app.hardware.display
    real_show = display.show
    failures = iter([OSError(121, "Remote I/O error")])

    def flaky_show(image):
        for error in failures:
            raise error
        return real_show(image)

    display.show = flaky_show
    box.press("DOWN")
    assert box.app.panel.display_errors == 1 and box.app.running
    box.press("DOWN")
    assert box.app.panel.display_errors == 1
    assert box.frame() == box.app.panel.last_frame
