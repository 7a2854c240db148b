"""``companion history``: list, show, export and import the games a journal recorded."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from companion.commands.replay import Replay, opened, read_actions, text_lines, unreadable
from companion.contract.config import ConfigError
from companion.files.textfiles import MAX_GAME_BYTES, TooLarge, read_text, write_atomic
from companion.games import RuleError, box_config
from companion.games.catalog import GAMES
from companion.journal.journal import Journal
from companion.records import roster
from companion.records.bgstats import play_file_text
from companion.records.export import (
    BGSPLAY_SUFFIX,
    bgg_ids,
    game_name,
    played_when,
    to_csv,
    to_jsonl,
    when,
)
from companion.records.history import Book, HistoryError, journal_path, open_book, state_dir
from companion.records.importing import PlayFileError, import_plays, read_play_file
from companion.records.store import import_game
from companion.ui.journal_words import note_text
from companion.ui.words import plural

FORMATS = ("csv", "bgsplay", "bgstats", "jsonl")  # bgstats: the play file's former name
T = TypeVar("T")
MAX_MINUTES = 7 * 24 * 60  # an imported game's length: a week is past any real one


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history", help="list, show, export and import recorded games",
        description="The games a journal recorded. --state-dir takes the box's state "
        "directory or a journal.db copied off a box (default: /var/lib/companion when it "
        "holds a journal, else the simulator's ~/.local/state/companion). Reading never "
        "changes the journal.")
    parser.add_argument("--state-dir", help="state directory or journal.db file")
    parser.add_argument("--config", help="config file whose [games.*] bgg_id the exports use "
                        "(default: the box's, when there is one)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="the games, the last first")
    listing.add_argument("--json", action="store_true", help="one JSON array instead of text")
    listing.add_argument("--limit", type=int, default=50, help="at most N games (default 50)")
    show = verbs.add_parser("show", help="one game's result, players and final state")
    show.add_argument("id", type=int)
    export = verbs.add_parser("export", help="write CSV, a BG Stats play file or a game's actions")
    export.add_argument("--format", choices=FORMATS, required=True)
    export.add_argument("--out", required=True, help="the file to write (- for the output)")
    export.add_argument("--id", type=int, help="the game to write as JSON lines (jsonl)")
    imp = verbs.add_parser("import", help="record a finished game from its JSON-lines actions, "
                           "or the plays of a BG Stats play file (.bgsplay)")
    imp.add_argument("file", help="JSON-lines actions, as `companion replay` reads them, or a "
                     "BG Stats play file")
    imp.add_argument("--game", help="game key of JSON-lines actions: " + ", ".join(GAMES))
    imp.add_argument("--date", help="when it was played, YYYY-MM-DD HH:MM (default: the date a "
                     "file exported by the box gives in its first line, else now)")
    imp.add_argument("--minutes", type=float, help="how long it lasted (default: as the file's "
                     "first line says, else 0)")
    roster = verbs.add_parser("roster", help="the players: list, add, rename, merge",
                              description="The roster the box's name picker offers. A rename "
                              "renames the player in every game they played; a merge joins "
                              "two players' games under the second one's name. The box picks "
                              "changes up at its next setup.")
    who = roster.add_subparsers(dest="roster_verb", metavar="ROSTER_VERB", required=True)
    listed = who.add_parser("list", help="the players, the last to play first (\"me\": the box's user)")
    me = who.add_parser("me", help="mark the player who is the box's user (the \"me\" of a "
                        "BG Stats play file)")
    me.add_argument("player", nargs="?", help="the name (or id); leave out with --nobody")
    me.add_argument("--nobody", action="store_true", help="the user is none of the players")
    added = who.add_parser("add", help="a new player")
    added.add_argument("name")
    renamed = who.add_parser("rename", help="give a player a new name everywhere")
    renamed.add_argument("player", help="the name (or id) now")
    renamed.add_argument("name", help="the new name")
    merged = who.add_parser("merge", help="one person entered twice: keep the second")
    merged.add_argument("player", help="the name (or id) that goes")
    merged.add_argument("into", help="the name (or id) that stays")
    # also after the verb: `history list --state-dir`, `history roster list --state-dir`
    for verb in (listing, show, export, imp, roster, listed, me, added, renamed, merged):
        verb.add_argument("--state-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        verb.add_argument("--config", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.set_defaults(handler=handle)


def _fail(message: str, code: int = 2) -> int:
    print(f"companion history: {message}", file=sys.stderr)
    return code


def handle(args: argparse.Namespace) -> int:
    # Opening a file that is not a journal is said once, below, not also by each way tried.
    opening = logging.getLogger("companion.journal.store")
    level = opening.level
    opening.setLevel(logging.ERROR)
    try:
        return _handle(args)
    finally:
        opening.setLevel(level)


def _handle(args: argparse.Namespace) -> int:
    where = state_dir(args.state_dir)
    if args.verb == "import":
        return _import(args, where)
    if args.verb == "roster":
        return _roster(args, where)
    try:
        book = open_book(where)
    except HistoryError as exc:
        return _fail(str(exc))
    try:
        return {"list": _list, "show": _show, "export": _export}[args.verb](args, book)
    except HistoryError as exc:
        return _fail(str(exc))
    except BrokenPipeError:  # `companion history list | head`
        sys.stdout = None
        return 0
    finally:
        book.close()


def _row(played) -> dict:
    return {"id": played.id, "game": played.game, "status": played.status,
            "started": when(played.started_at),
            "minutes": None if played.seconds is None else round(played.seconds / 60),
            "players": list(played.players), "result": played.headline}


def _list(args: argparse.Namespace, book: Book) -> int:
    if args.limit < 1:
        return _fail("--limit: at least 1 game")
    rows = [_row(p) for p in book.games(limit=args.limit)]
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    for r in rows:
        title = GAMES[r["game"]].title if r["game"] in GAMES else r["game"]
        length = f"{r['minutes']} min" if r["minutes"] is not None else "-"
        result = r["result"] or {"playing": "unfinished (Saved games)",
                                 "abandoned": "discarded"}.get(r["status"], r["status"])
        print(f"{r['id']:>5}  {r['started'][:16]}  {title:<14} {length:>7}  "
              f"{', '.join(r['players']) or '-'}: {result}")
    if not rows:
        print("no games recorded yet")
    return 0


def _show(args: argparse.Namespace, book: Book) -> int:
    try:
        played, seats, final = book.game(args.id)
    except KeyError:
        return _fail(f"no game {args.id} in {book.source}", 1)
    out = {**_row(played), "seats": [
        {"name": s.name, "score": s.score, "winner": s.winner, "start_player": s.start,
         "bot": s.bot, **({"drinks": list(s.items)} if s.items else {})} for s in seats],
           "final": final}
    print(json.dumps(out, indent=2, ensure_ascii=False, sort_keys=False))
    return 0


def _export(args: argparse.Namespace, book: Book) -> int:
    if args.format == "jsonl":
        if args.id is None:
            return _fail("--format jsonl writes one game: give its --id (see `list`)")
        try:
            text = to_jsonl(book, args.id)
        except KeyError:
            return _fail(f"no game {args.id} in {book.source}", 1)
    else:
        try:
            ids = bgg_ids(box_config.load(args.config, required=args.config is not None),
                          state_dir=book.source)
        except ConfigError as exc:
            return _fail(str(exc))
        text = to_csv(book, ids) if args.format == "csv" else play_file_text(book, ids)
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    try:
        write_atomic(Path(args.out), text)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror}")
    print(args.out)
    return 0


def _import(args: argparse.Namespace, where: Path) -> int:
    if args.game is None:
        if not args.file.endswith(BGSPLAY_SUFFIX):
            return _fail(f"{args.file}: give --game for JSON-lines actions (a BG Stats play "
                         f"file ends in {BGSPLAY_SUFFIX})")
        return _import_play_file(args, where)
    spec = GAMES.get(args.game)
    if spec is None:
        return _fail(f"unknown game {args.game!r}; games: {', '.join(GAMES)}")
    try:  # a line that is not an action has been said, as `companion replay` says it
        with opened(args.file) as stream:
            lines = list(text_lines(stream, args.file))
        numbered = list(read_actions(iter(lines), args.file))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except (OSError, UnicodeDecodeError, TooLarge) as exc:
        return _fail(unreadable(args.file, exc) or str(exc))
    said = played_when(lines[0]) if lines else None  # a file the box exported dates itself
    length = args.minutes if args.minutes is not None else (said and said[1]) or 0.0
    try:
        started = (time.mktime(time.strptime(args.date, "%Y-%m-%d %H:%M")) if args.date
                   else said[0] if said else time.time() - length * 60)
    except ValueError:
        return _fail(f"--date {args.date!r}: write it as YYYY-MM-DD HH:MM")
    if not 0 <= length <= MAX_MINUTES:  # also refuses nan
        return _fail(f"--minutes: 0 to {MAX_MINUTES} (a week)")
    game = Replay(spec)
    for number, action in numbered:
        try:
            game.play(action)
        except RuleError as exc:
            return _fail(f"{args.file}:{number}: refused: {' '.join(str(exc).split())}", 1)
        except Exception:
            return _fail(f"{args.file}:{number}: malformed {action['type'][:40]!r} action")
    if not spec.rules.is_finished(game.state):
        return _fail(f"{args.file}: the game does not end; only finished games are imported", 1)
    # The journal keeps what the box would have: no undo, the steps it took back gone.
    code, game_id = _into_journal(where, lambda journal: import_game(
        journal, spec, game.actions, game.state, started, length * 60))
    if code == 0:
        print(f"game {game_id}: {spec.title}, {when(started)}")
    return code


def _into_journal(where: Path, write: Callable[[Journal], T]) -> tuple[int, T | None]:
    """Open the journal of the state directory ``where``, ``write(journal)``, close it:
    (the exit status, what ``write`` returned)."""
    if journal_path(where) == where:
        return _fail("import writes into a state directory, not a journal file"), None
    journal, note = Journal.open(where)
    try:
        if not journal.status.ok:
            return _fail(f"cannot write the journal in {where}: "
                         f"{note_text(note) if note else journal.status.reason}"), None
        done = write(journal)
        if not journal.status.ok:
            return _fail(f"cannot write the journal in {where}: {journal.status.reason}"), None
    finally:
        journal.close()
    return 0, done


def _import_play_file(args: argparse.Namespace, where: Path) -> int:
    """The plays of a BG Stats play file, for the games this box knows."""
    try:
        ids = bgg_ids(box_config.load(args.config, required=args.config is not None))
        # A play file is often one long line of JSON: bounded as a whole, not per line.
        text = read_text(args.file, MAX_GAME_BYTES, max_line=MAX_GAME_BYTES, encoding="utf-8-sig")
        found = read_play_file(text, GAMES, ids)
    except ConfigError as exc:
        return _fail(str(exc))
    except UnicodeDecodeError:
        return _fail(f"{args.file} is not UTF-8 text (a BG Stats play file is JSON)")
    except (OSError, TooLarge) as exc:
        return _fail(unreadable(args.file, exc) or str(exc))
    except PlayFileError as exc:
        return _fail(f"{args.file}: {exc}")
    for name, count in found.skipped.items():
        print(f"skipped {plural(count, 'play')} of {name}: a game this box does not know")
    for line in found.unreadable:
        print(f"skipped {line}")
    code, done = _into_journal(where, lambda journal: import_plays(journal, found.plays))
    if code or done is None:
        return code
    for game_id, play in done:
        print(f"game {game_id}: {game_name(play.spec)}, {when(play.started_at)}")
    if len(done) < len(found.plays):
        print(f"already recorded: {plural(len(found.plays) - len(done), 'play')}")
    return 0


def _roster(args: argparse.Namespace, where: Path) -> int:
    try:
        with roster.connect(where) as conn:
            if args.roster_verb == "list":
                me = roster.me(conn)
                for p in roster.players(conn):
                    last = when(p.last_used)[:16] if p.last_used else "-"
                    mark = "  (me)" if me is not None and me.id == p.id else ""
                    print(f"{p.id:>4}  {p.name:<10}  {plural(p.games, 'game'):>9}  last {last}"
                          f"{mark}")
                return 0
            if args.roster_verb == "me":
                if args.nobody == (args.player is not None):
                    return _fail("roster me: give a player, or --nobody")
                marked = roster.set_me(conn, None if args.nobody else args.player)
                print(f"me: {marked.name if marked else 'nobody'}")
                return 0
            if args.roster_verb == "add":
                done = roster.add(conn, args.name)
            elif args.roster_verb == "rename":
                done = roster.rename(conn, args.player, args.name)
            else:
                done = roster.merge(conn, args.player, args.into)
    except roster.RosterError as exc:
        return _fail(str(exc))
    print(f"{done.id}  {done.name}: {plural(done.games, 'game')}")
    return 0
