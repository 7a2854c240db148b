"""The recorded games as files: the plays and their people (what the BG Stats play file of
:mod:`.bgstats` writes), a CSV for spreadsheets (one row per player of a game), and a game's
actions as JSON lines (what ``companion replay`` reads).

The play file and the CSV name the same people (:func:`plays`): a seat linked to a roster
player is that player, whatever they are called now, so a rename or a merge keeps their id;
the game's own opponent (Arthur) is a bot, not a person; a Miams player the setup did not name
is the roster's "me", and a cooperative game is played by the whole table, every seat with the
shared result. No seat is ever a name the box made up ("You", "Table"): one the box cannot
name is the app's anonymous player. docs/history.md describes every field.
"""

from __future__ import annotations

import calendar
import csv
import io
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.contract.config import Config
from companion.contract.names import same_name
from companion.files.jsonread import BOM
from companion.records import settings

from ..contract.spec import GameSpec
from ..games.catalog import GAMES
from . import roster
from .history import Book, Played, setup_names
from .ids import name_uuid, roster_uuids, stable_uuid

PAGE = 500  # games read per query while exporting
LOCATION = "Table Companion"
SOURCE = "Table Companion"  # the app that made a play, in the "add a play" link
# The text the app's own play files carry in ``about`` (and beside a shared play file).
ABOUT = "You can import this file using Board Game Stats."
# A play file is a download the phone hands to the app that registered the extension; a JSON
# type would make the browser show it instead.
BGSPLAY_SUFFIX = ".bgsplay"
BGSPLAY_MIME = "application/octet-stream"
ADD_PLAY_URL = "https://app.bgstatsapp.com/createPlay.html?data="
ANONYMOUS = "Anonymous player"  # the app's own entry for a seat that names nobody
CSV_FIELDS = ("game_id", "game", "bgg_id", "date", "time", "minutes", "status", "variant",
              "rounds", "result", "seat", "player", "score", "winner", "rank", "start_player",
              "bot")
# The end of to_jsonl's first line: " of 2026-11-20 19:30:00 +0100, 48 min".
_PLAYED = re.compile(r" of (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?: ([+-]\d{4}))?(?:, (\d+) min)?$")
# Where desktop automounters put removable drives (udisks2: /media/<user>/<label> on
# Raspberry Pi OS and Debian, /run/media/<user>/<label> elsewhere).
MOUNT_ROOTS = (Path("/media"), Path("/run/media"))


def when(seconds: float) -> str:
    """Local date and time: ``2026-11-30 19:05:00`` (the lists, the CSV, and every date of the
    play file: the app keeps the player's own clock, not UTC)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def minutes(played: Played) -> int | None:
    return None if played.seconds is None else round(played.seconds / 60)


def all_games(book: Book) -> list[Played]:
    """Every game, oldest first, read a page at a time."""
    games: list[Played] = []
    while batch := book.games(limit=PAGE, offset=len(games)):
        games += batch
    return games[::-1]


def bgg_ids(config: Config | None = None, games: Mapping[str, GameSpec[Any]] | None = None,
            state_dir: str | Path | None = None) -> dict[str, int]:
    """Each game's BoardGameGeek id: its config's ``bgg_id`` (or the game's default), or the
    value set on the box or the phone in the journal of ``state_dir``, as the box uses it."""
    games = GAMES if games is None else games
    try:
        overrides = settings.report(state_dir)[0] if state_dir is not None else {}
    except sqlite3.Error:  # a journal that cannot be read sets nothing
        overrides = {}
    out = {}
    for key, spec in games.items():
        if "bgg_id" in spec.config:
            section: dict[str, Any] = config.games.get(key, {}) if config is not None else {}
            default = section.get("bgg_id", spec.config["bgg_id"].default)
            out[key] = int(overrides.get(f"games.{key}.bgg_id", default))
    return out


def game_name(spec: GameSpec[Any]) -> str:
    """The game's whole name in files: "3 Minute Crazy Café", "Makan Mania", "Miams"."""
    return spec.records.play_facts.name or spec.title


# ----- who sat where ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Person:
    """Someone at the table as the exports name them."""

    key: str                    # identity: "roster:12", "name:Dee", "bot:Arthur", "anonymous"
    name: str
    uuid: str                   # the same from the first export on (see ids)
    roster_id: int | None = None
    bot: bool = False           # the game's own opponent: never a person of the user's
    anonymous: bool = False     # a seat the box cannot name


def bot_person(name: str) -> Person:
    return Person(f"{BOT_PERSON}{name}", name, stable_uuid("player", f"bot:{name}"), bot=True)


BOT_PERSON = "bot:"
NOBODY = Person("anonymous", ANONYMOUS, stable_uuid("player", "anonymous"), anonymous=True)


@dataclass(frozen=True)
class PlaySeat:
    person: Person
    score: int | None
    winner: bool
    start: bool
    rank: int                   # 1 for the winners; 0 in a cooperative game (one result)
    order: int                  # the seat, from 1


@dataclass(frozen=True)
class Play:
    """One game as the exports write it."""

    played: Played
    spec: GameSpec[Any] | None
    uuid: str
    board: str
    rounds: int
    seats: tuple[PlaySeat, ...]

    @property
    def finished(self) -> bool:
        return self.played.headline is not None


class People:
    """The journal's roster (ids and names now) and its "me", to name each seat by."""

    def __init__(self, book: Book) -> None:
        self.roster = {pid: name for pid, name in book.read("SELECT id, name FROM players")}
        self.uuids = roster_uuids(book.read)
        _, me = roster.me_row(book.read)
        self.me = self.by_id(me) if me is not None else None

    def by_id(self, player_id: int) -> Person:
        return Person(f"roster:{player_id}", self.roster[player_id], self.uuids[player_id],
                      player_id)

    def by_name(self, name: str) -> Person:
        """The roster player of that name, else the name alone."""
        for pid, known in self.roster.items():
            if same_name(known, name):
                return self.by_id(pid)
        return Person(f"name:{name}", name, name_uuid(name))

    def unnamed(self) -> Person:
        """A seat the setup named nobody in: the box's user if known, else anonymous."""
        return self.me or NOBODY


def _ranked(seats: list[tuple[Person, int | None, bool, bool]], cooperative: bool
            ) -> tuple[PlaySeat, ...]:
    """Seats with their rank: the winners first, then by score, ties sharing a rank."""
    def ahead(seat: tuple[Person, int | None, bool, bool]) -> tuple[bool, int]:
        return seat[2], seat[1] if seat[1] is not None else -(10 ** 9)

    out = []
    for order, seat in enumerate(seats, 1):
        rank = 0 if cooperative else 1 + sum(ahead(other) > ahead(seat) for other in seats)
        out.append(PlaySeat(seat[0], seat[1], seat[2], seat[3], rank, order))
    return tuple(out)


def plays(book: Book, games: Mapping[str, GameSpec[Any]] | None = None,
          people: People | None = None, listed: Iterable[Played] | None = None) -> list[Play]:
    """The games ``listed`` (default: every game, oldest first) with their people; unfinished
    ones too: the CSV lists them, the play file keeps the finished."""
    games = GAMES if games is None else games
    people = People(book) if people is None else people
    listed = all_games(book) if listed is None else list(listed)
    # Who sat where and each setup, read a page of games at a time rather than once a game.
    links: dict[int, dict[int, int]] = {}
    setups: dict[int, str] = {}
    for start in range(0, len(listed), PAGE):
        ids = tuple(p.id for p in listed[start:start + PAGE])
        marks = ",".join("?" * len(ids))
        for game_id, seat, player_id in book.read(
                f"SELECT game_id, seat, player_id FROM game_players WHERE game_id IN ({marks})",
                ids):
            links.setdefault(game_id, {})[seat] = player_id
        setups.update(book.read(
            f"SELECT game_id, action FROM actions WHERE seq = 1 AND game_id IN ({marks})", ids))
    return [_play(book, people, games, played, links.get(played.id, {}),
                  _setup_names(setups.get(played.id))) for played in listed]


def _setup_names(action: str | None) -> tuple[str, ...]:
    try:
        return setup_names([json.loads(action)]) if action else ()
    except (ValueError, TypeError, AttributeError):  # not JSON: the summary's names stand
        return ()


def _play(book: Book, people: People, games: Mapping[str, GameSpec[Any]], listed: Played,
          links: Mapping[int, int], named: tuple[str, ...]) -> Play:
    played, seats, final = book.game(listed.id)
    spec = games.get(played.game)
    facts = spec.records.play_facts if spec else None
    imported = (final or {}).get("imported")
    uid = play_uuid(played.id, played.started_at)
    if isinstance(imported, dict):
        return _imported_play(people, played, spec, imported, uid, links)
    cooperative = bool(spec and spec.records.cooperative)
    if final is None:  # unfinished: the setup's names, no result
        sitting = [_seated(people, links, i, name) for i, name in enumerate(named)]
        return Play(played, spec, uid, "", 0,
                    tuple(PlaySeat(p, None, False, i == 0, 0, i + 1) for i, p in enumerate(sitting)))
    found: list[tuple[Person, int | None, bool, bool]]  # (who, score, won, started)
    if cooperative:  # the whole table: its seated names, else the user; one shared result
        won = any(s.winner for s in seats)
        table = [_seated(people, links, i, name) for i, name in enumerate(named)]
        found = [(p, None, won, i == 0) for i, p in enumerate(table or [people.unnamed()])]
    else:
        found = [(bot_person(s.name) if s.bot
                  else _seated(people, links, i, s.name) if i < len(named) or i in links
                  else people.unnamed(), s.score, s.winner, s.start)
                 for i, s in enumerate(seats)]
    return Play(played, spec, uid, facts.board(final) if facts else "",
                facts.rounds(final) if facts else 0, _ranked(found, cooperative))


def _seated(people: People, links: Mapping[int, int], seat: int, name: str) -> Person:
    player_id = links.get(seat)
    if player_id is not None and player_id in people.roster:
        return people.by_id(player_id)
    return people.by_name(name)


def _imported_play(people: People, played: Played, spec: GameSpec[Any] | None,
                   imported: Mapping[str, Any], uid: str, links: Mapping[int, int]) -> Play:
    """A play recorded elsewhere and imported: the people and facts its file gave, the names
    its linked seats bear now."""
    out = []
    for i, seat in enumerate(imported.get("seats", ())):
        name = str(seat.get("name", ""))
        person = (bot_person(name) if seat.get("bot")
                  else NOBODY if seat.get("anonymous")
                  else people.by_id(links[i]) if links.get(i) in people.roster
                  else people.by_name(name))
        out.append(PlaySeat(person, seat.get("score"), bool(seat.get("winner")),
                            bool(seat.get("start")), int(seat.get("rank") or 0),
                            int(seat.get("order") or i + 1)))
    return Play(played, spec, str(imported.get("uuid") or uid), str(imported.get("board", "")),
                int(imported.get("rounds") or 0), tuple(out))


def play_uuid(game_id: int, started_at: float) -> str:
    """A journal game's play uuid: the same on every export, so the app counts it once."""
    return stable_uuid("play", f"{game_id}/{started_at}")


def game_uuid(key: str) -> str:
    return stable_uuid("game", key)


# ----- the spreadsheet --------------------------------------------------------------------------

def to_csv(book: Book, ids: Mapping[str, int] | None = None,
           games: Mapping[str, GameSpec[Any]] | None = None) -> str:
    """One row per player of each game (one row without a player for a game with none), as
    UTF-8 text with a byte-order mark, so that Excel reads its names and dashes right."""
    ids = bgg_ids(games=games) if ids is None else ids
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    for play in plays(book, games):
        p = play.played
        day, _, clock = when(p.started_at).partition(" ")
        common = [p.id, game_name(play.spec) if play.spec else p.game, ids.get(p.game, 0) or "",
                  day, clock[:5], minutes(p), p.status, play.board, play.rounds or "",
                  p.headline or p.status]
        for s in play.seats:
            writer.writerow([*common, s.order, "" if s.person.anonymous else s.person.name,
                             "" if s.score is None else s.score,
                             int(s.winner) if play.finished else "", s.rank or "",
                             int(s.start), int(s.person.bot)])
        if not play.seats:
            writer.writerow([*common, "", "", "", "", "", "", ""])
    return BOM + out.getvalue()


# ----- a game's actions, and the USB stick ------------------------------------------------------

def to_jsonl(book: Book, game_id: int) -> str:
    """A game's actions, one JSON object per line: ``companion replay GAME FILE`` replays it.
    The first line, a comment, says when it was played (``companion history import`` dates
    the game by it)."""
    played, _, _ = book.game(game_id)
    length = "" if played.seconds is None else f", {minutes(played)} min"
    lines = [f"# {GAMES[played.game].title if played.game in GAMES else played.game}, "
             f"game {game_id} of {when(played.started_at)} "
             f"{time.strftime('%z', time.localtime(played.started_at))}{length}"]
    lines += [json.dumps(action, ensure_ascii=False) for action in book.actions(game_id)]
    return "\n".join(lines) + "\n"


def played_when(line: str) -> tuple[float, float | None] | None:
    """When a game exported as JSON lines was played, read from the comment :func:`to_jsonl`
    writes first: (its start, its minutes if said); None when the line says no date."""
    found = _PLAYED.search(line.rstrip()) if line.startswith("#") else None
    if found is None:
        return None
    try:
        clock = time.strptime(found[1], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    if found[2]:  # the exporting box's offset from UTC: the same instant in any time zone
        offset = int(found[2][1:3]) * 3600 + int(found[2][3:5]) * 60
        start = float(calendar.timegm(clock) - (offset if found[2][0] == "+" else -offset))
    else:
        start = time.mktime(clock)
    return start, float(found[3]) if found[3] else None


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
