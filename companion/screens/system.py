"""About and the last frame before power-off."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from companion.appliance import hotspot_state, slots
from companion.appliance.hotspot_state import Mode
from companion.frame.canvas import WIDTH, Canvas
from companion.frame.font import SMALL
from companion.games.catalog import BROKEN
from companion.records import pairing
from companion.records.cards import from_phone
from companion.records.settings import words
from companion.ui.widgets import Screen, is_down, is_press, is_up

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import BoxTable


class AboutScreen(Screen):
    """Version, state directory, config path; UP/DOWN scroll."""

    app: BoxTable

    title = "About"
    hint = "▲▼ scroll  OK page QR"

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app)
        self.offset = 0
        self.saved = len(app.saved_games())  # replays each saved game: once, not per frame
        self.overrides = app.saved_settings()
        self.cards = [f" {spec.key} {card.key}" for spec, card in from_phone(app.state_dir, app.games.specs)]
        self.wifi = hotspot_state.read_state(app.state_dir) if app.state_dir else None
        self.address = pairing.local_address()
        if self.wifi is not None and self.wifi.mode is Mode.OPEN:  # the QR code opens its page
            self.address = f"http://{hotspot_state.ADDRESS}/wifi"

    def lines(self) -> list[str]:
        app = self.app
        health, kept, held_in = app.journal_health()
        versions = slots.versions()
        lines = [
            f"Table Companion {versions.running}",
            *([f"Kept: {versions.kept}"] if versions.kept else []),
            "State dir:",
            fit_path(str(app.state_dir or "-")),
            "Config:",
            # A config file that is not there is not named as if it were read.
            fit_path(str(app.config.path)) if app.config.path and Path(app.config.path).exists()
            else "none (defaults)",
            f"Journal: {health}",
        ]
        if held_in:  # the whole path, across lines: the owner looks for this file on the stick
            pieces = SMALL.wrap_items(list(held_in), WIDTH - 2 - SMALL.width(" "), sep="")
            lines += ["Held play in:", *(f" {piece}" for piece in pieces)]
        if kept:
            name, _, files = kept.partition(": ")
            lines += ["Kept at start:", f" {name}", *([f" {files}"] if files else [])]
        lines.append(f"Saved games: {self.saved}")
        # The same list as `companion doctor`'s settings line: what overrides config.toml.
        overrides = self.overrides
        lines.append("Set on box or phone:" if overrides else "Settings: config's")
        for key, value in overrides.items():   # two lines each: the panel is 21 letters wide
            name, _, said = words(key.removeprefix("games."), value).partition(" = ")
            lines += [f" {name}", f"   = {said}"]
        # The same list as `companion doctor`'s cards line: the files saved on the phone.
        lines += ["Cards from phone:", *self.cards] if self.cards else ["Cards: config's"]
        # The same games as `companion doctor`'s FAILs (installed, but not on the home menu) and
        # its WARNs (plugins an update left out).
        for key, reason in {**BROKEN, **slots.plugins_left_out()}.items():
            lines += [f"Left out: {key}", *(f" {part}" for part in textwrap.wrap(reason, 20))]
        # Last, as the hint's OK shows it at once (its QR code): where phones open the page,
        # after the box's own Wi-Fi network when it is open (its name and passphrase).
        wifi = self.wifi.lines() if self.wifi is not None else []
        return [*lines, *wifi, "Phone page (OK: QR):", *SMALL.wrap(self.address, WIDTH - 2)]

    def draw(self, canvas: Canvas) -> None:
        lines = self.lines()
        for row, line in enumerate(lines[self.offset : self.offset + canvas.lines]):
            canvas.line(row, line)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "OK"):
            from .phone import AddressScreen

            self.app.push(AddressScreen(self.app, self.address))
        elif is_up(event):
            self.offset = max(0, self.offset - 1)
        elif is_down(event):
            self.offset = min(max(0, len(self.lines()) - 5), self.offset + 1)
        else:
            return False
        return True


def fit_path(path: str, width: int = WIDTH - 2) -> str:
    """A path on one line: whole if it fits, else its last parts after "…/", so the file name
    (the part that tells paths apart) is always readable."""
    text = f" {path}"
    if SMALL.width(text) <= width:
        return text
    parts = path.split("/")
    for start in range(1, len(parts)):
        text = " …/" + "/".join(parts[start:])
        if SMALL.width(text) <= width:
            return text
    return SMALL.fit(text, width)


class SetupProblemsScreen(Screen):
    """What the boot partition's companion.txt asked that the box could not do, at start:
    every problem, word-wrapped; UP/DOWN scroll, OK or BACK closes."""

    title = "companion.txt"
    hint = "▲▼ scroll  OK close"

    def __init__(self, app: BoxTable, problems: list[str]) -> None:
        super().__init__(app)
        self.offset = 0
        self.rows = [f"Fix on the SD card ({len(problems)}):"]
        for problem in problems:
            wrapped = SMALL.wrap(problem, WIDTH - 8)
            self.rows += ["• " + wrapped[0], *("  " + line for line in wrapped[1:])]

    def draw(self, canvas: Canvas) -> None:
        for row, line in enumerate(self.rows[self.offset : self.offset + canvas.lines]):
            canvas.line(row, line)

    def on_button(self, event: ButtonEvent) -> bool:
        if is_up(event):
            self.offset = max(0, self.offset - 1)
        elif is_down(event):
            self.offset = min(max(0, len(self.rows) - 4), self.offset + 1)
        elif is_press(event, "OK") or is_press(event, "BACK"):
            self.app.pop()
        else:
            return False
        return True


class PoweredOffScreen(Screen):
    """What stays on the panel after the service stops."""

    app: BoxTable

    title = "Table Companion"

    def __init__(self, app: BoxTable, message: str) -> None:
        super().__init__(app)
        self.message = message

    def lines(self) -> tuple[str, str]:
        # The disk refused to the end: say so, and where the play it refused is, not promise.
        return self.message, self.app.journal_saved_words()

    def draw(self, canvas: Canvas) -> None:
        message, saved = self.lines()
        canvas.paragraph(message, 1)
        canvas.paragraph(saved, 3)
