"""The smart dice paired on the box or on the phone page, and what the box says of them.

The pairings are one row of the journal's ``settings`` table, ``dice.smart``: the list of
``MAKE ADDRESS KIND`` lines in die order, as config.toml's ``[dice] smart`` writes them, which
stays the default until a die is paired or forgotten on the box or the page. The box keeps
``dice.json`` beside the journal: each paired die connected or missing with its charge, and
the dice its last search found; the page shows it and pairs only a die that search found.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from firmware_bridge.faces import FACES

KEY = "dice.smart"
STATUS = "dice.json"
SEARCH_MARK = "dice-search"  # in the handed folder: the page asks the box to search
MAX_DICE = 8  # the most dice a game rolls at once is six (Miams)
KINDS = tuple(FACES)


def check(value: Any) -> list[str]:
    """``value`` as a list of pairings; ValueError saying what is wrong."""
    if not isinstance(value, list) or not all(isinstance(line, str) for line in value):
        raise ValueError("the paired dice are a list of 'MAKE ADDRESS KIND' lines")
    if len(value) > MAX_DICE:
        raise ValueError(f"at most {MAX_DICE} dice are paired")
    addresses = [_address(line) for line in value]
    if len(set(addresses)) != len(addresses):
        raise ValueError("a die is paired twice")
    return list(value)


def in_force(saved: Mapping[str, Any], default: Sequence[str]) -> list[str]:
    """The pairings the box uses: the saved ones when they pass the check, else the config's."""
    if KEY in saved:
        try:
            return check(saved[KEY])
        except ValueError:
            pass  # a row another version wrote: the config's list is still a good one
    return list(default)


def saved(conn: sqlite3.Connection) -> dict[str, Any]:
    """The journal's pairings row, as :func:`in_force` takes it (empty when none was set)."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (KEY,)).fetchone()
    if row is None:
        return {}
    try:
        return {KEY: json.loads(row[0])}
    except ValueError:
        return {}


def paired(lines: Sequence[str], make: str, address: str, kind: str) -> list[str]:
    """``lines`` with the die at ``address`` paired as ``kind``: in its place if it was paired
    already, else after the others; ValueError when the kind or the count is wrong."""
    if kind not in FACES:
        raise ValueError(f"the kind is one of {', '.join(KINDS)}")
    from firmware_bridge.smart_link import SmartDie  # here: a box without dice never loads it

    line = SmartDie(make, address, kind).line
    out = [line if _address(old) == address.upper() else old for old in lines]
    if line not in out:
        out.append(line)
    return check(out)


def forgotten(lines: Sequence[str], address: str) -> list[str]:
    """``lines`` without the die at ``address``; ValueError when it is not paired."""
    out = [line for line in lines if _address(line) != address.upper()]
    if len(out) == len(lines):
        raise ValueError(f"{address} is not paired")
    return out


def _address(line: str) -> str:
    from firmware_bridge.smart_link import parse_pairing  # here: a box without dice never loads it

    return parse_pairing(line).address.upper()


def read_status(state_dir: Path) -> dict[str, Any]:
    """What the box last said of its dice (``paired`` and ``found`` rows); empty when it said
    nothing yet or the file is not one it wrote."""
    try:
        status = json.loads((Path(state_dir) / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return status if isinstance(status, dict) else {}


def write_status(state_dir: Path, status: Mapping[str, Any]) -> None:
    """Replace ``dice.json`` whole (a reader never sees half of it); OSError when it cannot."""
    path = Path(state_dir) / STATUS
    spare = path.with_suffix(".tmp")
    spare.write_text(json.dumps(status), encoding="utf-8")
    os.replace(spare, path)
