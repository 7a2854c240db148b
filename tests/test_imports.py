"""The import graph of companion/, hardware/ and firmware_bridge/ keeps the lines drawn in
docs/architecture.md: no circle, no arrow the wrong way, and no module too long to read.

Read from the source with ``ast``, so an import under ``TYPE_CHECKING`` or inside a function
counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from companion.games.catalog import GROUP

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
    assert "companion.contract.spec" in GRAPH["companion.ui.widgets"]
    assert "companion.games.makan_mania.rules.state" in GRAPH["companion.games.makan_mania.rules"]
    assert "companion.screens.settings" in GRAPH["companion.screens.home"]  # inside a method
    assert "companion.contract.spec" in GRAPH["companion.games.miams.screens"]  # TYPE_CHECKING
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_circle():
    assert _circles(GRAPH) == []


def part_of(module: str) -> str:
    """The part a module belongs to: its subpackage of companion/ (or the flat module itself),
    else its top package (``hardware``, ``firmware_bridge``)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "companion" else parts[0]


def parts_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Which part imports which: one arrow for any import between two of their modules."""
    out: dict[str, set[str]] = {part_of(module): set() for module in graph}
    for module, targets in graph.items():
        out[part_of(module)] |= {part_of(t) for t in targets} - {part_of(module)}
    return out


def test_the_parts_graph_is_read():
    graph = {"companion.cli": {"companion.commands"}, "companion.commands": set(),
             "companion.commands.run": {"companion.cli", "hardware.ports"}, "hardware.ports": set()}
    assert parts_graph(graph) == {"companion.cli": {"companion.commands"},
                                  "companion.commands": {"companion.cli", "hardware"}, "hardware": set()}
    assert _circles(parts_graph(graph)) == [["companion.cli", "companion.commands"]]


def test_no_two_parts_import_each_other_or_circle():
    """No circle between parts either, not even through a type hint or a function's import:
    ``companion.cli`` and ``companion.commands``, ``companion.web``, the contract and the UI…
    each only imports downward."""
    assert _circles(parts_graph(GRAPH)) == []


# What may sit flat in companion/: the ``companion`` command's entry points.
FLAT = {"__init__.py", "__main__.py", "cli.py"}


def test_no_module_sits_flat_in_companion():
    """A module goes into the subpackage of its part; a new part is a new subpackage."""
    flat = {path.name for path in (ROOT / "companion").glob("*.py")}
    assert "cli.py" in flat
    assert sorted(flat - FLAT) == []


def test_games_screens_and_ui_talk_to_the_table_not_the_app_or_the_hardware():
    sources = ("companion.games", "companion.screens", "companion.ui")
    assert _crossings("use companion.contract.spec.Table", sources, forbidden=APP_SIDE) == []
    assert _crossings("hardware belongs to the app", sources, forbidden=("hardware",)) == []


# The layers below the UI: they hand back facts (dataclasses, enums, numbers) and the UI and
# the commands word them.
BELOW_THE_UI = ("companion.journal", "companion.records", "companion.contract")


def reached_from(sources: tuple[str, ...], graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Every module an import path from ``sources`` reaches, with the first such path."""
    paths = {module: [module] for module in graph if _under(module, sources)}
    todo = list(paths)
    while todo:
        module = todo.pop()
        for target in sorted(graph[module]):
            if target not in paths:
                paths[target] = [*paths[module], target]
                todo.append(target)
    return paths


def test_the_layers_below_the_ui_reach_none_of_it():
    """The journal, its check, the records and the contract give facts; the UI words them.
    Indirect imports count: a record importing a helper that imports ``ui.words`` fails too."""
    reached = reached_from(BELOW_THE_UI, GRAPH)
    upward = [" -> ".join(path) for module, path in sorted(reached.items())
              if _under(module, "companion.ui")]
    assert upward == []


def test_an_import_of_the_ui_from_below_is_caught():
    graph = {"companion.journal.x": {"companion.records.y"}, "companion.records.y":
             {"companion.ui.words"}, "companion.ui.words": set()}
    assert reached_from(("companion.journal",), graph)["companion.ui.words"] == [
        "companion.journal.x", "companion.records.y", "companion.ui.words"]
    assert "companion.ui.words" not in reached_from(("companion.records",), {
        **graph, "companion.records.y": set()})


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


# ----- a game is one folder: nothing outside companion/games/ knows one ---------------------

GAMES_DIR = ROOT / "companion" / "games"
GAME_PACKAGES = sorted(p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file())
# Every registered game's key (the entry points' names: the plugins installed too) and every
# game package's name.
GAME_WORDS = frozenset(GAME_PACKAGES) | {entry.name for entry in entry_points(group=GROUP)} | {
    part for name in GAME_PACKAGES for part in name.split("_")}
# The modules of companion/games/ that are no game: the package, the catalog of the games and
# the box's config with their sections.
NO_GAME = ("companion.games", "companion.games.catalog", "companion.games.box_config")
OUTSIDE = sorted(module for module in FILES if not _under(module, "companion.games") or module in NO_GAME)
TEMPLATES = sorted(path for folder in ("companion/web/templates", "companion/web/static")
                   for path in (ROOT / folder).iterdir() if path.is_file())


def _words(text: str) -> set[str]:
    return set(re.split(r"[^A-Za-z0-9]+", text))


def names_a_game(source: str) -> set[str]:
    """The game words a module's code says: in a string (docstrings too), a name or an
    attribute; comments are not code and say what they like."""
    said: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            said |= _words(node.value)
        elif isinstance(node, ast.Name):
            said |= _words(node.id)
        elif isinstance(node, ast.Attribute):
            said |= _words(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            said |= _words(node.name)
        elif isinstance(node, ast.arg):
            said |= _words(node.arg)
    return said & GAME_WORDS


def test_the_game_words_are_known():
    assert {"makan", "cafe", "miams", "makan_mania", "crazy_cafe", "mania", "crazy"} <= GAME_WORDS
    assert names_a_game('x = "a miams game"  # makan\n') == {"miams"}
    assert names_a_game("def f(crazy_cafe): return spec.makan_lines\n") == {"crazy", "cafe", "makan"}


@pytest.mark.parametrize("module", OUTSIDE)
def test_no_module_outside_the_games_names_a_game_or_imports_one(module):
    """"A game is one folder": the box, the history, the phone page and the doctor loop over
    the registered games (``companion/games/catalog.py`` reads the entry points)."""
    imported = sorted(target for target in GRAPH[module] if _under(target, "companion.games")
                      and target not in NO_GAME)
    assert imported == [], f"{module} imports a game package"
    said = names_a_game(FILES[module].read_text(encoding="utf-8"))
    assert said == set(), f"{FILES[module].relative_to(ROOT)} names {sorted(said)}"


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.name)
def test_no_template_or_script_of_the_phone_page_names_a_game(path):
    said = _words(path.read_text(encoding="utf-8")) & GAME_WORDS
    assert said == set(), f"{path.relative_to(ROOT)} names {sorted(said)}"


def test_a_box_without_dice_loads_no_bluetooth_code_at_start():
    """The box's start-up (what ``companion run`` imports) leaves the smart dice's link, bleak's
    transport and asyncio for the first die paired or searched for."""
    code = ("import sys, companion.commands.run, companion.box.app; print(sorted(m for m in "
            "('firmware_bridge.smart_link', 'hardware.ble_dice', 'asyncio') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"
