"""What a game's spec hands back to the box as plain facts: a finished game's summary, its
stats lines, its view for the phone's Live page, its doctor findings; and a player's figures over
the games, which the records count and the UI words. The box's history, stats, phone page and
doctor read these and never a game's own state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic

from companion.contract.config import Config

from .play_facts import PlayFacts
from .rules import Action, Rules, StateT

# A read-only query on the journal: ``read(sql, args)`` -> rows.
Read = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]


TABLE_SEAT = "Table"   # the one seat of a cooperative game: the whole table
UNNAMED = "You"        # a player the setup names nobody


@dataclass(frozen=True)
class Seat:
    """One player of a finished game, as the stats and the exports see them."""

    name: str
    score: int | None
    winner: bool
    start: bool = False
    bot: bool = False                       # a player the box plays: shown, never counted
    items: tuple[str, ...] = ()             # what the stats count per seat (Makan's drinks)


@dataclass(frozen=True)
class Summary:
    """A finished game as the history list and the stats read it."""

    seats: tuple[Seat, ...]
    headline: str                           # "won in round 3", "Arthur 74 – you 61, Munchies"
    short: str                              # the list's few words: "won R3", "lost 61-74"
    won: bool | None = None                 # the table's result in a solo or cooperative game
    variant: str | None = None              # what the game's stats group by (a difficulty)
    survived: int | None = None             # rounds the table got through (a cooperative game)


@dataclass(frozen=True)
class Line:
    """A stats row: a label and its value, e.g. ("Makan Mania", "4 games"), ("  won", "1 of 4 (25%)")."""

    label: str
    value: str


@dataclass(frozen=True)
class Stats:
    """A game's own figures under History → Stats (the box) and on the phone's History page."""

    heading: str                                        # "scores": the entry "Makan: scores"
    lines: Callable[[Read], list[Line]]                 # the game's page of figures
    # More lines under a player's games of this one: (read, name, their average score).
    player: Callable[[Read, str, float | None], list[Line]] | None = None
    title: str | None = None                            # the phone's heading, if not "Short: heading"


@dataclass(frozen=True)
class Example:
    """A recorded game of ``docs/examples``, which the screen walk seeds the history with."""

    file: str                               # relative to docs/examples
    played_at: float                        # when it was played (noon UTC: one day everywhere)
    minutes: int


@dataclass(frozen=True, kw_only=True)
class Records:
    """What the history, the stats and the exports read of a game's finished plays."""

    # A finished game's summary from its ``summary`` JSON and its setup action ({} if none).
    summarise: Callable[[dict[str, Any], Action], Summary] | None = None
    stats: Stats | None = None              # its own figures under History → Stats
    cooperative: bool = False               # one shared result: the whole table wins or loses
    # How its finished plays read in a BG Stats play file and the CSV (its BGG id is its
    # config section's ``bgg_id``).
    play_facts: PlayFacts = field(default_factory=PlayFacts)


@dataclass(frozen=True)
class LiveView(Generic[StateT]):
    """The phone's Live page for a game: ``data`` turns the state (with the game's rules and
    its actions with the time each was written) into plain JSON-like data; ``template``, when
    the game ships one, draws it, else the page shows ``data``'s ``facts`` (label -> value) as
    they are."""

    data: Callable[[StateT, Rules[StateT], list[tuple[Action, float | None]]], dict[str, Any]]
    template: Path | None = None


OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Finding:
    """The outcome of one check: ``level`` is ok, warn (runs anyway) or FAIL (cannot run)."""

    check: str
    level: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.level:<4}  {self.check:<8} {self.detail}"
        return f"{text}. Fix: {self.fix}" if self.fix else text


# A game's doctor check of its data files under a config: its findings.
DoctorCheck = Callable[[Config], list[Finding]]


def worded(exc: BaseException) -> tuple[str, str]:
    """A data file's error as (file: key: problem, fix); a ConfigError names all four."""
    names = ("path", "key", "problem")
    if all(hasattr(exc, name) for name in names):
        path, key, problem = (getattr(exc, name) for name in names)
        return f"{path}: {key}: {problem}", getattr(exc, "fix", "")
    return str(exc) or type(exc).__name__, ""


@dataclass(frozen=True)
class GameRecord:
    """A player's finished games of one kind."""

    game: str                       # the game's key
    games: int
    wins: int
    best: int | None                # their best score (None: the game keeps none)
    more: tuple[Line, ...] = ()     # what the game's own stats add for a player


@dataclass(frozen=True)
class PlayerRecord:
    """A player's finished games: in all, then per game, the most played first."""

    games: int
    wins: int
    per_game: tuple[GameRecord, ...]
