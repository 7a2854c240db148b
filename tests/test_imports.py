"""The import graph of companion/, hardware/ and firmware_bridge/ keeps the lines drawn in
docs/architecture.md: no circle, no arrow the wrong way, and no module too long to read.

Read from the source with ``ast``, so an import under ``TYPE_CHECKING`` or inside a function
counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "hardware", "firmware_bridge")
MAX_LINES = 450
# The box's side of the Table: what games, screens and the UI toolkit must never import.
APP_SIDE = ("companion.box", "companion.simulator.simbox")
# The dice vocabulary the firmware shares: the only part of firmware_bridge a game may import.
DICE_WORDS = ("firmware_bridge.faces", "firmware_bridge.events")


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = {_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _under(module: str, prefixes: tuple[str, ...] | str) -> bool:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def imports_of(module: str) -> set[str]:
    """The project modules ``module`` imports: ``from pkg import name`` counts as the submodule
    ``pkg.name`` when there is one, else as ``pkg``."""
    path = FILES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                found.add(f"{source}.{alias.name}" if f"{source}.{alias.name}" in FILES else source)
    return {target for target in found if target in FILES and target != module}


GRAPH = {module: imports_of(module) for module in FILES}


def _crossings(rule: str, sources: tuple[str, ...], allowed=None, forbidden=None) -> list[str]:
    out = []
    for module in sorted(GRAPH):
        if not _under(module, sources):
            continue
        for target in sorted(GRAPH[module]):
            if (forbidden and _under(target, forbidden)) or (allowed and not allowed(target)):
                out.append(f"{module} imports {target} ({rule})")
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_graph_is_read():
    """The reader sees what it must: relative, TYPE_CHECKING and function-level imports."""
    assert "companion.games.base" in GRAPH["companion.ui.widgets"]
    assert "companion.games.makan_mania.rules.state" in GRAPH["companion.games.makan_mania.rules"]
    assert "companion.screens.settings" in GRAPH["companion.screens.home"]  # inside a method
    assert "companion.games.base" in GRAPH["companion.games.miams.screens"]  # TYPE_CHECKING
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_circle():
    assert _circles(GRAPH) == []


def test_games_screens_and_ui_talk_to_the_table_not_the_app_or_the_hardware():
    sources = ("companion.games", "companion.screens", "companion.ui")
    assert _crossings("use companion.games.base.Table", sources, forbidden=APP_SIDE) == []
    assert _crossings("hardware belongs to the app", sources, forbidden=("hardware",)) == []


def test_hardware_and_firmware_bridge_import_nothing_from_companion():
    assert _crossings("adapters never import the product", ("hardware", "firmware_bridge"),
                      forbidden=("companion",)) == []


def test_games_import_only_the_dice_vocabulary_from_firmware_bridge():
    def allowed(target: str) -> bool:
        return not _under(target, "firmware_bridge") or _under(target, DICE_WORDS)

    assert _crossings("only faces and events", ("companion.games",), allowed=allowed) == []


@pytest.mark.parametrize("module", sorted(FILES))
def test_no_module_is_too_long_to_read(module):
    lines = FILES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{FILES[module].relative_to(ROOT)} has {lines} lines; split it by concern"


def test_the_app_offers_everything_a_screen_may_ask(tmp_path):
    """Screens see the box only as a Table; App must have every attribute and method of it."""
    from companion.games.base import Table
    from companion.simulator.simbox import SimBox

    members = set(Table.__annotations__) | {
        name for name, value in vars(Table).items() if callable(value) and not name.startswith("_")
    }
    box = SimBox(tmp_path)
    try:
        assert sorted(m for m in members if not hasattr(box.app, m)) == []
        assert {"dispatch", "push", "schedule", "clock", "rng", "sensor"} <= members
    finally:
        box.close()
