"""Shipped values of the Miams coach's search: the first table a game asks for, fast.

With no sheet entered (the sensor's first reading after a game opens) a table asks the search
for the value of each keep of the dice showing; with one or two rerolls left, working those out
is nearly all of a cold table's time (about 1.4 s on a 1 GHz Cortex-A53's instruction clock for
two rerolls with the red die, 80 ms for one). They do not depend on the dice showing, so every
keep's value is shipped here, as the search's own packed ints, for one and two rerolls, the
white dice alone and with the red die: ``odds_tables.bin``, written by
``python -m companion.games.miams.odds_tables`` and checked against the search by the tests.
The file holds a header line of JSON (each solver's packing width and compressed size) and then
each solver's values, zlib-compressed alone: fixed-size little-endian ints, keeps in
``_multisets`` order.
"""

from __future__ import annotations

import json
import logging
import zlib
from functools import cache
from pathlib import Path

from . import odds

log = logging.getLogger(__name__)
PATH = Path(__file__).with_name("odds_tables.bin")
REROLLS = (1, 2)   # the tables a game asks for first
SOLVERS = tuple((with_red, rerolls) for with_red in (False, True) for rerolls in REROLLS)
FORMAT = 3


@cache
def _keys(with_red: bool, rerolls: int) -> list[tuple[int, int, int]]:
    """The keeps shipped for one solver, in file order: every multiset of white dice kept, and
    with the red die rolled, each face kept or the die rerolled."""
    reds = (*range(len(odds.RED)), odds.ROLL_RED) if with_red else (odds.NO_RED,)
    return [(odds._code(counts), red, rerolls)
            for n in range(odds.WHITE_DICE + 1) for counts in odds._multisets(n) for red in reds]


def build() -> bytes:
    """Work the values out with the search itself and pack them: a header line of JSON (each
    solver's packing width and compressed size), then each solver's values compressed alone,
    so that a table reads only its own."""
    solvers, chunks = {}, []
    for with_red, rerolls in SOLVERS:
        solver = odds._Solver(None, with_red, rerolls)
        size = _size(solver.width)
        chunks.append(zlib.compress(b"".join(solver.kept(*key).to_bytes(size, "little")
                                             for key in _keys(with_red, rerolls)), 9))
        solvers[f"{with_red}/{rerolls}"] = {"width": solver.width, "bytes": len(chunks[-1])}
    return json.dumps({"format": FORMAT, "solvers": solvers}).encode() + b"\n" + b"".join(chunks)


def _size(width: int) -> int:
    return -(-width * odds.TARGETS // 8)


@cache
def _chunks() -> dict[tuple[bool, int], tuple[int, bytes]] | None:
    """Each solver's packing width and compressed values; None (said once) when the file is
    unreadable or from another version."""
    try:
        header, _, body = PATH.read_bytes().partition(b"\n")
        found = json.loads(header)
        if found["format"] != FORMAT:
            raise ValueError(f"format {found['format']}, not {FORMAT}")
        out, start = {}, 0
        for with_red, rerolls in SOLVERS:
            solver = found["solvers"][f"{with_red}/{rerolls}"]
            out[with_red, rerolls] = solver["width"], body[start:start + solver["bytes"]]
            start += solver["bytes"]
        if start != len(body):
            raise ValueError(f"{len(body) - start} bytes more than the header says")
        return out
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("miams coach: %s unreadable, the odds are worked out instead: %s", PATH, exc)
        return None


@cache
def keeps(with_red: bool, rerolls: int, width: int) -> dict[tuple[int, int, int], int]:
    """The shipped value of every keep for the (no sheet, ``with_red``, ``rerolls``) solver
    whose packing width is ``width`` (read once); empty (the search works them out) when none
    is shipped or the file is unreadable or packed otherwise."""
    chunks = _chunks()
    if chunks is None or chunks.get((with_red, rerolls), (None,))[0] != width:
        return {}
    keys = _keys(with_red, rerolls)
    size = _size(width)
    try:
        body = zlib.decompress(chunks[with_red, rerolls][1])
    except zlib.error as exc:
        body = b""
        log.warning("miams coach: %s damaged, the odds are worked out instead: %s", PATH, exc)
    if len(body) != len(keys) * size:
        return {}
    return {key: int.from_bytes(body[i * size:(i + 1) * size], "little") for i, key in enumerate(keys)}


if __name__ == "__main__":
    PATH.write_bytes(build())
    print(f"wrote {PATH} ({PATH.stat().st_size:,} bytes)")
