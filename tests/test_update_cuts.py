"""The emulated box's power cuts amid an update follow the updater's own messages: they must
be the updater's, in its order (else the bench would wait for a message that never comes)."""

from __future__ import annotations

import ast
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
