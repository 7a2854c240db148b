"""The recorded games as files: a BG Stats play file (``.bgsplay``), a CSV for spreadsheets
(one row per player of a game), a game's actions as JSON lines (what ``companion replay``
reads), the app's "add a play" link, and the box's copy of the first two onto a USB stick.

The play file and the CSV name the same people (:func:`plays`): a seat linked to a roster
player is that player, whatever they are called now, so a rename or a merge keeps their id;
the game's own opponent (Arthur) is a bot, not a person; a Miams player the setup did not name
is the roster's "me", and a cooperative game is played by the whole table, every seat with the
shared result. No seat is ever a name the box made up ("You", "Table"): one the box cannot
name is the app's anonymous player. docs/history.md describes every field.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import settings
from ..config import Config
from ..contract.spec import GameSpec
from ..games.catalog import GAMES
from ..jsonread import BOM
from ..names import same_name
from ..textfiles import write_atomic
from . import roster
from .history import Book, Played, setup_names

# Stable ids, so exporting again gives BG Stats the same players, games and plays.
_NAMESPACE = uuid.UUID("4d2f7a51-3f0e-4f6c-9c55-2b1f0c6e8a17")
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
# Where desktop automounters put removable drives (udisks2: /media/<user>/<label> on
# Raspberry Pi OS and Debian, /run/media/<user>/<label> elsewhere).
MOUNT_ROOTS = (Path("/media"), Path("/run/media"))


def when(seconds: float) -> str:
    """Local date and time: ``2026-11-30 19:05:00`` (the lists and the CSV)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def utc(seconds: float) -> str:
    """UTC date and time as the app writes ``playDate``: ``2026-11-30 18:05:00``."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))


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
    roster_id: int | None = None
    bot: bool = False           # the game's own opponent: never a person of the user's
    anonymous: bool = False     # a seat the box cannot name

    @property
    def uuid(self) -> str:
        return _uid("player", self.key)


BOT_PERSON = "bot:"
NOBODY = Person("anonymous", ANONYMOUS, anonymous=True)


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
        _, me = roster.me_row(book.read)
        self.me = self.by_id(me) if me is not None else None

    def by_id(self, player_id: int) -> Person:
        return Person(f"roster:{player_id}", self.roster[player_id], player_id)

    def by_name(self, name: str) -> Person:
        """The roster player of that name, else the name alone."""
        for pid, known in self.roster.items():
            if same_name(known, name):
                return self.by_id(pid)
        return Person(f"name:{name}", name)

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
        found = [(Person(f"{BOT_PERSON}{s.name}", s.name, bot=True) if s.bot
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
        person = (Person(f"{BOT_PERSON}{name}", name, bot=True) if seat.get("bot")
                  else NOBODY if seat.get("anonymous")
                  else people.by_id(links[i]) if links.get(i) in people.roster
                  else people.by_name(name))
        out.append(PlaySeat(person, seat.get("score"), bool(seat.get("winner")),
                            bool(seat.get("start")), int(seat.get("rank") or 0),
                            int(seat.get("order") or i + 1)))
    return Play(played, spec, str(imported.get("uuid") or uid), str(imported.get("board", "")),
                int(imported.get("rounds") or 0), tuple(out))


# ----- the BG Stats play file -------------------------------------------------------------------

def to_bgsplay(book: Book, ids: Mapping[str, int] | None = None,
               games: Mapping[str, GameSpec[Any]] | None = None) -> dict[str, Any]:
    """The finished games as a BG Stats play file: players, games, a location and plays, and
    which player is the user (``userInfo.meRefId``)."""
    ids = bgg_ids(games=games) if ids is None else ids
    people = People(book)
    everyone = [p for p in plays(book, games, people) if p.finished]
    players: dict[str, dict[str, Any]] = {}
    refs = iter(range(max(people.roster, default=0) + 1, 1 << 31))

    def ref(person: Person) -> int:
        if person.key not in players:
            players[person.key] = {
                "id": person.roster_id if person.roster_id is not None else next(refs),
                "uuid": person.uuid, "name": person.name, "isAnonymous": person.anonymous,
                "metaData": json.dumps({"isNpc": int(person.bot)}, separators=(",", ":"))}
        return int(players[person.key]["id"])

    if people.me is not None:
        ref(people.me)  # the user first, as the app lists them
    game_rows: dict[str, dict[str, Any]] = {}
    out_plays = []
    for play in everyone:
        key = play.played.game
        if key not in game_rows:
            game_rows[key] = _game_row(key, play.spec, ids.get(key, 0), len(game_rows) + 1)
        out_plays.append({
            "uuid": play.uuid, "gameRefId": game_rows[key]["id"], "locationRefId": 1,
            "playDate": utc(play.played.started_at),
            "entryDate": utc(play.played.ended_at or play.played.started_at),
            "durationMin": minutes(play.played) or 0, "ignored": False, "manualWinner": False,
            "usesTeams": False, "rounds": play.rounds, "board": play.board, "scoringSetting": 0,
            "playerScores": [{
                "playerRefId": ref(s.person), "score": "" if s.score is None else str(s.score),
                "winner": s.winner, "newPlayer": False, "startPlayer": s.start, "rank": s.rank,
                "seatOrder": s.order, "role": ""} for s in play.seats],
        })
    return {
        "about": ABOUT,
        "userInfo": {"meRefId": people.me.roster_id if people.me is not None else 0},
        "players": list(players.values()),
        "locations": [{"id": 1, "uuid": _uid("location", LOCATION), "name": LOCATION}],
        "games": list(game_rows.values()),
        "plays": out_plays,
    }


def _game_row(key: str, spec: GameSpec[Any] | None, bgg_id: int, ref: int) -> dict[str, Any]:
    facts = spec.records.play_facts if spec else None
    name = game_name(spec) if spec else key
    return {"id": ref, "uuid": game_uuid(key), "name": name, "bggId": bgg_id,
            "bggName": (facts.bgg_name if facts else "") or name,
            "bggYear": facts.bgg_year if facts else 0,
            "cooperative": bool(spec and spec.records.cooperative), "highestWins": True,
            "noPoints": bool(facts and facts.no_points), "usesTeams": False}


def play_file_text(book: Book, ids: Mapping[str, int] | None = None) -> str:
    """The play file as written to a file or sent to a phone."""
    # Compact: the C encoder, several times faster than an indented file on a large journal.
    return json.dumps(to_bgsplay(book, ids), ensure_ascii=False, separators=(",", ":")) + "\n"


def add_play_link(play: Play, bgg_id: int = 0) -> str:
    """The app's documented "add a play" link for one finished play: it opens BG Stats on the
    phone with the play filled in, to match its game and players and save it."""
    name = game_name(play.spec) if play.spec else play.played.game
    facts = play.spec.records.play_facts if play.spec else None
    data = {
        "sourceName": SOURCE, "sourcePlayId": play.uuid,
        "playDate": utc(play.played.started_at), "durationMin": minutes(play.played) or 0,
        "board": play.board,
        "game": {"name": name, "sourceGameId": play.played.game,
                 "highestWins": True, "noPoints": bool(facts and facts.no_points),
                 **({"bggId": bgg_id} if bgg_id else {})},
        "players": [{"name": s.person.name, "sourcePlayerId": s.person.uuid,
                     "startPlayer": s.start, "winner": s.winner, "rank": s.rank, "role": "",
                     **({} if s.score is None else {"score": s.score})} for s in play.seats],
    }
    return ADD_PLAY_URL + quote(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                                safe="")


def _uid(kind: str, name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{kind}:{name}"))


def play_uuid(game_id: int, started_at: float) -> str:
    """A journal game's play uuid: the same on every export, so the app counts it once."""
    return _uid("play", f"{game_id}/{started_at}")


def game_uuid(key: str) -> str:
    return _uid("game", key)


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
    """A game's actions, one JSON object per line: ``companion replay GAME FILE`` replays it."""
    played, _, _ = book.game(game_id)
    lines = [f"# {GAMES[played.game].title if played.game in GAMES else played.game}, "
             f"game {game_id} of {when(played.started_at)}"]
    lines += [json.dumps(action, ensure_ascii=False) for action in book.actions(game_id)]
    return "\n".join(lines) + "\n"


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


def export_to_drive(book: Book, drive: Path, now: float | None = None,
                    ids: Mapping[str, int] | None = None) -> list[Path]:
    """Write the CSV and the BG Stats play file into ``drive``; returns their paths (OSError
    if the drive refuses)."""
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime(now))
    csv_path = drive / f"companion-{stamp}.csv"
    bg_path = drive / f"companion-{stamp}{BGSPLAY_SUFFIX}"
    write_atomic(csv_path, to_csv(book, ids))
    write_atomic(bg_path, play_file_text(book, ids))
    return [csv_path, bg_path]
