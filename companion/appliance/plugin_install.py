"""``companion-update --plugin FILE.whl``: a game plugin into the running version, kept for
every update after (:mod:`.plugins` says how an update carries it).

Root runs this from the copy on the root filesystem and runs nothing of the release's nor the
plugin's: pip (the slot's) unpacks the wheel as the box's user into a folder of its own, the
slot's catalog is asked there, as that user, whether this version takes its games; only then
does root copy the unpacked files into the running slot (a copy: no code of theirs runs)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .plugins import (
    PluginError,
    distribution,
    game_keys,
    kept_dir,
    pip_install,
    refusals,
    refused_games,
)
from .slotbuild import as_build_user
from .slots import PLUGINS_RECORD, Layout, sync_dir
from .update import BUILD_USER, one_at_a_time


@one_at_a_time
def install(wheel: Path, *, layout: Layout | None = None, user: str | None = BUILD_USER) -> str:
    """Install the plugin ``wheel`` into the running slot once the running version takes every
    game it registers (its plugin contract version among them); keep the wheel (replacing an
    older one of the same plugin). What to tell; PluginError says why not. Its dependencies
    must be in the running version already."""
    assert layout is not None  # one_at_a_time gives the box's
    keys = game_keys(wheel)
    slot = layout.slot(layout.running())
    python = str(slot / "bin" / "python")
    run = functools.partial(subprocess.run, capture_output=True, text=True, cwd="/")
    # In the prefix: a cut leaves an incoming-* folder, which the next boot or update clears.
    with tempfile.TemporaryDirectory(dir=layout.prefix, prefix="incoming-plugin-") as scratch:
        staging = Path(scratch)
        shutil.copyfile(wheel, staging / wheel.name)  # readable to the user, written by root
        os.chmod(staging / wheel.name, 0o644)
        as_user = as_build_user(user, staging)
        unpacked = staging / "site"
        why_not = pip_install([*as_user, python], str(staging / wheel.name), [], run,
                              "--no-deps", "--target", str(unpacked))
        if why_not:
            raise PluginError(f"{wheel.name} {why_not}")
        why = refusals(wheel, keys, refused_games(
            [*as_user, "env", f"PYTHONPATH={unpacked}", python], run))
        if why:
            raise PluginError(f"{wheel.name} is not installed: {why}")
        _copy_into(unpacked, slot, distribution(wheel))
    _keep(wheel, kept_dir(layout.prefix))
    _forget_left_out(slot, wheel)
    return (f"{wheel.name}: {', '.join(keys)} installed in {layout.version(layout.running())}, "
            f"kept in {kept_dir(layout.prefix)} for every update. The box offers it once "
            "restarted: systemctl restart companion")


def _copy_into(unpacked: Path, slot: Path, name: str) -> None:
    """The unpacked plugin into the slot's site-packages as root's plain files (contents only:
    no mode, owner or link the user's folder could hold), an older version's metadata first
    removed (its modules are overwritten)."""
    site = next(slot.glob("lib/python3*/site-packages"))
    for older in site.glob(f"{name}-*.dist-info"):
        shutil.rmtree(older)
    for folder, _, files in os.walk(unpacked):
        here = Path(folder)
        relative = here.relative_to(unpacked)
        if relative.parts[:1] == ("bin",):  # a plugin's scripts have no place in the box's venv
            continue
        (site / relative).mkdir(mode=0o755, exist_ok=True)
        for file in files:
            if not (here / file).is_symlink():
                shutil.copyfile(here / file, site / relative / file)
                os.chmod(site / relative / file, 0o644)


def _keep(wheel: Path, kept: Path) -> None:
    kept.mkdir(mode=0o755, exist_ok=True)
    for older in kept.glob(f"{distribution(wheel)}-*.whl"):
        older.unlink()
    partial = kept / f".{wheel.name}.partial"
    shutil.copyfile(wheel, partial)
    os.chmod(partial, 0o644)
    os.replace(partial, kept / wheel.name)
    sync_dir(kept)


def _forget_left_out(slot: Path, wheel: Path) -> None:
    """The slot's record no longer names an older wheel of this plugin as left out."""
    record_path = slot / PLUGINS_RECORD
    try:
        record = json.loads(record_path.read_text())
        left = {name: why for name, why in dict(record["left_out"]).items()
                if distribution(Path(name)) != distribution(wheel)}
    except (OSError, ValueError, KeyError, TypeError):
        return
    record_path.write_text(json.dumps({**record, "left_out": left}, indent=1, sort_keys=True)
                           + "\n")
