"""The plugin contract (docs/games.md, "Add a game"): a game's ``GameSpec`` says which version
of the contract it was written for, and a game written for another is left out with a message
naming both versions, in ``companion doctor`` and on the box's About, while the other games go
on; and a spec is typed by its game's state, so a plugin's mistakes are type errors."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from companion.contract.spec import CONTRACT
from companion.doctor.checks import FAIL, check_games
from companion.games import catalog
from companion.games.box_config import load
from companion.screens.system import AboutScreen
from companion.simulator.simbox import SimBox

REPO = Path(__file__).resolve().parent.parent

# A whole game in one module: a tally, with the contract version it declares left to fill in.
PLUGIN = '''
from companion.contract.rules import Rules
from companion.contract.spec import GameSpec, Lazy, Screens

SPEC = GameSpec(
    contract={contract}, key="oldtally", title="Old tally",
    rules=Rules(initial_state=lambda: 0, apply=lambda state, action: state + 1,
                is_finished=lambda state: state >= 10, summary=lambda state: {{"tally": state}},
                describe=lambda state: f"at {{state}}",
                describe_action=lambda action, state: "add"),
    screens=Screens(new_game=Lazy("oldtally_screens:Start"), play=Lazy("oldtally_screens:Play")),
)
'''


def install_plugin(root: Path, contract: int) -> None:
    """A distribution on ``root`` (put on sys.path) registering the tally as a game, as pip
    installs one: its module and a dist-info folder with the entry point."""
    (root / "oldtally.py").write_text(PLUGIN.format(contract=contract), encoding="utf-8")
    info = root / "oldtally-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oldtally\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{catalog.GROUP}]\noldtally = oldtally:SPEC\n")


@pytest.fixture
def broken():
    """The catalog's list of games left out, restored afterwards (the doctor and About share
    it); the plugin's module is forgotten, so that the next test imports its own."""
    saved = dict(catalog.BROKEN)
    yield catalog.BROKEN
    catalog.BROKEN.clear()
    catalog.BROKEN.update(saved)
    sys.modules.pop("oldtally", None)


def test_a_game_for_another_contract_is_left_out_and_the_rest_goes_on(tmp_path, monkeypatch, broken):
    install_plugin(tmp_path, CONTRACT - 1)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = catalog.discover()
    assert "oldtally" not in found
    assert {"makan", "cafe", "miams"} <= set(found), "the box's own games still load"
    assert f"plugin contract {CONTRACT - 1}" in broken["oldtally"]
    assert f"contract {CONTRACT}" in broken["oldtally"]


def test_a_game_for_this_contract_is_found(tmp_path, monkeypatch, broken):
    install_plugin(tmp_path, CONTRACT)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = catalog.discover()
    assert found["oldtally"].title == "Old tally"
    assert "oldtally" not in broken


def test_the_doctor_and_about_name_the_contract_of_a_game_left_out(tmp_path, monkeypatch, broken):
    install_plugin(tmp_path, CONTRACT + 1)
    monkeypatch.syspath_prepend(str(tmp_path))
    catalog.discover()
    (finding,) = [f for f in check_games(load(None)) if f.check == "oldtally"]
    assert finding.level == FAIL and f"plugin contract {CONTRACT + 1}" in finding.detail
    box = SimBox(tmp_path / "state")
    try:
        lines = AboutScreen(box.app.table).lines()
    finally:
        box.close()
    shown = " ".join(line.strip() for line in lines[lines.index("Left out: oldtally"):])
    assert f"plugin contract {CONTRACT + 1}" in shown
    assert all(len(line) <= 21 for line in lines if "contract" in line), "fits the panel's width"


def test_a_spec_whose_parts_disagree_on_the_state_is_a_type_error(tmp_path):
    """The rules start from a whole number but the Live view reads a class's field: the spec
    is typed by its state, so the type checker names the mistake before the box runs it."""
    plugin = tmp_path / "mixed_up.py"
    plugin.write_text(PLUGIN.format(contract="CONTRACT").replace(
        "from companion.contract.spec import", "from companion.contract.spec import CONTRACT,"
    ) + textwrap.dedent('''
        from companion.contract.facts import LiveView
        from companion.contract.rules import Action
        from typing import Any


        class Board:
            pegs: int = 0


        def live(state: Board, game: Rules[Board], actions: list[tuple[Action, float | None]]
                 ) -> dict[str, Any]:
            return {"facts": {"Pegs": state.pegs}}


        MIXED = GameSpec(contract=CONTRACT, key="mixed", title="Mixed", rules=SPEC.rules,
                         screens=SPEC.screens, live=LiveView(live))
    '''), encoding="utf-8")
    out, _, status = mypy_api.run(["--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                                   "--config-file", str(REPO / "pyproject.toml"), str(plugin)])
    assert status == 1
    at = next(number for number, line in enumerate(plugin.read_text(encoding="utf-8").splitlines(), 1)
              if line.startswith("MIXED = GameSpec("))
    mistakes = [line for line in out.splitlines() if line.startswith(str(plugin))]
    assert mistakes == [f'{plugin}:{at}: error: Cannot infer value of type parameter "StateT" of '
                        '"GameSpec"  [misc]'], out
