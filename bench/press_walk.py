"""The walk of one button press through the box's code, traced, not timed.

A Miams game is started on the simulator (its journal on disk); then the first press of the
player's turn that writes the journal is pressed for real (mock pin, gpiozero's callback, the
queue, the decoder, the screen, the rules, the journal, the frame) with ``sys.setprofile``
watching the two loop turns that take its pin edges (down and up). Only the project's own code
is counted (``companion/``, ``hardware/``, ``firmware_bridge/``):

- ``press_files``: the project's files the press runs code in;
- ``press_functions``: the project's functions it calls (each once);
- ``press_returns``: the returns from the project's functions on the way (drawing included);
- ``press_app_visits``: the times the walk enters ``companion/box/app.py`` from elsewhere;
- ``press_journal_visits``: the times it enters ``companion/journal/`` from elsewhere;
- ``press_frames_rendered``: frames composed (``companion.frame.canvas.compose``) for the press;
  ``press_frames_written``: those the display wrote (a frame equal to the last is not sent);
- ``app_members``: what the class ``App`` defines (methods and properties, ``__init__`` too);
  ``app_attributes``: the attributes an ``App`` sets on itself; ``app_forwarders``: its methods
  and properties whose body only hands on to one of its parts (``return self.part.x(...)``).

    python bench/press_walk.py [--json] [--quick]

Prints JSON (``--json`` and ``--quick`` change nothing: the walk is one press, always).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

from companion.box.app import App
from companion.games.miams import STARTED, quiet_turns
from companion.simulator.simbox import PRESS_S, SimBox
from companion.simulator.walk import run_steps

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tuple(str(ROOT / part) + "/" for part in ("companion", "hardware", "firmware_bridge"))
APP_FILE = str(ROOT / "companion" / "box" / "app.py")
JOURNAL_DIR = str(ROOT / "companion" / "journal") + "/"
COMPOSE = (str(ROOT / "companion" / "frame" / "canvas.py"), "compose")


class Walk:
    """What a ``sys.setprofile`` hook saw of the project's code."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.functions: set[tuple[str, int]] = set()
        self.returns = 0
        self.app_visits = 0
        self.journal_visits = 0
        self.rendered = 0

    def hook(self, frame: FrameType, event: str, _arg: Any) -> None:
        path = frame.f_code.co_filename
        if not path.startswith(PROJECT):
            return
        if event == "return":
            self.returns += 1
            return
        if event != "call":
            return
        self.files.add(path)
        self.functions.add((path, frame.f_code.co_firstlineno))
        caller = frame.f_back.f_code.co_filename if frame.f_back else ""
        if path == APP_FILE and caller != APP_FILE:
            self.app_visits += 1
        if path.startswith(JOURNAL_DIR) and not caller.startswith(JOURNAL_DIR):
            self.journal_visits += 1
        if (path, frame.f_code.co_name) == COMPOSE:
            self.rendered += 1


def traced_press(box: SimBox, button: str) -> tuple[Walk, int]:
    """Press ``button`` with the two loop turns that take its edges traced; the walk and the
    frames the display wrote meanwhile."""
    walk = Walk()
    shown = box.app.panel.frames_shown
    box.finger.down(button)
    sys.setprofile(walk.hook)
    box.app.pump()
    sys.setprofile(None)
    box.advance(PRESS_S)
    box.finger.up(button)  # the press acts on release
    sys.setprofile(walk.hook)
    box.app.pump()
    sys.setprofile(None)
    written = box.app.panel.frames_shown - shown
    box.advance(PRESS_S)
    return walk, written


def journaled_press(folder: Path) -> dict[str, Any]:
    """The first press of a started Miams game's first turn that writes the journal."""
    box = SimBox(folder)
    try:
        run_steps(box, STARTED)
        for button in quiet_turns(1):
            played = len(_actions(box))
            walk, written = traced_press(box, button)
            if len(_actions(box)) > played:
                return {
                    "press": f"{button}, {box.screen.name()}",
                    "press_files": len(walk.files),
                    "press_functions": len(walk.functions),
                    "press_returns": walk.returns,
                    "press_app_visits": walk.app_visits,
                    "press_journal_visits": walk.journal_visits,
                    "press_frames_rendered": walk.rendered,
                    "press_frames_written": written,
                }
        raise RuntimeError("no press of the first turn wrote the journal")
    finally:
        box.close()


def _actions(box: SimBox) -> list[Any]:
    session = box.app.play.session
    if session is None:
        raise RuntimeError("the walk's game is not running")
    return session.actions


def app_members() -> dict[str, int]:
    """What ``App`` defines, sets on itself, and only hands on to a part."""
    source = inspect.getsource(App)
    cls = ast.parse(source).body[0]
    if not isinstance(cls, ast.ClassDef):
        raise TypeError("App is not a class")
    functions = [node for node in cls.body if isinstance(node, ast.FunctionDef)]
    attributes = {target.attr for node in ast.walk(cls) if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                  and target.value.id == "self"}
    return {"app_members": len({f.name for f in functions}),
            "app_attributes": len(attributes),
            "app_forwarders": sum(_forwards(f) for f in functions)}


def _forwards(function: ast.FunctionDef) -> bool:
    """The body (its docstring aside) is one statement that reaches ``self.part.…`` only."""
    body = [node for node in function.body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Call):
        value = value.func
    return (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute)
            and isinstance(value.value.value, ast.Name) and value.value.value.id == "self")


def measure() -> dict[str, Any]:
    """The press's walk and ``App``'s members."""
    with tempfile.TemporaryDirectory() as folder:
        return {**journaled_press(Path(folder)), **app_members()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON (the only output)")
    parser.add_argument("--quick", action="store_true", help="the same one press (it is quick)")
    parser.parse_args(argv)
    print(json.dumps(measure()))


if __name__ == "__main__":
    main()
