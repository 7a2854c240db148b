"""Shipped values of the Miams coach's search: the first table a game asks for, fast.

With no sheet entered (the sensor's first reading after a game opens) a table asks the search
for the value of each keep of the dice showing; with one or two rerolls left, working those out
is nearly all of a cold table's time (about 86 ms on a 1 GHz Cortex-A53's instruction clock for
two rerolls with the red die, 13 ms with these values). They do not depend on the dice showing, so every
keep's value is shipped here, as the search's own packed ints, for one and two rerolls, the
white dice alone and with the red die: ``odds_tables.bin``, written by
``python -m companion.games.miams.odds`` and checked against the search by the tests. This
module only reads and writes the file; the odds module says what goes in it.
The file holds a header line of JSON (each solver's packing width and compressed size) and then
each solver's values, zlib-compressed alone: fixed-size little-endian ints, keeps in the
search's multiset order (``odds_search.multiset_moves``).
"""

from __future__ import annotations

import json
import logging
import zlib
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)
PATH = Path(__file__).with_name("odds_tables.bin")
FORMAT = 3


def pack(solvers: dict[str, tuple[int, bytes]]) -> bytes:
    """The file: a header line of JSON (each solver's packing width and compressed size), then
    each solver's values (``(width, bytes)`` by name), compressed alone so that a table reads
    only its own."""
    chunks = {name: (width, zlib.compress(values, 9)) for name, (width, values) in solvers.items()}
    header = {"format": FORMAT, "solvers": {name: {"width": width, "bytes": len(chunk)}
                                            for name, (width, chunk) in chunks.items()}}
    return json.dumps(header).encode() + b"\n" + b"".join(chunk for _, chunk in chunks.values())


@cache
def _chunks() -> dict[str, tuple[int, bytes]] | None:
    """Each solver's packing width and compressed values; None (said once) when the file is
    unreadable or from another version."""
    try:
        header, _, body = PATH.read_bytes().partition(b"\n")
        found = json.loads(header)
        if found["format"] != FORMAT:
            raise ValueError(f"format {found['format']}, not {FORMAT}")
        out, start = {}, 0
        for name, solver in found["solvers"].items():
            out[name] = solver["width"], body[start:start + solver["bytes"]]
            start += solver["bytes"]
        if start != len(body):
            raise ValueError(f"{len(body) - start} bytes more than the header says")
        return out
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("miams coach: %s unreadable, the odds are worked out instead: %s", PATH, exc)
        return None


@cache
def values(name: str, width: int, size: int, count: int) -> tuple[int, ...]:
    """The ``count`` shipped values of solver ``name`` packed ``width`` bits a target in
    ``size`` bytes each (read once); empty (the search works them out) when none is shipped or
    the file is unreadable or packed otherwise."""
    chunks = _chunks()
    if chunks is None or chunks.get(name, (None,))[0] != width:
        return ()
    try:
        body = zlib.decompress(chunks[name][1])
    except zlib.error as exc:
        log.warning("miams coach: %s damaged, the odds are worked out instead: %s", PATH, exc)
        return ()
    if len(body) != count * size:
        return ()
    return tuple(int.from_bytes(body[i * size:(i + 1) * size], "little") for i in range(count))
