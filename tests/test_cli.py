"""The ``companion`` command loads only the module of the command it runs, and a game's rules
load without its screens."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from companion.games.catalog import GROUP

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
GAME_FILES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}
# What replaying a file has no use for: the drawing (Pillow, luma), the box's pins and serial
# port, the journal's database and the doctor.
NOT_FOR_A_REPLAY = ("PIL", "luma", "gpiozero", "serial", "sqlite3", "companion.journal",
                    "companion.doctor")

LOADED = """
import contextlib, io, json, sys
from companion import cli
with contextlib.redirect_stdout(io.StringIO()):
    status = cli.main(sys.argv[1:])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}))
"""


def modules_after(*argv: str) -> tuple[int, set[str]]:
    """Run ``companion ARGV`` in a fresh interpreter; its exit status and every module loaded."""
    done = subprocess.run([sys.executable, "-c", LOADED, *argv], capture_output=True, text=True,
                          timeout=60, check=True)
    result = json.loads(done.stdout)
    return result["status"], set(result["modules"])


@pytest.mark.parametrize("game", sorted(GAME_FILES))
@pytest.mark.slow
def test_replay_loads_no_other_command_nor_screens_journal_or_doctor(game):
    status, modules = modules_after("replay", game, str(EXAMPLES / GAME_FILES[game]))
    assert status == 0
    commands = {m for m in modules if m.startswith("companion.commands.")}
    assert commands == {"companion.commands.replay"}
    assert [name for name in NOT_FOR_A_REPLAY if name in modules] == []
    assert sorted(m for m in modules if m.endswith(".screens")) == []


CATALOG = """
import json, sys
from companion.games.catalog import GAMES
before = sorted(sys.modules)
entries = {key: [callable(spec.screens.new_game.resolve()), callable(spec.screens.play.resolve())]
           for key, spec in GAMES.items()}
print(json.dumps({"before": before, "entries": entries, "after": sorted(sys.modules)}))
"""


@pytest.mark.slow
def test_the_catalog_loads_the_screens_only_when_asked():
    """Every spec in the catalog, without Pillow; its screen entry points load them when used."""
    done = subprocess.run([sys.executable, "-c", CATALOG], capture_output=True, text=True,
                          timeout=60, check=True)
    result = json.loads(done.stdout)
    assert [name for name in ("PIL", "luma") if name in result["before"]] == []
    registered = {entry.name for entry in entry_points(group=GROUP)}  # installed plugins too
    assert result["entries"] == {key: [True, True] for key in registered} and GAME_FILES.keys() <= registered
    assert {"PIL", "luma", "companion.games.crazy_cafe.screens"} <= set(result["after"])


@pytest.mark.slow
def test_help_still_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "companion", "--help"], capture_output=True,
                          text=True, timeout=60, check=True)
    for command in ("doctor", "odds", "replay", "run", "screenshot", "sim", "simulate"):
        assert command in done.stdout
