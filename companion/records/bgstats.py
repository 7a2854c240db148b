"""The BG Stats play file (``.bgsplay``) of the recorded games, the app's "add a play" link for
one of them, written as the app writes its own files (docs/history.md lists each field), and
the box's copy of the play file and the CSV onto a USB stick."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from companion.files.textfiles import write_atomic

from ..contract.spec import GameSpec
from .export import (
    ABOUT,
    ADD_PLAY_URL,
    BGSPLAY_SUFFIX,
    LOCATION,
    SOURCE,
    People,
    Person,
    Play,
    bgg_ids,
    game_name,
    game_uuid,
    minutes,
    plays,
    to_csv,
    when,
)
from .history import Book
from .ids import stable_uuid


def to_bgsplay(book: Book, ids: Mapping[str, int] | None = None,
               games: Mapping[str, GameSpec[Any]] | None = None) -> dict[str, Any]:
    """The finished games as a BG Stats play file: players, games, a location and plays, and
    which player is the user (``userInfo.meRefId``), each part with the fields the app writes
    in its own files (docs/history.md lists them)."""
    ids = bgg_ids(games=games) if ids is None else ids
    people = People(book)
    everyone = [p for p in plays(book, games, people) if p.finished]
    players: dict[str, dict[str, Any]] = {}
    refs = iter(range(max(people.roster, default=0) + 1, 1 << 31))
    # Each row's modificationDate: when the box last wrote of it (the end of its last play).
    last = max((ended(p) for p in everyone), default=time.time())

    def ref(person: Person, at: str) -> int:
        row = players.setdefault(person.key, _player_row(
            person, person.roster_id if person.roster_id is not None else next(refs)))
        row["modificationDate"] = max(row["modificationDate"], at)
        return int(row["id"])

    if people.me is not None:  # first, as the app lists the user
        ref(people.me, when(min((ended(p) for p in everyone), default=last)))
    game_rows: dict[str, dict[str, Any]] = {}
    out_plays = []
    for play in everyone:
        key = play.played.game
        if key not in game_rows:
            game_rows[key] = _game_row(key, play.spec, ids.get(key, 0), len(game_rows) + 1)
        end = when(ended(play))
        game_rows[key]["modificationDate"] = max(game_rows[key]["modificationDate"], end)
        out_plays.append(_play_row(play, game_rows[key]["id"],
                                   [ref(s.person, end) for s in play.seats], end))
    return {
        "about": ABOUT,
        "userInfo": {"meRefId": people.me.roster_id if people.me is not None else 0},
        "players": list(players.values()),
        "locations": [{"id": 1, "uuid": stable_uuid("location", LOCATION), "name": LOCATION,
                       "modificationDate": when(last)}],
        "games": list(game_rows.values()),
        "plays": out_plays,
        "tags": [],  # the app's own list of tags; a reader of its files needs it there
    }


def ended(play: Play) -> float:
    return play.played.ended_at or play.played.started_at


def _player_row(person: Person, ref: int) -> dict[str, Any]:
    # The app's own files mark a bot in the player's metaData, a JSON text {"isNpc":1}.
    return {"id": ref, "uuid": person.uuid, "name": person.name, "isAnonymous": person.anonymous,
            "modificationDate": "", "bggUsername": "", "metaData": _npc(person.bot)}


def _npc(bot: bool) -> str:
    return json.dumps({"isNpc": int(bot)}, separators=(",", ":"))


def _play_row(play: Play, game_ref: int, player_refs: list[int], end: str) -> dict[str, Any]:
    """One play as the app writes it; a cooperative game's result is the winner marked by
    hand (the app writes ``manualWinner`` true when the table won a scoreless game)."""
    cooperative = bool(play.spec and play.spec.records.cooperative)
    won = any(s.winner for s in play.seats)
    return {
        "uuid": play.uuid, "gameRefId": game_ref, "locationRefId": 1,
        "playDate": when(play.played.started_at), "entryDate": end, "modificationDate": end,
        "durationMin": minutes(play.played) or 0, "ignored": False,
        "manualWinner": cooperative and won, "usesTeams": False, "rounds": play.rounds,
        "board": play.board, "scoringSetting": 0, "rating": 0, "bggId": 0, "importPlayId": 0,
        "nemestatsId": 0, "playImages": "[]", "expansionPlays": [],
        "playerScores": [{
            "playerRefId": ref, "score": "" if s.score is None else str(s.score),
            "winner": s.winner, "newPlayer": False, "startPlayer": s.start, "rank": s.rank,
            "seatOrder": s.order, "role": "",
            # One reader of the app's files looks for the bot mark on the seat too.
            **({"metaData": _npc(True)} if s.person.bot else {})}
            for s, ref in zip(play.seats, player_refs, strict=True)],
    }


def _game_row(key: str, spec: GameSpec[Any] | None, bgg_id: int, ref: int) -> dict[str, Any]:
    facts = spec.records.play_facts if spec else None
    name = game_name(spec) if spec else key
    return {"id": ref, "uuid": game_uuid(key), "name": name, "bggId": bgg_id,
            "bggName": (facts.bgg_name if facts else "") or name,
            "bggYear": facts.bgg_year if facts else 0,
            "cooperative": bool(spec and spec.records.cooperative), "highestWins": True,
            "noPoints": bool(facts and facts.no_points), "usesTeams": False,
            "isBaseGame": 1, "isExpansion": 0, "modificationDate": ""}


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
        # The link is followed once the game has ended: the play as logged then, where.
        "playDate": when(ended(play)), "durationMin": minutes(play.played) or 0,
        "board": play.board,
        "location": {"name": LOCATION, "sourceLocationId": stable_uuid("location", LOCATION)},
        "game": {"name": name, "sourceGameId": play.played.game,
                 "highestWins": True, "noPoints": bool(facts and facts.no_points),
                 **({"bggId": bgg_id} if bgg_id else {})},
        "players": [{"name": s.person.name, "sourcePlayerId": s.person.uuid,
                     "startPlayer": s.start, "winner": s.winner, "rank": s.rank, "role": "",
                     **({} if s.score is None else {"score": s.score})} for s in play.seats],
    }
    return ADD_PLAY_URL + quote(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                                safe="")


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
