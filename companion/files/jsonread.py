"""JSON from outside the box (replay files, actions typed by hand), read with bounds.

Python's own reader recurses once per nesting level, reads integers of any length and floats up
to infinity; a hostile or mistyped line must instead be refused with one short reason.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 32          # an action nests a few levels; far below Python's recursion limit
MAX_DIGITS = 18         # every whole number fits 64 bits; int() is never asked for more
MAX_MAGNITUDE = 1e15    # no count, time or score of a game comes near
BOM = "\ufeff"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonError(ValueError):
    """A JSON text refused; the message is one line saying why."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise JsonError(f"a number has more than {MAX_DIGITS} digits")
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise JsonError(f"the number {text[:24]} is beyond ±{MAX_MAGNITUDE:.0e}")
    return value


def _constant(name: str) -> float:
    raise JsonError(f"{name} is not a number JSON allows")


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects, brackets inside strings not counted."""
    deepest = depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The value of a JSON text (a leading byte-order mark is allowed); JsonError if refused."""
    text = text.removeprefix(BOM)
    if _depth(text) > max_depth:
        raise JsonError(f"nested more than {max_depth} levels deep")
    try:
        return json.loads(text, parse_int=_integer, parse_float=_real, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise JsonError(f"not JSON ({exc.msg} at column {exc.colno})") from None
