"""The recorded games as files: CSV (one row per player of a game), a BG Stats import file
(the app's own export format, see docs/history.md), a game's actions as JSON lines (what
``companion replay`` reads), and the box's copy of the first two onto a USB stick."""

from __future__ import annotations

import csv
import io
import json
import os
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..games.catalog import GAMES
from .history import Book, Played

# Stable ids, so exporting again gives BG Stats the same players, games and plays.
_NAMESPACE = uuid.UUID("4d2f7a51-3f0e-4f6c-9c55-2b1f0c6e8a17")
PAGE = 500  # games read per query while exporting
LOCATION = "Table Companion"
CSV_FIELDS = ("game_id", "game", "status", "started", "minutes", "result", "seat", "player",
              "score", "winner", "start_player")
# Where desktop automounters put removable drives (udisks2: /media/<user>/<label> on
# Raspberry Pi OS and Debian, /run/media/<user>/<label> elsewhere).
MOUNT_ROOTS = (Path("/media"), Path("/run/media"))


def when(seconds: float) -> str:
    """Local date and time, as BG Stats writes it: ``2026-11-30 19:05:00``."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def minutes(played: Played) -> int | None:
    return None if played.seconds is None else round(played.seconds / 60)


def all_games(book: Book) -> list[Played]:
    """Every game, oldest first, read a page at a time."""
    games: list[Played] = []
    while batch := book.games(limit=PAGE, offset=len(games)):
        games += batch
    return games[::-1]


def to_csv(book: Book) -> str:
    """One row per player of each game (one row without a player for a game with none)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for played in all_games(book):
        _, seats, _ = book.game(played.id)
        common = [played.id, played.game, played.status, when(played.started_at),
                  minutes(played), played.headline or played.status]
        if seats:
            for seat, s in enumerate(seats):
                writer.writerow([*common, seat + 1, s.name, s.score, int(s.winner), int(s.start)])
        else:
            names = played.players or ("",)
            for seat, name in enumerate(names):
                writer.writerow([*common, seat + 1 if name else "", name, "", "", ""])
    return out.getvalue()


def to_bgstats(book: Book) -> dict[str, Any]:
    """The finished games as a BG Stats export file: players, games, a location and plays."""
    players: dict[str, dict[str, Any]] = {}
    games: dict[str, dict[str, Any]] = {}
    plays = []
    for played in all_games(book):
        played, seats, _ = book.game(played.id)
        if played.headline is None:
            continue  # BG Stats keeps plays that ended; an unfinished game waits on the box
        if played.game not in games:
            games[played.game] = _game(played.game, len(games) + 1)
        scores = []
        for s in seats:
            if s.name not in players:
                players[s.name] = {"id": len(players) + 1, "uuid": _uid("player", s.name),
                                   "name": s.name, "isAnonymous": False}
            scores.append({"playerRefId": players[s.name]["id"],
                           "score": "" if s.score is None else str(s.score),
                           "winner": s.winner, "startPlayer": s.start, "newPlayer": False,
                           "rank": 0, "role": ""})
        plays.append({
            "uuid": _uid("play", f"{played.id}/{played.started_at}"),
            "gameRefId": games[played.game]["id"], "locationRefId": 1,
            "playDate": when(played.started_at), "durationMin": minutes(played) or 0,
            "ignored": False, "manualWinner": False, "usesTeams": False, "rounds": 0,
            "board": "", "playerScores": scores,
        })
    return {
        "about": "Plays recorded by Table Companion, in the Board Game Stats export format.",
        "players": list(players.values()),
        "locations": [{"id": 1, "uuid": _uid("location", LOCATION), "name": LOCATION}],
        "games": list(games.values()),
        "plays": plays,
    }


def _game(key: str, ref: int) -> dict[str, Any]:
    spec = GAMES.get(key)
    name = {"miams": "Miams"}.get(key, spec.title if spec else key)
    cafe = key == "cafe"
    return {"id": ref, "uuid": _uid("game", key), "name": name, "cooperative": cafe,
            "highestWins": True, "noPoints": cafe}


def _uid(kind: str, name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{name}"))


def to_jsonl(book: Book, game_id: int) -> str:
    """A game's actions, one JSON object per line: ``companion replay GAME FILE`` replays it."""
    played, _, _ = book.game(game_id)
    lines = [f"# {GAMES[played.game].title if played.game in GAMES else played.game}, "
             f"game {game_id} of {when(played.started_at)}"]
    lines += [json.dumps(action, ensure_ascii=False) for action in book.actions(game_id)]
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so a pulled stick keeps no half file."""
    part = path.with_name(path.name + ".part")
    with open(part, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(part, path)


def removable_drive(roots: Iterable[Path] = MOUNT_ROOTS) -> Path | None:
    """The first mounted drive under /media or /run/media (also one level down, per user)."""
    for root in roots:
        try:
            found = sorted(root.glob("*")) + sorted(root.glob("*/*"))
        except OSError:
            continue
        for path in found:
            if path.is_dir() and os.path.ismount(path):
                return path
    return None


def export_to_drive(book: Book, drive: Path, now: float | None = None) -> list[Path]:
    """Write the CSV and BG Stats files into ``drive``; returns their paths (OSError if the
    drive refuses)."""
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime(now))
    csv_path = drive / f"companion-{stamp}.csv"
    bg_path = drive / f"companion-{stamp}-bgstats.json"
    write_atomic(csv_path, to_csv(book))
    write_atomic(bg_path, json.dumps(to_bgstats(book), indent=1, ensure_ascii=False))
    return [csv_path, bg_path]
