"""A rule the code keeps that no linter checks: no function too long to read (STYLE.md); a
``type: ignore``'s reason is tests/test_typing.py's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "hardware", "firmware_bridge", "bench")
MAX_FUNCTION_LINES = 80
FILES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """Every function (methods and nested ones too) longer than ``limit`` lines, with its
    length from its ``def`` (or first decorator) to its last line."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            lines = (node.end_lineno or node.lineno) - first + 1
            if lines > limit:
                out.append((node.name, lines))
    return out


def test_the_rule_is_read():
    def function(lines: int) -> str:
        return "def f():\n" + "    x = 1\n" * (lines - 1)

    assert long_functions(function(MAX_FUNCTION_LINES)) == []
    assert long_functions(function(MAX_FUNCTION_LINES + 1)) == [("f", 81)]
    method = "class A:\n    @staticmethod\n    def g():\n" + "        x = 1\n" * 80
    assert long_functions(method) == [("g", 82)]  # the decorator counts


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_no_function_is_too_long_to_read(path):
    found = long_functions(path.read_text(encoding="utf-8"))
    assert found == [], f"{_name(path)}: {found} over {MAX_FUNCTION_LINES} lines; split by concern"
