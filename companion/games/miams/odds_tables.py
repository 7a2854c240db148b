"""Shipped values of the Miams coach's search: the first table a game asks for, fast.

With no sheet entered (the sensor's first reading after a game opens) a table asks the search
for the value of each keep of the dice showing; with one or two rerolls left, working those out
is nearly all of a cold table's time (about 1.4 s on a 1 GHz Cortex-A53's instruction clock for
two rerolls with the red die, 80 ms for one). They do not depend on the dice showing, so every
keep's value is shipped here, as the search's own packed ints, for one and two rerolls, the
white dice alone and with the red die: ``odds_tables.bin``, written by
``python -m companion.games.miams.odds_tables`` and checked against the search by the tests.
The file holds, zlib-compressed, a header line of JSON (the packing width of each solver) and
then each value as fixed-size little-endian bytes, solver after solver, keeps in
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
FORMAT = 2


@cache
def _keys(with_red: bool, rerolls: int) -> list[tuple[int, int, int]]:
    """The keeps shipped for one solver, in file order: every multiset of white dice kept, and
    with the red die rolled, each face kept or the die rerolled."""
    reds = (*range(len(odds.RED)), odds.ROLL_RED) if with_red else (odds.NO_RED,)
    return [(odds._code(counts), red, rerolls)
            for n in range(odds.WHITE_DICE + 1) for counts in odds._multisets(n) for red in reds]


def build() -> bytes:
    """Work the values out with the search itself and pack them."""
    widths, body = {}, b""
    for with_red, rerolls in SOLVERS:
        solver = odds._Solver(None, with_red, rerolls)
        widths[f"{with_red}/{rerolls}"] = solver.width
        size = _size(solver.width)
        body += b"".join(solver.kept(*key).to_bytes(size, "little")
                         for key in _keys(with_red, rerolls))
    header = {"format": FORMAT, "widths": widths}
    return zlib.compress(json.dumps(header).encode() + b"\n" + body, 9)


def _size(width: int) -> int:
    return -(-width * odds.TARGETS // 8)


@cache
def _unpacked() -> dict[tuple[bool, int], tuple[int, bytes]] | None:
    """Each solver's packing width and bytes; None (said once) when the file is unreadable."""
    try:
        header, _, body = zlib.decompress(PATH.read_bytes()).partition(b"\n")
        widths = json.loads(header)["widths"] if json.loads(header)["format"] == FORMAT else {}
        out, start = {}, 0
        for with_red, rerolls in SOLVERS:
            width = widths[f"{with_red}/{rerolls}"]
            end = start + len(_keys(with_red, rerolls)) * _size(width)
            out[with_red, rerolls] = width, body[start:end]
            start = end
        if start != len(body):
            raise ValueError(f"{len(body) - start} bytes too many")
        return out
    except (OSError, zlib.error, ValueError, KeyError, TypeError) as exc:
        log.warning("miams coach: %s unreadable or from another version, the odds are worked "
                    "out instead: %r", PATH, exc)
        return None


def keeps(with_red: bool, rerolls: int, width: int) -> dict[tuple[int, int, int], int]:
    """The shipped value of every keep for the (no sheet, ``with_red``, ``rerolls``) solver
    whose packing width is ``width``; empty (the search works them out) when none is shipped
    or the file is unreadable or packed otherwise."""
    unpacked = _unpacked()
    if unpacked is None or (with_red, rerolls) not in unpacked:
        return {}
    shipped, body = unpacked[with_red, rerolls]
    if shipped != width:
        return {}
    size = _size(width)
    return {key: int.from_bytes(body[i * size:(i + 1) * size], "little")
            for i, key in enumerate(_keys(with_red, rerolls))}


if __name__ == "__main__":
    PATH.write_bytes(build())
    print(f"wrote {PATH} ({PATH.stat().st_size:,} bytes)")
