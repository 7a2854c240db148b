"""The ``companion`` command loads only the module of the command it runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "makan_4p.jsonl"

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


def test_replay_loads_no_other_command_nor_the_journal_or_doctor():
    status, modules = modules_after("replay", "makan", str(EXAMPLE))
    assert status == 0
    commands = {m for m in modules if m.startswith("companion.commands.")}
    assert commands == {"companion.commands.replay"}
    for heavy in ("sqlite3", "companion.journal", "companion.doctor", "gpiozero", "serial"):
        assert heavy not in modules, heavy


def test_help_still_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "companion", "--help"], capture_output=True,
                          text=True, timeout=60, check=True)
    for command in ("doctor", "odds", "replay", "run", "screenshot", "sim", "simulate"):
        assert command in done.stdout
