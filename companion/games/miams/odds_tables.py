"""Shipped values of the Miams coach's search: the first table a game asks for, fast.

With two rerolls left and no sheet entered (the sensor's first reading after a game opens),
every table needs the same thing: the value of every roll of the dice with one reroll left
(best keep for each target). Working that out is nearly all of a cold table's time (about
2 s on a 1 GHz Cortex-A53's instruction clock with the red die), so it is shipped here, as the
search's own packed ints, for the white dice alone and with the red die: ``odds_tables.bin``,
written by ``python -m companion.games.miams.odds_tables`` and checked against the search by
the tests. The file holds, zlib-compressed, a header line of JSON (the packing width of each
solver) and then each value as fixed-size little-endian bytes, in ``_multisets`` order.
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
REROLLS = 2        # the tables a game asks for first; the value shipped is one reroll less
FORMAT = 1


def _keys(with_red: bool) -> list[tuple[int, int, int]]:
    """The values shipped for one solver, in file order: every five white dice, and each red
    face when the red die is rolled."""
    reds = range(len(odds.RED)) if with_red else (odds.NO_RED,)
    return [(odds._code(counts), red, REROLLS - 1)
            for counts in odds._multisets(odds.WHITE_DICE) for red in reds]


def build() -> bytes:
    """Work the values out with the search itself and pack them."""
    header, body = {"format": FORMAT, "widths": {}}, b""
    for with_red in (False, True):
        solver = odds._Solver(None, with_red, REROLLS)
        size = _size(solver.width)
        header["widths"][str(with_red)] = solver.width
        body += b"".join(solver.value(*key).to_bytes(size, "little") for key in _keys(with_red))
    return zlib.compress(json.dumps(header).encode() + b"\n" + body, 9)


def _size(width: int) -> int:
    return -(-width * odds.TARGETS // 8)


@cache
def _unpacked() -> tuple[dict, bytes] | None:
    try:
        header, _, body = zlib.decompress(PATH.read_bytes()).partition(b"\n")
        return json.loads(header), body
    except (OSError, zlib.error, ValueError) as exc:
        log.warning("miams coach: %s unreadable, the odds are worked out instead: %s", PATH, exc)
        return None


def values(with_red: bool, width: int) -> dict[tuple[int, int, int], int]:
    """The shipped values of the (no sheet, ``with_red``, two rerolls) solver whose packing
    width is ``width``; empty (the search works them out) when the file is missing, damaged or
    from another packing."""
    unpacked = _unpacked()
    if unpacked is None:
        return {}
    header, body = unpacked
    widths = header.get("widths", {})
    size = _size(width)
    keys = _keys(with_red)
    start = sum(len(_keys(red)) * _size(widths.get(str(red), 0)) for red in (False, True)
                if red < with_red)
    if header.get("format") != FORMAT or widths.get(str(with_red)) != width \
            or len(body) != sum(len(_keys(red)) * _size(widths[str(red)]) for red in (False, True)):
        log.warning("miams coach: %s is from another version, the odds are worked out instead", PATH)
        return {}
    return {key: int.from_bytes(body[start + i * size:start + (i + 1) * size], "little")
            for i, key in enumerate(keys)}


if __name__ == "__main__":
    PATH.write_bytes(build())
    print(f"wrote {PATH} ({PATH.stat().st_size:,} bytes)")
