"""What the journal says of its health: its status (About, the title bar's ⚠, the last frame)
and the notices shown once when it changes."""

from __future__ import annotations

from dataclasses import dataclass

# Where a spare is, as a short line of the screen says it.
SHORT_PLACES = {"boot partition": "boot disk"}


@dataclass(frozen=True)
class JournalStatus:
    """Whether changes reach the disk; if not, how many are held in memory and why."""

    ok: bool
    held: int = 0
    reason: str = ""
    kept_on: str = ""  # the spare's place ("USB stick"); "" while held in memory only
    volatile: bool = True  # a power cut loses what is held

    def text(self) -> str:
        """``ok``, or e.g. ``disk full: 26 held`` (short enough for an About line)."""
        return "ok" if self.ok else f"{self.reason}: {self.held} held"

    def kept_words(self) -> str:
        """Where held play is, in a few words for the screen: "play on USB stick"."""
        if not self.kept_on:
            return "play kept in memory"
        if self.volatile:
            return "play in RAM only"
        return f"play on {SHORT_PLACES.get(self.kept_on, self.kept_on)}"


@dataclass(frozen=True)
class Notice:
    """A change of journal health to show once: ``lines`` for a toast, ``saved`` written back."""

    lines: tuple[str, ...]
    error: bool
    saved: int = 0
