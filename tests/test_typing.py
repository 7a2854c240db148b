"""Type-checking habits the type checker does not enforce by itself (docs/architecture.md):
a ``type: ignore`` names the error it silences (mypy's ignore-without-code, pyproject.toml)
and says on its line why that error is not one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("companion", "hardware", "firmware_bridge", "bench", "docs/examples/pig", "tests")
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<rest>.*)$")
WITH_REASON = re.compile(r"^\[[a-z-]+(,\s*[a-z-]+)*\]\s+#\s*\S")


def ignores() -> list[tuple[str, str]]:
    """Every ``type: ignore`` comment of the project's Python files: (file:line, what follows)."""
    found = []
    for folder in CHECKED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ".venv" in path.parts or "site-packages" in path.parts:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                match = IGNORE.search(line)
                if match and path.name != Path(__file__).name:
                    found.append((f"{path.relative_to(ROOT)}:{number}", match["rest"]))
    return found


def test_every_type_ignore_has_its_code_and_a_reason_on_its_line():
    found = ignores()
    assert found, "the scan reads the project's files"
    assert [where for where, rest in found if not WITH_REASON.match(rest)] == []


def test_the_check_refuses_an_ignore_without_a_reason():
    assert WITH_REASON.match("[override]  # computed; the panel only reads it")
    assert not WITH_REASON.match("[override]")
    assert not WITH_REASON.match("  # no code")
    assert not WITH_REASON.match("[attr-defined] #")
