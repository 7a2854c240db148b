"""Game plugins installed on the box, and kept across updates.

A plugin is a wheel registering games in the entry point group ``table_companion.games`` (as
the example in docs/examples/ does). ``companion-update --plugin FILE.whl`` (root) installs it
into the running slot once the running version accepts it, and keeps the wheel in
``/opt/companion/plugins/`` (:mod:`.plugin_install`). Every slot built after (an update,
systemd/install.sh again) installs the kept wheels after the program, offline, then asks the
new version's own catalog (``python -m companion.games.catalog`` in the new slot) which games
it accepts: a plugin that does not install, or declares a plugin contract version the new
version does not take, is removed from the new slot and named in its ``plugins.json``, which
``companion doctor`` and the box at start show; the build goes on without it.

Standard library only: :mod:`.slotbuild` imports it, run by the system's python3.
"""

from __future__ import annotations

import configparser
import json
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

from .slots import PLUGINS_RECORD, PREFIX

GAMES_GROUP = "table_companion.games"  # companion.games.catalog.GROUP
KEPT_NAME = "plugins"        # in the prefix: the wheels of the plugins installed on the box
Run = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


class PluginError(Exception):
    """A file that is not a game plugin, or one this version does not take; says why."""


def kept_dir(prefix: Path = PREFIX) -> Path:
    return prefix / KEPT_NAME


def game_keys(wheel: Path) -> list[str]:
    """The games a plugin wheel registers, read from its entry points (nothing of it runs)."""
    try:
        with zipfile.ZipFile(wheel) as archive:
            found = [name for name in archive.namelist()
                     if name.count("/") == 1 and name.endswith(".dist-info/entry_points.txt")]
            text = archive.read(found[0]).decode() if found else ""
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise PluginError(f"{wheel.name} is not a wheel ({exc})") from exc
    points = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    points.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    try:
        points.read_string(text)
    except configparser.Error as exc:
        raise PluginError(f"{wheel.name}: its entry points cannot be read ({exc})") from exc
    keys = list(points[GAMES_GROUP]) if points.has_section(GAMES_GROUP) else []
    if not wheel.name.endswith(".whl") or not keys:
        raise PluginError(f"{wheel.name} is not a game plugin: a wheel registering a game in "
                          f"the entry point group {GAMES_GROUP} is expected")
    return keys


def distribution(wheel: Path) -> str:
    """The distribution's name, as its wheel file says it (``table_companion_dice-0.1.0-…``)."""
    return wheel.name.split("-", 1)[0]


def _last_words(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stderr or done.stdout or "").splitlines() if line.strip()]
    return lines[-1] if lines else f"exit status {done.returncode}"


def refused_games(python: list[str], run: Run) -> dict[str, str]:
    """The games the slot's own catalog leaves out, by key, with why."""
    done = run([*python, "-m", "companion.games.catalog"])
    try:
        return {str(key): str(why) for key, why in json.loads(done.stdout)["left_out"].items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        raise PluginError(f"the version installed could not list its games ({_last_words(done)})"
                          ) from None


def _pip(python: list[str]) -> list[str]:
    return [*python, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir", "-q",
            "--isolated"]


def pip_install(python: list[str], wheel: str, find_links: list[str], run: Run,
                *options: str) -> str | None:
    """Install ``wheel`` with ``python`` (a command prefix), offline, its dependencies from
    what is installed or in ``find_links``: None once installed, else why not."""
    done = run([*_pip(python), "install", "--no-index", "--only-binary", ":all:", *options,
                *(f"--find-links={link}" for link in find_links), wheel])
    return f"does not install: {_last_words(done)}" if done.returncode else None


def uninstall(python: list[str], wheel: Path, run: Run) -> None:
    run([*_pip(python), "uninstall", "--yes", distribution(wheel)])


def refusals(wheel: Path, keys: list[str], refused: dict[str, str]) -> str:
    """Why the catalog left out the games of ``wheel`` ("" when it took them all)."""
    return "; ".join(f"{key}: {refused[key]}" for key in keys if key in refused)


def carry(python: list[str], wheels: list[tuple[Path, str]], find_links: list[str],
          run: Run) -> dict[str, object]:
    """Install each kept plugin wheel (its path here, and as ``python`` sees it) with the
    slot's ``python`` (a command prefix), offline; uninstall each one the slot's catalog
    leaves out. The slot's record (``slots.plugins_left_out`` reads it): the wheels kept, and
    those left out with why."""
    installed: list[tuple[Path, list[str]]] = []
    left: dict[str, str] = {}
    for here, there in wheels:
        try:
            keys = game_keys(here)
        except PluginError as exc:
            left[here.name] = str(exc)
            continue
        why_not = pip_install(python, there, find_links, run)
        if why_not:
            left[here.name] = why_not
        else:
            installed.append((here, keys))
    refused: dict[str, str] = {}
    if installed:
        try:
            refused = refused_games(python, run)
        except PluginError as exc:
            refused = {key: str(exc) for _, keys in installed for key in keys}
    kept = []
    for here, keys in installed:
        why = refusals(here, keys, refused)
        if why:
            uninstall(python, here, run)
            left[here.name] = why
        else:
            kept.append(here.name)
    return {"kept": kept, "left_out": left}


def write_record(slot: Path, record: dict[str, object]) -> None:
    (slot / PLUGINS_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
