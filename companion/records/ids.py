"""The uuids the exports name players, games and plays by, the same on every export, so that
BG Stats counts each once; written in upper case, as the app writes its own.

A person keeps one uuid from the first export on: a name the roster does not hold yet is named
by its uuid, a roster player by the uuid their name had when they joined, and a rename keeps it
(the roster remembers it in the journal's ``settings``, one row per renamed player).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

_NAMESPACE = uuid.UUID("4d2f7a51-3f0e-4f6c-9c55-2b1f0c6e8a17")
# The settings row, per roster player (``player_uuid:12``), of the uuid they keep whatever
# their name becomes; a player without one is named by the uuid of their name.
UUID_SETTING = "player_uuid:"

Read = Callable[[str, tuple], list[tuple]]


def stable_uuid(kind: str, name: str) -> str:
    """The uuid of ``name`` among the ``kind`` ("player", "game", "play", "location")."""
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{name}")).upper()


def name_uuid(name: str) -> str:
    """The uuid a person is exported under while only their name is known."""
    return stable_uuid("player", f"name:{name}")


def roster_uuids(read: Read) -> dict[int, str]:
    """Every roster player's uuid: the one kept at a rename, else their name's, unless another
    player keeps that one (a new "Dee" after Dee was renamed Dora), then one of their own."""
    kept = {}
    for key, value in read("SELECT key, value FROM settings WHERE key LIKE ?",
                           (f"{UUID_SETTING}%",)):
        try:
            kept[int(key.removeprefix(UUID_SETTING))] = str(json.loads(value))
        except ValueError:  # a damaged row names nobody: the player's name's uuid stands
            continue
    taken = set(kept.values())
    out = {}
    for player_id, name in read("SELECT id, name FROM players", ()):
        own = name_uuid(name)
        out[player_id] = kept.get(player_id) or (
            own if own not in taken else stable_uuid("player", f"roster:{player_id}"))
    return out
