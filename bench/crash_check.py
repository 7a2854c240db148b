"""The crash-state campaign's judgement (bench/crash_states.py): is what a journal holds after a
power cut what its box had acknowledged by then?

A box process acknowledges a list of actions each time its screen shows a step (the
reliability campaign's ``--child`` prints it); each acknowledgement is taken on the host with
the block-write log's position at that moment. A crash state is the card as it is after a cut
at some position of the log. Its journal must hold the actions of an acknowledged step *at or
after* the last one acknowledged before that position: never one before it (an acknowledged
action lost), and nothing that no acknowledged step held (a change never acknowledged, half
there). Between two acknowledgements a step may be part-way: the actions it appended so far.

Two things that look like losses are not:

- an action acknowledged and then undone legitimately disappears: the undo's step is after
  the required one; so does a whole game whose setup was undone (the box forgets it, and its
  line says so);
- the Café journals the round clock's readings by itself ("clock" actions) whenever a reading
  is due, acknowledged or not: they are left out of every comparison, neither lost nor extra;
- an undo pressed after the last acknowledged step (its line says ``undoing``) may have reached
  the disk before the cut took its frame: the last step's last few actions may be gone.

Pure: no I/O. Tested in tests/test_crash_check.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Actions the box adds by itself, not on a press: the Café's clock readings.
BOX_OWN = frozenset({"clock"})

Played = dict[int, tuple[str, ...]]  # game id -> its actions as canonical JSON, box's own left out
OK, LOST, HALF = "ok", "acknowledged_lost", "never_acknowledged_half_written"
# The most actions one undo takes back, as the reliability campaign's resume check allows.
UNDO_DEPTH = 3


def played(games: Mapping[int, Sequence[Mapping[str, Any]]]) -> Played:
    """The comparable form of a journal's games (or of an acknowledged step): games holding
    nothing but the box's own entries are as good as not started."""
    out = {}
    for game_id, actions in games.items():
        kept = tuple(json.dumps(a, sort_keys=True) for a in actions if a.get("type") not in BOX_OWN)
        if kept:
            out[int(game_id)] = kept
    return out


def acknowledged(lines: Iterable[Mapping[str, Any]]) -> list[dict[int, list[Any]]]:
    """Every acknowledged step's games, rebuilt from the box process's lines (each carries
    its game's actions as ``keep`` of the last line's, then ``tail``; or says the game was
    forgotten, its setup undone, and is no longer in the journal). A line that only says an
    undo was pressed is no step."""
    games: dict[int, list[Any]] = {}
    steps = []
    for line in lines:
        if line.get("undoing"):
            continue
        game = int(line["game"])
        if line.get("forgot"):
            games.pop(game, None)
            steps.append({g: list(actions) for g, actions in games.items()})
            continue
        games[game] = games.get(game, [])[: line["keep"]] + list(line["tail"])
        if len(games[game]) != line["n"]:
            raise ValueError(f"game {game}: {len(games[game])} actions rebuilt, the line says {line['n']}")
        steps.append({g: list(actions) for g, actions in games.items()})
    return steps


def _prefix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return long[: len(short)] == short


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[:n]


def on_the_way(before: Played, journal: Played, after: Played | None,
               undo_pressed: bool = False) -> bool:
    """Whether ``journal`` is ``before``, or a state a step from ``before`` to ``after`` passes
    through: what the two share (an undo takes back to it), then some of what ``after``
    appended. ``after`` None: the last step; then whole actions appended after it, never
    acknowledged, are allowed (a cut after a commit, before the screen showed it), and with
    ``undo_pressed`` (an undo pressed after it, never shown) its last actions may be gone."""
    games = set(before) | set(journal) | set(after or {})
    if all(journal.get(g, ()) == before.get(g, ()) for g in games):
        return True
    for g in games:
        got, low = journal.get(g, ()), before.get(g, ())
        if after is None:
            if undo_pressed:
                low = low[: max(0, len(low) - UNDO_DEPTH)]
            if not _prefix(low, got):
                return False
            continue
        high = after.get(g, ())
        if not (_prefix(_common(low, high), got) and _prefix(got, high)):
            return False
    return True


def verdict(steps: Sequence[Played], required: int, journal: Played,
            undo_pressed_last: bool = False) -> str:
    """OK when ``journal`` is on the way from an acknowledged step at or after ``required``
    (an index into ``steps``; -1: none acknowledged yet, the empty journal) to the next one;
    LOST when it is an earlier step or misses an action of the required one; HALF when it
    holds what no acknowledged step at or after the required one held. ``undo_pressed_last``:
    an undo was pressed after the last step, and the cut came before its frame."""
    chain: list[Played] = [{}, *steps]
    for j in range(required + 1, len(chain)):
        last = j + 1 == len(chain)
        if on_the_way(chain[j], journal, None if last else chain[j + 1], last and undo_pressed_last):
            return OK
    needed = chain[required + 1]
    if journal in chain[: required + 1] or any(
            not _prefix(actions, journal.get(g, ())) for g, actions in needed.items()):
        return LOST
    return HALF
