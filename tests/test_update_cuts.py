"""The emulated box's power cuts amid an update follow the updater's own messages: they must
be the updater's, in its order (else the bench would wait for a message that never comes)."""

from __future__ import annotations

import ast
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import update_cuts_guest  # noqa: E402


def said_by(function: ast.FunctionDef) -> list[str]:
    """The start (up to its first placeholder) of each message ``function`` says, in order."""
    starts = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "say":
            text = node.args[0]
            while isinstance(text, ast.BinOp):  # "..." + ("..." if ... else "")
                text = text.left
            first = text.values[0] if isinstance(text, ast.JoinedStr) else text
            starts.append((node.lineno, str(first.value) if isinstance(first, ast.Constant) else ""))
    return [start for _, start in sorted(starts)]


def test_the_cuts_follow_the_updaters_messages_in_their_order():
    """"watch the updater's own messages in the guest ... and cut QEMU (1) during the slot
    build ... and (2) during the switch" (issue 36)."""
    tree = ast.parse((REPO / "companion/appliance/update.py").read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    messages = [start for name in ("install", "_try") for start in said_by(functions[name])
                if not start.startswith("the plugin ")]  # said only for a plugin left out
    assert len(messages) == len(update_cuts_guest.MESSAGES)
    for start, expected in zip(messages, update_cuts_guest.MESSAGES, strict=True):
        assert start.startswith(expected), (start, expected)
    assert set(update_cuts_guest.SWITCH_CUTS.values()) <= set(update_cuts_guest.MESSAGES)


def test_a_scripted_play_counts_its_seconds_from_its_start_and_is_killed_whole(tmp_path):
    """A play slow to start (Python's imports beside the updater's pip, under TCG) still plays
    its seconds once its start report is out; then the SIGKILL takes the whole session, as a
    power cut takes the box (none of it plays on beside the next start)."""
    import subprocess
    import time

    import appliance

    alive = tmp_path / "alive"
    child = [sys.executable, "-c",
             "import sys, time\n"
             "time.sleep(1.5)\n"  # a start slower than the play's seconds
             "print('{\"start\": {}}', flush=True)\n"
             "while True:\n"
             f"    open({str(alive)!r}, 'a').write('x')\n"
             "    print('{\"n\": 1}', flush=True)\n"
             "    time.sleep(0.1)\n"]
    pid, started = tmp_path / "play.pid", tmp_path / "started"
    # a process between the launch and Python, as systemd-run is in the box; the whole session
    # killed, as the box's `systemctl kill` takes the play's whole unit
    launch = f"setsid sh -c {shlex.quote(f'echo $$ > {pid}; exec ' + shlex.join(child))}"
    script = appliance.PLAY_SH.format(started=started, launch=launch,
                                      kill=f"kill -KILL -$(cat {pid})", start_s=30, seconds=1)
    lines = subprocess.run(script, shell=True, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    assert lines[0] == '{"start": {}}'
    assert '{"n": 1}' in lines[1:]  # it played after a start that outlasted its seconds
    written = alive.read_text()
    time.sleep(0.5)
    assert alive.read_text() == written  # nothing of it left playing


def test_a_play_stopped_before_its_seconds_leaves_no_killer_for_the_next(tmp_path):
    """A play the updater's stop of the box ended early: its killer must not outlive it, or
    its kill would take the next play."""
    import subprocess
    import time

    import appliance

    killed = tmp_path / "killed"
    child = [sys.executable, "-c", "print('{\"start\": {}}', flush=True)"]  # over at once
    script = appliance.PLAY_SH.format(started=tmp_path / "started", launch=shlex.join(child),
                                      kill=f"touch {killed}", start_s=30, seconds=1)
    lines = subprocess.run(script, shell=True, capture_output=True, text=True,
                           timeout=60).stdout.splitlines()
    assert lines == ['{"start": {}}']
    time.sleep(2)  # past its seconds
    assert not killed.exists()
