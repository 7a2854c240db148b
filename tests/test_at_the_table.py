"""Issue 24, item 15 and 16: small things a new table trips over, each seen on the box."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.catalog import GAMES
from companion.simulator.walk import run_steps


@pytest.mark.parametrize("game", sorted(GAMES))
def test_down_past_the_last_setup_row_stays_there(box, game):
    """▼ past the last row of a setup does not wrap round to Start, so one stray OK cannot
    start a game with the default players."""
    run_steps(box, (f"game:{game}",))
    screen = box.screen
    for _ in range(len(screen.items) + 2):
        box.press("DOWN")
    assert screen.selected == len(screen.items) - 1
    assert screen.items[0].label.startswith("Start")


def test_the_cafe_setup_keeps_its_choices_after_back(box):
    """Double Trouble on, Table dice, BACK to the menu and in again: the choices are kept."""
    run_steps(box, ("game:cafe", "menu:Double", "menu:Dice", "BACK", "menu:Crazy"))
    details = {item.label: item.detail for item in box.screen.items}
    assert details["Double Trouble"] == "On" and details["Dice"] == "Table dice"


def test_a_new_game_beside_a_saved_one_says_resume_is_there(box):
    """Choosing a game that has a saved one says so, so nobody starts it again by mistake."""
    run_steps(box, ("game:makan", "OK", "OK~", "OK"))     # set up, then leave it saved
    run_steps(box, ("menu:Makan",))
    assert box.app.stack.toast_lines == ["Saved: round 1", "BACK, then Resume"]


def test_the_readme_recommends_the_real_size_terminal_first():
    """Issue 24, item 16: 130×37 first (the real pixels), 80×24 as the braille fallback."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Quick start")
    assert start < readme.index("130×37", start) < readme.index("80×24", start)


def test_the_cafe_step_through_skips_the_clock_readings(box):
    """History → a Café game → Step through: each OK is something the table did, never one
    of the box's silent clock readings."""
    from companion.games.catalog import GAMES as games
    from companion.screens.history import StepScreen

    run_steps(box, ("seed:examples",))
    actions = box.app.play.journal.load(2).actions
    assert any(a["type"] == "clock" for a in actions)
    step = StepScreen(box.app.table, games["cafe"], list(actions))
    box.app.table.push(step)
    hints = []
    while step.step < len(step.ends) - 1:
        box.press("OK")
        hints.append(step.hint)
    assert hints and not any("clock" in hint for hint in hints)
    assert len(hints) == sum(a["type"] != "clock" for a in actions)


def test_about_does_not_name_a_config_file_that_is_not_there(box):
    """About says "none (defaults)" when the config file it would read does not exist."""
    from dataclasses import replace

    from companion.screens.system import AboutScreen

    box.app.table.config = replace(box.app.table.config, path="/nowhere/config.toml")
    about = AboutScreen(box.app.table)
    lines = about.lines()
    assert lines[lines.index("Config:") + 1] == "none (defaults)"


def test_the_pair_screen_gives_the_address_to_type_with_the_pin(box, monkeypatch):
    """Home → Phone → Pair: ▼ shows the address a phone without a camera types, and the PIN;
    ▲ the QR code again."""
    from tests.test_screens import shown

    run_steps(box, ("menu:Phone", "menu:Pair"))
    pair = box.screen
    assert pair.name() == "PairScreen"
    box.press("DOWN")
    drawn, cut = shown(box, monkeypatch)
    assert pair.address.endswith(":8080/pair") or pair.address.endswith("/pair")
    assert pair.address.split("://")[-1] in drawn and f"PIN {pair.offer.pin}" in drawn
    assert cut == []
    box.press("UP")
    assert not pair.typing


def test_about_shows_the_page_address_and_its_qr_code(box, monkeypatch):
    """Issue 37: the README says the box answers at http://companion.local: About names that
    address (the box's own name, port 80) and OK shows it as a QR code a phone can scan, the
    code's modules read back from the panel, and the address written beside it, uncut."""
    from companion.screens.phone import MODULE_PX, QUIET, AddressScreen, qr_modules
    from tests.test_screens import shown

    monkeypatch.setattr("socket.gethostname", lambda: "tavolo")
    run_steps(box, ("menu:About",))
    assert box.screen.lines()[-2:] == ["Phone page (OK: QR):", "http://tavolo.local/"]
    assert box.screen.hint == "▲▼ scroll  OK page QR"
    box.press("OK")
    assert isinstance(box.screen, AddressScreen)
    drawn, cut = shown(box, monkeypatch)
    assert drawn[1:] == ["Phone page", "http://", "tavolo", ".local/", "BACK close"] and cut == []
    frame = box.frame().convert("1")
    modules = qr_modules("http://tavolo.local/")
    assert modules is not None
    read = [[frame.getpixel(((x + QUIET) * MODULE_PX, (y + QUIET) * MODULE_PX)) == 0
             for x in range(len(modules))] for y in range(len(modules))]
    assert read == modules
    box.press("BACK")
    assert box.screen.title == "About"
