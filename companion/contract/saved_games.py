"""The unfinished games the box keeps, as the resume list shows them: game, players, where it
stands (the game's own ``describe``) and when it was last played. (The session reads them from
the journal; this module is what screens may import.)"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

WEEK_S = 6 * 24 * 3600  # within this, a weekday names the day unambiguously


@dataclass(frozen=True)
class SavedEntry:
    """One unfinished game: ``id`` is its journal id (None: a game kept only in memory)."""

    id: int | None
    title: str      # the game's title, "Makan Mania"
    where: str      # "round 2", from the game's describe()
    players: str    # "Ana, Ben, Cy"; empty for a game without named players
    last_at: float  # wall-clock time of its last action (or its start)

    @property
    def heading(self) -> str:
        """"Makan Mania, round 2": the words the resume question and the list share."""
        return f"{self.title}, {self.where}"


def players_text(state: Any) -> str:
    """The players' names when the state has them (Makan's ``players``), else ""."""
    players = getattr(state, "players", None) or ()
    names = [getattr(p, "name", p) for p in players]
    return ", ".join(n for n in names if isinstance(n, str) and n)


def when_text(at: float, now: float | None = None) -> str:
    """"today 14:05", "Mon 20:10" within the week, "12 Nov 20:10" before it."""
    now = time.time() if now is None else now
    then, today = time.localtime(at), time.localtime(now)
    clock = time.strftime("%H:%M", then)
    if then[:3] == today[:3]:
        return f"today {clock}"
    if 0 <= now - at < WEEK_S:
        return f"{time.strftime('%a', then)} {clock}"
    return f"{then.tm_mday} {time.strftime('%b', then)} {clock}"
