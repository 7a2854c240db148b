"""Each finished game's summary, written into the journal's ``summaries`` tables.

A summary is what the history list and the stats read instead of replaying a game: who
played, their scores, who won, a one-line result, and what each game's stats need (a variant,
rounds survived, items per seat), made by the game's ``summarise``. It is made from the
game's final state (its ``summary`` JSON) and the setup action, so it can be made again from
the actions at any time: the box writes it when a game ends and fills in any that are missing
when it opens a journal.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from companion.contract.facts import Summary
from companion.contract.rules import Action
from companion.contract.spec import GameSpec, Session

from ..games.catalog import GAMES
from ..journal.journal import Journal, JournalError
from ..journal.schema import SUMMARY_TABLES

log = logging.getLogger(__name__)

Statement = tuple[str, tuple[Any, ...]]
Read = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
Write = Callable[[tuple[Statement, ...]], None]

BOOT_BUDGET_S = 5.0     # the longest the box's start spends summarising an old journal
# A seat's name: its roster player's name now when the seat is linked to one (a player renamed
# during the game), else the name the game gave (arguments: game id, seat, that name). The
# roster's renames and merges rewrite the names of summaries already kept (companion/records/roster.py).
SEAT_NAME = ("COALESCE((SELECT r.name FROM game_players g JOIN players r ON r.id = g.player_id "
             "WHERE g.game_id = ? AND g.seat = ?), ?)")


def _setup(actions: list[Action]) -> Action:
    return actions[0] if actions and actions[0].get("type") == "setup" else {}


def summarise(spec: GameSpec[Any], actions: list[Action], final: dict[str, Any]) -> Summary:
    """The summary of a finished game of ``spec`` from its actions and final ``summary`` JSON
    (a game that makes none has no seats and its ``describe`` as its result)."""
    if spec.records.summarise is None:
        said = spec.rules.describe(spec.rules.replay(actions))
        return Summary((), said, said)
    return spec.records.summarise(final, _setup(actions))


def save_statements(game_id: int, spec: GameSpec[Any], actions: list[Action], final: dict[str, Any],
                    timing: tuple[float, float | None]) -> tuple[Statement, ...]:
    """The statements that (re)write ``game_id``'s summary; ``timing`` is (ended_at, seconds)."""
    return summary_statements(game_id, spec.key, len(actions),
                              summarise(spec, actions, final), final, timing)


def summary_statements(game_id: int, key: str, last_seq: int, made: Summary,
                       final: dict[str, Any], timing: tuple[float, float | None]
                       ) -> tuple[Statement, ...]:
    """The statements that write the summary ``made`` of ``game_id`` (made from its first
    ``last_seq`` actions, or none for a play imported from a play file)."""
    out: list[Statement] = [(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
                            for table in SUMMARY_TABLES]
    out.append((
        "INSERT INTO summaries (game_id, game, last_seq, ended_at, seconds, won, variant, "
        "survived, headline, short, final) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (game_id, key, last_seq, timing[0], timing[1],
         None if made.won is None else int(made.won), made.variant, made.survived,
         made.headline, made.short, json.dumps(final, separators=(",", ":")))))
    for seat, s in enumerate(made.seats):
        out.append(("INSERT INTO summary_players (game_id, seat, game, variant, name, score, "
                    f"winner, start, bot) VALUES (?, ?, ?, ?, {SEAT_NAME}, ?, ?, ?, ?)",
                    (game_id, seat, key, made.variant, game_id, seat, s.name, s.score,
                     int(s.winner), int(s.start), int(s.bot))))
        out += [("INSERT INTO summary_items (game_id, seat, name, item) "
                 f"VALUES (?, ?, {SEAT_NAME}, ?)", (game_id, seat, game_id, seat, s.name, item))
                for item in s.items]
    return tuple(out)


def timing(read: Read, game_id: int) -> tuple[float, float | None]:
    """(when the game ended, its length in seconds); journals before version 1 have no
    action times, so such a game's end is its start and its length unknown."""
    started, last = read("SELECT g.started_at, MAX(a.at) FROM games g LEFT JOIN actions a "
                         "ON a.game_id = g.id WHERE g.id = ?", (game_id,))[0]
    return (last, max(0.0, last - started)) if last is not None else (started, None)


def record(read: Read, write: Write, game_id: int, spec: GameSpec[Any], actions: list[Action],
           state: Any) -> None:
    """Write the summary of the finished game ``game_id`` (its ``actions`` led to ``state``)."""
    write(save_statements(game_id, spec, actions, spec.rules.summary(state), timing(read, game_id)))


def on_finish(journal: Journal, session: Session[Any]) -> None:
    """The game just ended on the box: keep its summary (a fault here never stops the game;
    the summary is then made when the journal is next opened)."""
    if session.game_id is None:  # a game kept only in memory has no row to summarise
        return
    try:
        record(journal.read, journal.record, session.game_id, session.spec, session.actions,
               session.state)
    except JournalError:
        raise
    except Exception:
        log.exception("could not summarise game %s", session.game_id)


def stale(read: Read) -> list[int]:
    """Finished games with no summary, one that cannot be read, or one made before an undo
    and a new end."""
    return [row[0] for row in read(
        "SELECT g.id FROM games g LEFT JOIN summaries s ON s.game_id = g.id "
        "WHERE g.status = 'finished' AND (s.game_id IS NULL OR NOT json_valid(s.final) "
        "OR s.last_seq != "
        "(SELECT COALESCE(MAX(seq), 0) FROM actions WHERE game_id = g.id)) ORDER BY g.id", ())]


def backfill(read: Read, write: Write, load: Callable[[int], tuple[str, list[Action]]],
             games: dict[str, GameSpec[Any]] | None = None, budget_s: float | None = None) -> int:
    """Summarise every finished game that lacks an up-to-date summary; returns how many.

    A game this release does not know, or whose actions no longer replay, is skipped (it
    stays in the journal and in the list, without a result). With ``budget_s`` it stops after
    that long and leaves the rest to the next time."""
    games = GAMES if games is None else games
    done = 0
    until = None if budget_s is None else time.monotonic() + budget_s
    for game_id in stale(read):
        if until is not None and done and time.monotonic() > until:  # at least one each time
            log.info("history: more games to summarise at the next start")
            break
        try:
            key, actions = load(game_id)
            spec = games.get(key)
            if spec is None:
                continue
            state = spec.rules.replay(actions)
            if not spec.rules.is_finished(state):
                raise ValueError("the actions do not end the game")
            record(read, write, game_id, spec, actions, state)
        except Exception as exc:  # an old or hand-edited game: keep it, without a summary
            log.warning("game %s has no summary: %s", game_id, " ".join(str(exc).split()))
            continue
        done += 1
    return done


def backfill_journal(journal: Journal | None, budget_s: float = BOOT_BUDGET_S) -> int:
    """Fill in the missing summaries of an open :class:`companion.journal.journal.Journal`, for at
    most ``budget_s`` (the box's start must stay well inside its service start timeout)."""
    if journal is None:
        return 0
    opened = journal

    def load(game_id: int) -> tuple[str, list[Action]]:
        saved = opened.load(game_id)
        return saved.game, saved.actions

    try:
        return backfill(journal.read, journal.record, load, budget_s=budget_s)
    except Exception:  # history is never worth a box that does not start
        log.exception("could not fill in the history's summaries")
        return 0


def import_statements(game_id: int, spec: GameSpec[Any], actions: Iterable[Action],
                      started_at: float, seconds: float) -> tuple[Statement, ...]:
    """A finished game recorded from elsewhere: the game and its actions, spread over
    ``seconds`` from ``started_at`` (a summary follows in the same transaction)."""
    actions = list(actions)
    out: list[Statement] = [("INSERT INTO games (id, game, started_at, status) VALUES "
                             "(?, ?, ?, 'finished')", (game_id, spec.key, started_at))]
    step = seconds / max(1, len(actions))
    for seq, action in enumerate(actions, 1):
        out.append(("INSERT INTO actions (game_id, seq, action, undoable, at) VALUES "
                    "(?, ?, ?, ?, ?)", (game_id, seq, json.dumps(action, separators=(",", ":")),
                                        int(spec.rules.is_undoable(action)), started_at + seq * step)))
    return tuple(out)


def import_game(journal: Journal, spec: GameSpec[Any], actions: list[Action], state: Any,
                started_at: float, seconds: float) -> int:
    """Record a finished game played elsewhere (``actions`` led to ``state``) with its summary,
    in one transaction; returns its id. The caller checks ``journal.status`` afterwards."""
    game_id = int(journal.read("SELECT COALESCE(MAX(id), 0) + 1 FROM games")[0][0])
    rows = import_statements(game_id, spec, actions, started_at, seconds)
    journal.record(rows + save_statements(game_id, spec, actions, spec.rules.summary(state),
                                          (started_at + seconds, seconds)))
    return game_id
