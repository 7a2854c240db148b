"""Miams' setup screen: difficulty and the sheet Arthur plays on, with the short problem of a
sheet or tile file that does not load."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.config import ConfigError
from companion.frame.canvas import LINE_H, Canvas
from companion.ui.widgets import (
    ChoiceScreen,
    MenuItem,
    MenuScreen,
    draw_list,
)

from . import rules
from .sheet import (
    DEFAULT_SHEET,
    DEFAULT_TILE,
    load_sheet,
    load_tile,
    sheet_files,
)

if TYPE_CHECKING:
    from companion.contract.spec import Table

log = logging.getLogger(__name__)

TITLE = "Miams"
FIRST_PLAYER = "Arthur plays first"   # "The AI plays first.": a fact, not a setting


def _settings(app: Table) -> Any:
    return app.config.games["miams"]


class SetupScreen(MenuScreen):
    """Start the game, or first its settings: difficulty and which sheet file to play Arthur on.
    Who plays first is a fact of the solo rules ("The AI plays first"), shown as a line of text
    rather than a row that looks like a choice."""

    wraps = False

    def __init__(self, app: Table) -> None:
        super().__init__(app, f"{TITLE} · new game", [])
        cfg = _settings(app)
        self.difficulty = cfg.difficulty
        # A configured sheet or tile that does not load is named with its problem and the
        # stand-in is offered instead, so the table can still play.
        self.problem = ""
        first = DEFAULT_SHEET
        if cfg.sheet:
            first = Path(cfg.sheet)
            self.problem = _load_problem(load_sheet, first, "Sheet")
            if self.problem:
                first = DEFAULT_SHEET
        if cfg.tile and not self.problem:
            self.problem = _load_problem(load_tile, Path(cfg.tile), "Tile")
        # a real sheet played with the stand-in tile (or a tile still marked stand-in) says so too
        self.tile_stand_in = not cfg.tile or bool(self.problem) or load_tile(cfg.tile).stand_in
        # the configured sheet (or the stand-in), then the sheets folder's files that load
        self.sheets = [first, *(p for p in sheet_files(cfg.sheets_dir)
                                if p != first and not _load_problem(load_sheet, p, "Sheet"))]
        # which of them still say they are stand-ins (a sheet saved on the phone page too)
        self.stand_ins = [path == DEFAULT_SHEET or _says_stand_in(path) for path in self.sheets]
        self.sheet_index = 0
        self.own_sheet = False        # "Track my sheet too": the box keeps the player's sheet
        if self.problem:
            self.hint = "see companion doctor"
        self.on_enter()

    def on_enter(self) -> None:
        self.items = [
            MenuItem("Start game", self._start, "▶"),
            MenuItem("Difficulty", self._pick_difficulty, rules.DIFFICULTY_NAMES[self.difficulty]),
            MenuItem("Sheet", self._pick_sheet, self._sheet_label(self.sheets[self.sheet_index])),
            MenuItem("Track my sheet", self._toggle_own_sheet, "on" if self.own_sheet else "off"),
        ]

    def _toggle_own_sheet(self) -> None:
        self.own_sheet = not self.own_sheet
        self.on_enter()

    def draw(self, canvas: Canvas) -> None:
        # the three rows, then two lines: a file's problem, or who plays first and the warning
        rows = Canvas(canvas.image, canvas.top, canvas.bottom - 2 * LINE_H)
        draw_list(rows, [i.label for i in self.items], [i.detail for i in self.items], self.selected)
        if self.problem:
            # two short lines, "Sheet x.toml:" / "end not a number"; the hint names the doctor
            where, problem = self.problem.split(": ", 1)
            canvas.center(3 * LINE_H + 1, f"⚠ {where}:")
            canvas.center(4 * LINE_H + 1, problem)
        else:
            canvas.center(3 * LINE_H + 1, FIRST_PLAYER)
            if self.stand_ins[self.sheet_index]:
                canvas.center(4 * LINE_H + 1, "⚠ Stand-in values")
            elif self.tile_stand_in:
                canvas.center(4 * LINE_H + 1, "⚠ Stand-in tile")

    @staticmethod
    def _sheet_label(path: Path) -> str:
        return "stand-in" if path == DEFAULT_SHEET else path.stem

    def _pick_difficulty(self) -> None:
        keys = list(rules.DIFFICULTIES)
        labels = ["Snacking: no change", "Lunch: 2 crossed", "Munchies: 4 crossed"]

        def chosen(index: int) -> None:
            self.difficulty = keys[index]
            self.app.pop()

        self.app.push(ChoiceScreen(self.app, f"{TITLE} · difficulty", "Arthur's appetite:", labels,
                                   chosen, keys.index(self.difficulty)))

    def _pick_sheet(self) -> None:
        def chosen(index: int) -> None:
            self.sheet_index = index
            self.app.pop()

        self.app.push(ChoiceScreen(self.app, f"{TITLE} · sheet", "Arthur's sheet file:",
                                   [self._sheet_label(p) for p in self.sheets], chosen,
                                   self.sheet_index))

    def _start(self) -> None:
        cfg = _settings(self.app)
        tile_path = Path(cfg.tile) if cfg.tile and not self.problem.startswith("Tile") else DEFAULT_TILE
        try:
            sheet = load_sheet(self.sheets[self.sheet_index])
            tile = load_tile(tile_path)
        except ConfigError as exc:  # the file changed since the screen opened
            log.error("miams: %s", exc)
            self.problem = _worded(exc, "Sheet" if exc.path != str(tile_path) else "Tile")
            self.hint = "see companion doctor"
            self.app.refuse(f"{self.problem}\nsee companion doctor")
            return
        self.app.games.start("miams", {
            "type": "setup", "difficulty": self.difficulty,
            "sheet": sheet.to_data(), "tile": tile.to_data(),
            "tie": cfg.tie, "setup_column": cfg.setup_column,
            **({"own_sheet": True} if self.own_sheet else {}),
        })


def _worded(exc: ConfigError, what: str) -> str:
    """One short line for the screen, e.g. ``Sheet x.toml: end not a number``."""
    key = exc.key.rsplit(".", 1)[-1].split("[")[0]  # "bonus[2]" reads as "bonus"
    problem = {"(file)": "cannot read", "(syntax)": "not TOML"}.get(exc.key, f"{key} wrong")
    if "whole number" in exc.problem:
        problem = f"{key} not a number"
    elif exc.key == "(file)" and "no such file" in exc.problem:
        problem = "missing"
    elif "missing" in exc.problem:
        problem = f"{key} missing"
    return f"{what} {Path(exc.path).name}: {problem}"


def _says_stand_in(path: Path) -> bool:
    """Whether a sheet file that loads is marked ``stand_in = true``."""
    try:
        return load_sheet(path).stand_in
    except ConfigError:
        return False


def _load_problem(load: Any, path: Path, what: str) -> str:
    """The short problem of a sheet or tile file that does not load, or "" when it loads."""
    try:
        load(path)
    except ConfigError as exc:
        log.error("miams: %s", exc)  # the full file, key, problem and fix for the installer
        return _worded(exc, what)
    return ""
