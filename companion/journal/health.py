"""What the journal says of its health, as facts: its status (About, the title bar's ⚠, the last
frame) and the notices shown once when it changes. ``companion.ui.journal_words`` words them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JournalStatus:
    """Whether changes reach the disk; if not, how many are held in memory and why."""

    ok: bool
    held: int = 0
    reason: str = ""
    kept_on: str = ""  # the spare's place ("USB stick"); "" while held in memory only
    volatile: bool = True  # a power cut loses what is held
    kept_in: str = ""  # the spare's file ("/media/usb/sda1/companion-spare/journal-spare-….db")


@dataclass(frozen=True)
class Notice:
    """A change of journal health to show once: with ``error``, the disk refused a write and
    ``status`` says where play is kept now; else the held play went back to the disk, ``saved``
    of the players' actions with it."""

    error: bool
    saved: int = 0
    status: JournalStatus | None = None
