"""Plays from a BG Stats play file (``.bgsplay``, the box's own or the app's) into the journal,
so that plays recorded on the app join the box's history and stats.

A play file holds results, not actions: an imported play is a finished game with no actions
and a summary made from the file (its players, scores, winners, who started, the variant in
``board``, the rounds). The play as the file gave it is kept in the summary's ``final`` under
``imported``, so exporting again writes the same play (its uuid, ranks, seat order and who was
anonymous or a bot). Plays of games this box does not know are skipped, one line per game, and
a play already in the journal (the same uuid) is not recorded twice.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.contract.facts import TABLE_SEAT, UNNAMED, Seat, Summary
from companion.contract.names import same_name
from companion.contract.spec import GameSpec

from ..journal.journal import Journal
from . import roster, store
from .export import bgg_ids, game_name, game_uuid, play_uuid


class PlayFileError(Exception):
    """The file is not a play file this box can read; the message says why in a line."""


@dataclass
class FilePlay:
    """One play of the file, for a game this box knows."""

    spec: GameSpec[Any]
    uuid: str
    started_at: float
    seconds: float
    board: str
    rounds: int
    seats: list[dict[str, Any]]          # name, bot, anonymous, me, score, winner, start, rank, order


@dataclass
class Read:
    plays: list[FilePlay] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)   # unknown game name -> its plays
    unreadable: list[str] = field(default_factory=list)     # one line per play that is not


def _plain(name: str) -> str:
    """A name compared as people type it: no case, no accents, single spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
                    .split())


def _list(data: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise PlayFileError(f"its {key!r} is not a list of objects")
    return value


def _whole(value: Any) -> int | None:
    """A score as the app writes it ("55", 55, "55.0"), or None when it is not a whole number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() and abs(number) < 1e9 else None


def _flag(value: Any) -> bool:
    return value is True or value == 1  # the app writes booleans, some tools 0 and 1


def _is_bot(row: Mapping[str, Any]) -> bool:
    """Whether a player (or a seat) is marked as a bot: ``metaData`` ``{"isNpc":1}``."""
    try:
        meta = json.loads(row.get("metaData") or "{}")
    except (TypeError, ValueError):
        return False
    return isinstance(meta, dict) and _flag(meta.get("isNpc"))


def _match(game: Mapping[str, Any], games: Mapping[str, GameSpec[Any]], ids: Mapping[str, int]
           ) -> GameSpec[Any] | None:
    """The registered game a file's game is: by BGG id, by the box's own uuid, else by name."""
    bgg = _whole(game.get("bggId")) or 0
    for key, spec in games.items():
        if (bgg and ids.get(key) == bgg) or str(game.get("uuid")).upper() == game_uuid(key):
            return spec
    names = {_plain(str(game.get(k, ""))) for k in ("name", "bggName")} - {""}
    for spec in games.values():
        if names & {_plain(n) for n in (game_name(spec), spec.title, spec.records.play_facts.bgg_name) if n}:
            return spec
    return None


def _date(text: Any) -> float:
    """``playDate`` as the app writes it, the player's local time: ``2026-11-20 19:30:00``."""
    return time.mktime(time.strptime(str(text), "%Y-%m-%d %H:%M:%S"))


def read_play_file(text: str, games: Mapping[str, GameSpec[Any]],
                   ids: Mapping[str, int] | None = None) -> Read:
    """The plays of a play file for the games in ``games``; PlayFileError if it is none."""
    ids = bgg_ids(games=games) if ids is None else ids
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlayFileError(f"not JSON (line {getattr(exc, 'lineno', '?')})") from None
    if not isinstance(data, dict) or not isinstance(data.get("plays"), list):
        raise PlayFileError("not a BG Stats play file (no list of plays)")
    players = {_key(p.get("id")): p for p in _list(data, "players")}
    file_games = {_key(g.get("id")): g for g in _list(data, "games")}
    info = data.get("userInfo")
    me = _key(info.get("meRefId")) if isinstance(info, dict) else None
    out = Read()
    for number, play in enumerate(_list(data, "plays"), 1):
        game = file_games.get(_key(play.get("gameRefId")), {})
        spec = _match(game, games, ids)
        if spec is None:
            name = _shown(game.get("name") or f"game {_key(play.get('gameRefId'))}")
            out.skipped[name] = out.skipped.get(name, 0) + 1
            continue
        try:
            started = _date(play.get("playDate"))
            seats = [_seat(players, score, me, order)
                     for order, score in enumerate(play.get("playerScores") or [], 1)]
        except (ValueError, TypeError, AttributeError, KeyError, OverflowError):
            out.unreadable.append(f"play {number} ({game_name(spec)}): its date or players "
                                  "cannot be read")
            continue
        if not seats:
            out.unreadable.append(f"play {number} ({game_name(spec)}): no players")
            continue
        minutes = _whole(play.get("durationMin")) or 0
        out.plays.append(FilePlay(
            spec, str(play.get("uuid") or ""), started, 60.0 * max(0, min(minutes, 10080)),
            str(play.get("board") or ""), max(0, _whole(play.get("rounds")) or 0), seats))
    return out


def _shown(text: Any) -> str:
    """A file's name as the box keeps and says it: one line, at most 40 characters."""
    return " ".join(str(text).split())[:40] or "?"


def _key(value: Any) -> int | str | None:
    """An id as a dictionary key: whole numbers and text only (a list is no id)."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _seat(players: Mapping[Any, Mapping[str, Any]], score: Mapping[str, Any], me: Any,
          order: int) -> dict[str, Any]:
    ref = _key(score["playerRefId"])
    if ref is None:
        raise ValueError("a player's id is not a number")
    player = players.get(ref, {})
    return {"name": _shown(player.get("name") or "?"), "bot": _is_bot(player) or _is_bot(score),
            "anonymous": _flag(player.get("isAnonymous")),
            "me": me is not None and ref == me,
            "score": _whole(score.get("score")), "winner": _flag(score.get("winner")),
            "start": _flag(score.get("startPlayer")), "rank": _whole(score.get("rank")) or 0,
            "order": _whole(score.get("seatOrder")) or order}


# ----- into the journal -----------------------------------------------------------------------

def recorded_uuids(journal: Journal) -> set[str]:
    """The play uuids the journal's games already have (its own and imported), in upper case:
    a file from an earlier release wrote them in lower case."""
    found = {play_uuid(gid, started) for gid, started in
             journal.read("SELECT id, started_at FROM games", ())}
    found |= {str(u).upper() for (u,) in journal.read(
        "SELECT json_extract(final, '$.imported.uuid') FROM summaries "
        "WHERE json_valid(final)", ()) if u}
    return found


def import_plays(journal: Journal, plays: list[FilePlay]) -> list[tuple[int, FilePlay]]:
    """Record each play not yet in the journal, one transaction each; returns (game id, play)
    of those recorded. Each named person joins the roster, as when the box seats them, and the
    file's user becomes the box's "me" if the box never asked who that is."""
    known = recorded_uuids(journal)
    done = []
    for play in plays:
        if play.uuid and play.uuid.upper() in known:
            continue
        game_id = int(journal.read("SELECT COALESCE(MAX(id), 0) + 1 FROM games", ())[0][0])
        journal.record(_statements(journal, game_id, play))
        if not journal.status.ok:
            break
        known.add(play.uuid.upper())
        done.append((game_id, play))
    return done


def _statements(journal: Journal, game_id: int, play: FilePlay) -> tuple[store.Statement, ...]:
    asked, me_id = roster.me_row(journal.read)
    names = dict(journal.read("SELECT id, name FROM players", ()))
    now = time.time()
    out: list[store.Statement] = [("INSERT INTO games (id, game, started_at, status) VALUES "
                                   "(?, ?, ?, 'finished')", (game_id, play.spec.key, play.started_at))]
    for seat in play.seats:
        if seat["me"] and me_id is not None:
            seat["name"] = names[me_id]  # the file's user is the box's user
        if seat["bot"] or seat["anonymous"] or not _rosterable(seat["name"]):
            continue
        known = next((n for n in names.values() if same_name(n, seat["name"])), None)
        seat["name"] = known or seat["name"]
        out.append(("INSERT INTO players (name, last_used) VALUES (?, ?) ON CONFLICT(name) "
                    "DO UPDATE SET last_used = MAX(COALESCE(last_used, 0), excluded.last_used)",
                    (seat["name"], now)))
        if seat["me"] and not asked:
            out.append(("INSERT INTO settings (key, value) VALUES (?, (SELECT id FROM players "
                        "WHERE name = ?)) ON CONFLICT(key) DO NOTHING",
                        (roster.ME_SETTING, seat["name"])))
    if not play.spec.records.cooperative:  # the table's seats are the file's; a cooperative game has one
        out += [("INSERT INTO game_players (game_id, seat, player_id) VALUES "
                 "(?, ?, (SELECT id FROM players WHERE name = ?))", (game_id, i, s["name"]))
                for i, s in enumerate(play.seats) if _linked(s)]
    final = {"imported": {"from": "bgsplay", "uuid": play.uuid, "board": play.board,
                          "rounds": play.rounds, "seats": [
                              {k: v for k, v in s.items() if k != "me"} for s in play.seats]}}
    return (*out, *store.summary_statements(
        game_id, play.spec.key, 0, summarise_play(play), final,
        (play.started_at + play.seconds, play.seconds)))


def _rosterable(name: str) -> bool:
    try:
        return roster.clean_name(name) == name
    except roster.RosterError:
        return False


def _linked(seat: Mapping[str, Any]) -> bool:
    return not seat["bot"] and not seat["anonymous"] and _rosterable(seat["name"])


def summarise_play(play: FilePlay) -> Summary:
    """The summary the history and stats read, made from a play file's play."""
    facts = play.spec.records.play_facts
    variant = facts.variant(play.board)
    if play.spec.records.cooperative:  # the table's one result, as the box keeps its own plays
        won = any(s["winner"] for s in play.seats)
        said = "won" if won else "lost"
        rounds = play.rounds
        return Summary(
            (Seat(TABLE_SEAT, None, won, start=True),),
            f"{said} in round {rounds}" if rounds else said,
            f"{said} R{rounds}" if rounds else said, won, variant,
            (rounds if won else rounds - 1) if rounds else None)
    seats = tuple(Seat(UNNAMED if s["anonymous"] else s["name"], s["score"],
                             s["winner"], s["start"], s["bot"]) for s in play.seats)
    ranked = sorted(zip(play.seats, seats, strict=True),
                    key=lambda pair: (pair[0]["rank"] or 99, -(pair[1].score or 0)))
    headline = " – ".join(f"{seat.name} {'' if seat.score is None else seat.score}".strip()
                          for _, seat in ranked)
    people = [s for s in seats if not s.bot]
    return Summary(
        seats, f"{headline}, {play.board}" if play.board else headline,
        f"{ranked[0][1].name} {'' if ranked[0][1].score is None else ranked[0][1].score}".strip(),
        people[0].winner if len(people) == 1 and len(seats) > 1 else None, variant)

