"""The home menu and the power-up resume question."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from companion.frame.canvas import LINE_H, Canvas
from companion.games import GameSpec
from companion.ui.widgets import MenuItem, MenuScreen, Screen, is_down, is_press
from companion.ui.words import plural

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.saved_games import SavedEntry
    from companion.contract.spec import BoxTable


class HomeScreen(MenuScreen):
    """Resume (when games are saved), one entry per game, Settings, About."""

    app: BoxTable

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Table Companion", [])
        self.on_enter()

    def on_enter(self) -> None:
        app = self.app
        items: list[MenuItem] = []
        saved = app.saved_games()
        if saved:
            detail = str(len(saved)) if len(saved) > 1 else ""
            items.append(MenuItem("Resume", self._saved, detail))
        for spec in app.games.specs.values():
            items.append(MenuItem(spec.title, partial(self._start, spec)))
        items.append(MenuItem("History", self._history))
        items.append(MenuItem("Phone", self._phone))
        items.append(MenuItem("Settings", self._settings))
        items.append(MenuItem("About", self._about))
        self.items = items
        self.selected = min(self.selected, len(items) - 1)

    def _start(self, spec: GameSpec[Any]) -> None:
        """A new game; every unfinished one stays saved and listed under Resume (said when
        one of this game waits there, so nobody starts again by mistake)."""
        saved = [entry for entry in self.app.saved_games() if entry.title == spec.title]
        self.app.push(spec.screens.new_game(self.app))
        if saved:
            self.app.toast(f"Saved: {saved[0].where}", "BACK, then Resume")

    def _history(self) -> None:
        from .history import HistoryScreen

        self.app.push(HistoryScreen(self.app))

    def _saved(self) -> None:
        from .saved import SavedGamesScreen

        self.app.push(SavedGamesScreen(self.app))

    def _phone(self) -> None:
        from .phone import PhoneMenu

        self.app.push(PhoneMenu(self.app))

    def _settings(self) -> None:
        from .settings import SettingsScreen

        self.app.push(SettingsScreen(self.app))

    def _about(self) -> None:
        from .system import AboutScreen

        self.app.push(AboutScreen(self.app))


def opening_screens(app: BoxTable) -> list[Screen]:
    """Over the home menu at start, the last on top: the resume question if a game was cut
    off, and what the boot partition's companion.txt asked that the box could not do."""
    from companion.appliance import firstboot_report

    from .system import SetupProblemsScreen

    saved = app.saved_games()
    report = firstboot_report.in_state_dir(app.state_dir)
    return ([ResumeScreen(app, saved)] if saved else []) + (
        [SetupProblemsScreen(app, report.problems)] if report and report.problems else [])


class ResumeScreen(Screen):
    """"Resume Makan Mania, round 3?" — one press to carry on after a power cut; with several
    games saved, ▼ shows them all."""

    app: BoxTable

    title = "Resume?"
    owns_long_ok = True

    def __init__(self, app: BoxTable, saved: list[SavedEntry]) -> None:
        super().__init__(app)
        self.newest = saved[0]
        self.others = len(saved) - 1
        self.question = f"Resume {self.newest.heading}?"
        self.hint = "OK yes ▼ all  BACK menu" if self.others else "OK resume   BACK menu"

    def draw(self, canvas: Canvas) -> None:
        row = canvas.paragraph(self.question, 1)
        if self.others:
            more = f"{plural(self.others, 'more game', 'more games')} saved"
            canvas.center(min(row, canvas.lines - 1) * LINE_H + 2, more)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.games.resume(self.newest.id)
            return True
        if is_press(event, "BACK"):
            self.app.pop()  # every game stays saved; the menu offers them again
            return True
        if self.others and is_down(event):
            from .saved import SavedGamesScreen

            self.app.push(SavedGamesScreen(self.app), replace=True)
            return True
        return event.button in ("OK", "BACK")
