"""``companion doctor``'s check of Miams' files: the sheet and tile the config names (or the
stand-ins) and the sheets folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.contract.config import Config
from companion.contract.facts import FAIL, OK, WARN, Finding, worded

from . import sheet as miams


def check_files(cfg: Config) -> list[Finding]:
    """Miams's sheet and tile (the configured ones, or the stand-ins) and the sheets folder.

    What [games.miams] names must load (FAIL); a bad file in ``sheets_dir`` only takes that
    one choice off the setup screen (warn).
    """
    settings = cfg.games["miams"]
    named: list[tuple[str, Path, Callable[[Path], Any]]] = [
        ("sheet", Path(settings.sheet) if settings.sheet else miams.DEFAULT_SHEET, miams.load_sheet),
        ("tile", Path(settings.tile) if settings.tile else miams.DEFAULT_TILE, miams.load_tile)]
    folder = miams.sheet_files(settings.sheets_dir)
    findings: list[Finding] = []
    loaded: list[str] = []
    for role, path, load in [*named, *(("sheets_dir", p, miams.load_sheet) for p in folder)]:
        try:
            loaded.append(f"{load(path).name!r}")
        except Exception as exc:  # ConfigError names file, key, problem and fix
            detail, fix = worded(exc)
            key = f"[games.miams] {role}"
            if role == "sheets_dir":
                findings.append(Finding("miams", WARN, f"{detail}; the setup screen cannot offer it",
                                        fix or f"correct that key (docs/miams.md), or remove {path}"))
            elif getattr(settings, role):
                findings.append(Finding("miams", FAIL, f"{detail}; Miams cannot start",
                                        fix or f"correct the file (docs/miams.md) or the path in "
                                        f"{key}, or set {key} = \"\" for the stand-in"))
            else:
                findings.append(Finding("miams", FAIL, f"{detail}; Miams cannot start",
                                        fix or "reinstall the package (its stand-in file is damaged)"))
    if findings:
        return findings
    extra = f", {len(folder)} more in {settings.sheets_dir}" if folder else ""
    return [Finding("miams", OK, f"sheet {loaded[0]} and tile {loaded[1]} valid{extra}")]
