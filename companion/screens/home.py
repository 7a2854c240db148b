"""The home menu and the resume question."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.games import GameSpec
from companion.ui.canvas import Canvas
from companion.ui.widgets import ConfirmScreen, MenuItem, MenuScreen, Screen, is_press

if TYPE_CHECKING:
    from companion.games.base import Table
    from companion.input import ButtonEvent


class HomeScreen(MenuScreen):
    """Resume (when a game is waiting), one entry per game, Settings, About."""

    def __init__(self, app: Table) -> None:
        super().__init__(app, "Table Companion", [])
        self.on_enter()

    def on_enter(self) -> None:
        app = self.app
        items: list[MenuItem] = []
        waiting = app.session or app.resumable
        if waiting is not None:
            spec = app.session.spec if app.session else app.games[app.resumable.game]
            items.append(MenuItem(f"Resume {spec.title}", app.resume))
        for spec in app.games.values():
            items.append(MenuItem(spec.title, lambda spec=spec: self._start(spec)))
        items.append(MenuItem("History", self._history))
        items.append(MenuItem("Phone", self._phone))
        items.append(MenuItem("Settings", self._settings))
        items.append(MenuItem("About", self._about))
        self.items = items
        self.selected = min(self.selected, len(items) - 1)

    def _start(self, spec: GameSpec) -> None:
        app = self.app
        waiting = app.session if app.session else None
        running = waiting is not None and not waiting.spec.is_finished(waiting.state)
        if running or app.resumable is not None:
            app.push(
                ConfirmScreen(
                    app, spec.title, "Start a new game? The saved one stays in history.",
                    lambda: self._open_setup(spec),
                )
            )
        else:
            self._open_setup(spec)

    def _open_setup(self, spec: GameSpec) -> None:
        self.app.abandon_resumable()
        self.app.push(spec.new_game(self.app))

    def _history(self) -> None:
        from .history import HistoryScreen

        self.app.push(HistoryScreen(self.app))

    def _phone(self) -> None:
        from .phone import PhoneMenu

        self.app.push(PhoneMenu(self.app))

    def _settings(self) -> None:
        from .settings import SettingsScreen

        self.app.push(SettingsScreen(self.app))

    def _about(self) -> None:
        from .system import AboutScreen

        self.app.push(AboutScreen(self.app))


class ResumeScreen(Screen):
    """"Resume Makan Mania, round 3?" — one press to carry on after a power cut."""

    title = "Resume?"
    hint = "OK resume   BACK menu"
    owns_long_ok = True

    def __init__(self, app: Table) -> None:
        super().__init__(app)
        saved = app.resumable
        spec = app.games[saved.game]
        self.question = f"Resume {spec.title}, {spec.describe(spec.replay(saved.actions))}?"

    def draw(self, canvas: Canvas) -> None:
        canvas.paragraph(self.question, 1)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            self.app.resume()
            return True
        if is_press(event, "BACK"):
            self.app.pop()  # the game stays saved; the menu offers it again
            return True
        return event.button in ("OK", "BACK")
