"""Game plugins on the box (companion.appliance.plugins): what a wheel registers, read without
running it; the record a slot keeps of the plugins it was built without, as doctor, About and
the box's start show it. Updates with real plugins: tests/test_update_plugins.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.appliance import plugins, slots
from companion.box import updates
from companion.contract.facts import WARN
from companion.doctor import checks
from companion.games import catalog
from companion.simulator.simbox import SimBox
from tests.wheel_files import make_wheel

REPO = Path(__file__).resolve().parent.parent
LEFT = {"oldtally-1.0-py3-none-any.whl": "oldtally: written for plugin contract 1; this box has "
        "contract 2 (see docs/games.md)"}


def test_the_games_a_wheel_registers_are_read_from_its_entry_points(tmp_path):
    wheel = make_wheel(tmp_path, "dice-games", "1.0", {"dice_games.py": "raise SystemExit\n"},
                       entry_points="[table_companion.games]\nTally = dice_games:SPEC\n"
                                    "other = dice_games:OTHER\n[console_scripts]\nx = y:z\n")
    assert plugins.game_keys(wheel) == ["Tally", "other"]
    assert plugins.distribution(wheel) == "dice_games"
    assert plugins.GAMES_GROUP == catalog.GROUP


def test_a_file_that_is_no_game_plugin_is_refused_with_the_reason(tmp_path):
    library = make_wheel(tmp_path, "library", "1.0", {"library.py": ""})
    with pytest.raises(plugins.PluginError, match=r"^library-1\.0-py3-none-any\.whl is not a game "
                       r"plugin: a wheel registering a game in the entry point group "
                       r"table_companion\.games is expected$"):
        plugins.game_keys(library)
    notes = tmp_path / "notes.whl"
    notes.write_text("hello")
    with pytest.raises(plugins.PluginError, match=r"^notes\.whl is not a wheel \("):
        plugins.game_keys(notes)


def test_the_catalog_says_as_json_which_games_this_version_takes():
    done = subprocess.run([sys.executable, "-m", "companion.games.catalog"], capture_output=True,
                          text=True, check=True, cwd="/")
    found = json.loads(done.stdout)
    assert {"makan", "cafe", "miams"} <= set(found["games"]) and found["left_out"] == {}


def test_a_slot_without_a_record_left_nothing_out(tmp_path):
    assert slots.plugins_left_out(tmp_path) == {}
    plugins.write_record(tmp_path, {"kept": [], "left_out": LEFT})
    assert slots.plugins_left_out(tmp_path) == LEFT


def test_doctor_and_the_box_name_a_plugin_the_update_left_out(monkeypatch):
    monkeypatch.setattr(checks, "plugins_left_out", lambda: LEFT)
    monkeypatch.setattr(updates, "plugins_left_out", lambda: LEFT)
    found = [f for f in checks.check_games(checks.config_module.load(None)) if f.check == "plugin"]
    assert [(f.level, f.detail) for f in found] == [(WARN, (
        "oldtally-1.0-py3-none-any.whl was left out when this version was installed: oldtally: "
        "written for plugin contract 1; this box has contract 2 (see docs/games.md)"))]
    assert found[0].fix == ("install a version of it for this release: sudo companion-update "
                            "--plugin FILE.whl")
    health = updates.plugins_health()
    assert health is not None and health.error
    assert health.lines == ("Update left out:", "oldtally")
    monkeypatch.setattr(updates, "plugins_left_out", dict)
    assert updates.plugins_health() is None


def test_the_box_says_at_start_which_plugin_the_update_left_out(tmp_path, monkeypatch):
    monkeypatch.setattr(updates, "plugins_left_out", lambda: LEFT)
    box = SimBox(tmp_path / "state")
    try:
        assert box.app.stack.toast_lines == ["Update left out:", "oldtally"]
        assert box.buzzer.played[-1][1] == "error"
    finally:
        box.close()
