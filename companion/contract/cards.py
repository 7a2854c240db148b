"""A game's printed-card data files as its spec declares them, so that the phone page can
offer each as a form without knowing the game: the file shipped with the box, the loader the
game and ``companion doctor`` read it with, and the document's values a form may change.

A value is named by the key the loader's messages use (``tray[2].ability``, ``rows.pair.end``);
``[]`` in a declared key stands for each table of that list (``drink[].coins``), as many as
the file has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TEXT, NUMBER, FLAG, NUMBERS, TEXTS = "text", "number", "flag", "numbers", "texts"
KINDS = (TEXT, NUMBER, FLAG, NUMBERS, TEXTS)


@dataclass(frozen=True)
class Value:
    """One value of a data file as a form field: a text, a whole number, a flag (true or
    false), or a list of numbers or of texts (written with commas; "-" for an empty text)."""

    kind: str = TEXT
    choices: tuple[str, ...] = ()   # the texts the loader allows, offered as a list
    doc: str = ""
    optional: bool = False          # an empty field leaves the key out of the file

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a card value's kind is one of {', '.join(KINDS)}, not {self.kind!r}")


@dataclass(frozen=True)
class CardFile:
    """A data file of printed cards a game reads when a game is set up."""

    key: str                            # the [games.<key>] config key naming its path: "trays"
    title: str                          # "Trays"
    stand_in: Path                      # the file shipped with the box
    load: Callable[[Path], Any]         # the game's loader: ConfigError (file, key, problem, fix)
    values: Mapping[str, Value]         # what the form shows and changes, in its order
    # The keys of ``values`` (expanded) whose values in this document are stand-ins, not the
    # printed cards' (an unchecked tray, a sheet still marked stand_in).
    stand_ins: Callable[[Mapping[str, Any]], Iterable[str]] = field(default=lambda doc: ())
    doc: str = ""                       # a line on what the file holds and where to check it
