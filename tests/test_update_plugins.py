"""Game plugins kept across an update (issue 36: "Game plugins installed on the box (entry
points, like the Pig example) are gone after an update"): real venvs in a temporary prefix,
real pip offline, the box as `companion run --sim` (tests/test_update.py's fixtures).

`companion-update --plugin` puts the Pig example into the running version and keeps its wheel;
an update carries it into the new slot; a kept plugin written for another plugin contract, or
one that does not install, is left out of the new slot and named, and the update finishes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion.appliance import plugin_install, plugins, slots, update
from companion.contract.spec import CONTRACT
from tests import test_update
from tests.wheel_files import make_wheel

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
# A whole game in one module, written for another version of the plugin contract.
OLD_GAME = textwrap.dedent('''
    from companion.contract.rules import Rules
    from companion.contract.spec import GameSpec, Lazy, Screens

    SPEC = GameSpec(
        contract={contract}, key="oldtally", title="Old tally",
        rules=Rules(initial_state=lambda: 0, apply=lambda state, action: state + 1,
                    is_finished=lambda state: state >= 10, summary=lambda state: {{}},
                    describe=lambda state: "", describe_action=lambda action, state: "add"),
        screens=Screens(new_game=Lazy("oldtally:SPEC"), play=Lazy("oldtally:SPEC")),
    )
''')
ENTRY = "[table_companion.games]\n{key} = {module}:SPEC\n"
# The update tests' box: 0.1.0 built once in slot a, the releases 0.1.1 and 0.1.2 signed.
signer, releases, prefix, box = (test_update.signer, test_update.releases, test_update.prefix,
                                 test_update.box)


@pytest.fixture(scope="module")
def pig_wheel(tmp_path_factory) -> Path:
    """The Pig example's wheel, built from docs/examples/pig as the program's own is."""
    out = tmp_path_factory.mktemp("pig")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir",
                    str(out), str(REPO / "docs/examples/pig")], check=True, capture_output=True)
    return next(out.glob("table_companion_pig-*.whl"))


def old_contract_wheel(into: Path) -> Path:
    return make_wheel(into, "oldtally", "1.0", {"oldtally.py": OLD_GAME.format(contract=CONTRACT - 1)},
                      entry_points=ENTRY.format(key="oldtally", module="oldtally"))


def games_of(layout: slots.Layout, slot: str) -> dict:
    done = subprocess.run([str(layout.slot(slot) / "bin" / "python"), "-m", "companion.games.catalog"],
                          capture_output=True, text=True, check=True, cwd="/")
    return json.loads(done.stdout)


@pytest.fixture
def kept(box):
    """The box's folder of kept plugin wheels, emptied after; slot a as it was."""
    layout = box[0]
    folder = plugins.kept_dir(layout.prefix)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run([str(layout.slot("a") / "bin" / "python"), "-m", "pip", "uninstall", "-q",
                    "--yes", "table-companion-pig", "oldtally"], capture_output=True, check=False)


def test_a_plugin_installed_on_the_box_is_carried_into_the_update(box, releases, signer, kept,
                                                                   pig_wheel):
    layout, state, service = box
    told = plugin_install.install(pig_wheel, layout=layout, user=None)
    assert told.startswith(f"{pig_wheel.name}: pig installed in 0.1.0, kept in {kept}")
    assert sorted(path.name for path in kept.iterdir()) == [pig_wheel.name]
    assert "pig" in games_of(layout, "a")["games"]
    said: list[str] = []
    assert update.install(releases["0.1.1"], state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=said.append) == "0.1.1"
    assert layout.running() == "b"
    assert games_of(layout, "b") == {"games": ["makan", "cafe", "miams", "pig"], "left_out": {}}
    assert slots.plugins_left_out(layout.slot("b")) == {}
    assert not any("plugin" in line for line in said)


def test_a_kept_plugin_the_new_version_does_not_take_is_left_out_and_named(box, releases, signer,
                                                                          kept, pig_wheel, tmp_path):
    layout, state, service = box
    kept.mkdir()
    shutil.copy(pig_wheel, kept)
    wrong = old_contract_wheel(kept)
    # Needs a newer program than any release: pip cannot install it offline.
    future = make_wheel(kept, "futuregame", "1.0", {"futuregame.py": OLD_GAME.format(contract=CONTRACT)
                                                    .replace("oldtally", "futuregame")},
                        requires=("table-companion>=9",),
                        entry_points=ENTRY.format(key="futuregame", module="futuregame"))
    said: list[str] = []
    assert update.install(releases["0.1.1"], state, layout=layout, service=service,
                          python=sys._base_executable, system_site_packages=False,
                          keys=signer[1], build_user=None, say=said.append) == "0.1.1"
    assert layout.running() == "b"
    found = games_of(layout, "b")
    assert found == {"games": ["makan", "cafe", "miams", "pig"], "left_out": {}}, \
        "the plugin left out is not installed in the new slot at all"
    contract_words = (f"oldtally: written for plugin contract {CONTRACT - 1}; this box has "
                      f"contract {CONTRACT} (see docs/games.md)")
    left = slots.plugins_left_out(layout.slot("b"))
    assert left[wrong.name] == contract_words
    assert left[future.name].startswith("does not install: ")
    assert "table-companion>=9" in left[future.name] or "futuregame" in left[future.name]
    assert f"the plugin {wrong.name} is left out of 0.1.1: {contract_words}" in said
    assert sorted(path.name for path in kept.iterdir()) == sorted(
        [pig_wheel.name, wrong.name, future.name]), "the box keeps every wheel it was given"


def test_a_plugin_for_another_contract_is_refused_at_install_and_not_kept(box, kept, tmp_path):
    layout = box[0]
    wrong = old_contract_wheel(tmp_path)
    with pytest.raises(plugins.PluginError) as refused:
        plugin_install.install(wrong, layout=layout, user=None)
    assert str(refused.value) == (f"{wrong.name} is not installed: oldtally: written for plugin "
                                  f"contract {CONTRACT - 1}; this box has contract {CONTRACT} "
                                  "(see docs/games.md)")
    assert not kept.exists() or not list(kept.iterdir())
    assert "oldtally" not in json.dumps(games_of(layout, "a"))
    assert not list(layout.prefix.glob("incoming-*")), "nothing of it is left in the prefix"
