"""Play: the game in progress and its journal. Applying an action, an undo, a start or a resume
returns an :class:`Outcome` (the new state, what to say, how the screen must change) and calls
no screen: the table (:mod:`.table`) shows it. Play is the journal's one writer; each action is
journaled before the state changes. The journal never stops play: a write the disk refuses is
held in memory and written back later, and the journal's health is told to the panel
(:class:`~companion.box.panel.Health`), which shows it as a notice no other message hides."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract.rules import Action, RuleError
from companion.contract.saved_games import SavedEntry, players_text
from companion.contract.spec import GameSpec, Session

from ..journal import health_file
from ..journal.health import JournalStatus
from ..journal.journal import Journal, JournalError
from ..records import store as history_store
from ..ui.journal_words import kept_text, notice_lines, saved_words, status_text
from .panel import Health

if TYPE_CHECKING:
    from companion.contract.spec import Clock

log = logging.getLogger(__name__)

RETRY_S = 5.0  # how often a journal holding changes tries the disk again


class Change(Enum):
    """How the screens must change after a step of play."""

    NONE = "the screens read the new state as they draw"
    GAME = "the screens over the game's root go and the root rebuilds (an undo)"
    SHOW = "the game's root is shown (a start, a resume)"
    SETUP = "the game's setup is shown again (its setup undone)"


@dataclass(slots=True)  # made on every press: a plain class of slots is the cheapest to build
class Outcome:
    """What a step of play came to: accepted or not, the state it left, what to say (``error``:
    a refusal's reason, with the error beep) and beep, how the screens change, and the game
    whose screens those are."""

    accepted: bool
    state: Any = None
    say: tuple[str, ...] = ()
    change: Change = Change.NONE
    beep: str | None = None
    error: bool = False
    game: GameSpec[Any] | None = None

    @classmethod
    def refused(cls, reason: str) -> Outcome:
        return cls(False, say=(reason,), error=True)


class Play:
    """The game being played, the saved ones and the journal, owned here."""

    def __init__(self, journal: Journal | None, specs: dict[str, GameSpec[Any]], clock: Clock) -> None:
        self.specs = specs
        self._clock = clock
        # Who is told the journal's health: the panel, once the app has made it.
        self.tell: Callable[[Health], None] = lambda health: None
        self.journal = journal
        self.session: Session[Any] | None = None
        self._saved = SavedGames()
        self._retrying = False
        self._played_at = 0.0  # wall-clock time of the last action (for a game kept only in memory)
        # Where the phone page reads the journal's health (None: nowhere).
        self.health_dir: Path | None = health_file.runtime_dir()
        self._published_health = ""
        self._told_ok: bool | None = None  # the journal's health as last told

    @property
    def journal_ok(self) -> bool:
        """Changes reach the disk (the panel shows ⚠ otherwise)."""
        return self.journal is not None and self.journal.status.ok

    def journal_health(self) -> tuple[str, str | None, str]:
        """The journal's state for the About screen, the file a damaged one was kept as
        (with what it holds, when it is a folder: "bad-1130-1538/: db, WAL, shm"), and the
        spare file held play is written to while the disk refuses ("" if none)."""
        if self.journal is None:
            return "none", None, ""
        status = self.journal.status
        return status_text(status), kept_text(self.journal.startup), status.kept_in

    def journal_saved_words(self) -> str:
        """What the last frame before power-off says about the games: saved, or where the play
        the disk refused is ("kept on the USB stick for the next start", "lost")."""
        return saved_words(self.journal.status if self.journal is not None else None)

    # ----- saved games --------------------------------------------------------------------
    def saved_games(self) -> list[SavedEntry]:
        """Every unfinished game, the one played last first (see :mod:`.saved_games`)."""
        try:
            entries, broken = self._saved.list(self.journal, self.specs, self.session,
                                               self._played_at)
        except JournalError as exc:
            self.tell(Health("journal", self.journal_ok, ("Saved games:", str(exc)), True))
            return []
        for game_id in broken:  # kept in history, no longer offered
            self.write(partial(Journal.discard, game_id=game_id))
            self.tell(Health("journal", self.journal_ok,
                              ("Saved game could not", "be replayed; in history"), True))
        return entries

    def resume(self, game_id: int | None = None) -> Outcome:
        """Continue saved game ``game_id`` (None: the game in memory)."""
        session = self.session
        if game_id is not None and (session is None or session.game_id != game_id):
            try:
                saved = self._writer().load(game_id)
                spec = self.specs[saved.game]
                session = Session(spec, game_id, list(saved.actions), spec.rules.replay(saved.actions))
            except Exception as exc:  # unreadable, unknown or not replayable: say so, stay put
                log.warning("could not resume game %s: %r", game_id, exc)
                return Outcome.refused("That game could not be resumed")
            self.session = session
        if session is None:
            return Outcome(False)
        return Outcome(True, session.state, change=Change.SHOW, game=session.spec)

    def leave(self) -> None:
        """The table leaves for the home menu: a finished game is over with, a running one
        stays to be resumed."""
        if self.session and self.session.spec.rules.is_finished(self.session.state):
            self.session = None

    def discard(self, game_id: int | None) -> None:
        """The table drops a saved game; the journal keeps it in history as abandoned."""
        if self.session is not None and self.session.game_id == game_id:
            self.session = None
        if game_id is not None:
            self.write(lambda j: j.discard(game_id))

    def start(self, key: str, first_action: Action | None = None) -> Outcome:
        """Start game ``key``; every other unfinished game stays saved."""
        spec = self.specs[key]
        state = spec.rules.initial_state()
        actions: list[Action] = []
        if first_action is not None:
            # The setup names its game, so a saved or exported file cannot be replayed as another.
            first_action = {**first_action, "game": first_action.get("game", spec.key)}
            try:
                state = spec.rules.apply(state, first_action)
            except RuleError as exc:
                return Outcome.refused(str(exc))
            actions.append(first_action)
        game_id = None
        if self.journal is not None:
            game_id = self.journal.new_game(spec.key)
            for action in actions:
                self.journal.append(game_id, action, spec.rules.is_undoable(action))
                self.journal.record_players(game_id, self._seat_names(action))  # the roster
            self.journal_news()
        self._played_at = time.time()
        self.session = Session(spec, game_id, actions, state)
        return Outcome(True, state, change=Change.SHOW, game=spec)

    # ----- play ---------------------------------------------------------------------------
    def apply(self, action: Action) -> Outcome:
        """Apply a game action: refused with a reason, or journaled and then the state.

        When the action moves the game on (its ``describe`` changes, e.g. "round 2" to
        "round 3") the journal takes a save point named after the stage just left.
        """
        session = self.session
        if session is None:
            raise RuntimeError("an action without a game")
        spec = session.spec
        try:
            new_state = spec.rules.apply(session.state, action)
        except RuleError as exc:
            return Outcome.refused(str(exc))
        finishes = spec.rules.is_finished(new_state)
        if session.game_id is not None:
            journal = self._writer()
            journal.append(session.game_id, action, spec.rules.is_undoable(action), finishes=finishes)
            stage = spec.rules.describe(session.state)
            if not finishes and spec.rules.describe(new_state) != stage:
                journal.checkpoint(stage)
            self.journal_news()
        self._played_at = time.time()
        session.actions.append(action)
        session.state = new_state
        if session.game_id is not None and finishes:
            self.write(lambda j: history_store.on_finish(j, session))
        return Outcome(True, new_state)

    def undo(self) -> Outcome:
        """Take back the table's last action with the steps the box added after it, and say
        what was undone; rolls the table asked for stay."""
        session = self.session
        if session is None or not session.actions:
            return Outcome(False, say=("Nothing to undo",))
        spec = session.spec
        count, also = spec.rules.last_step(session.actions)
        last = session.actions[-count]
        before = spec.rules.replay(session.actions[:-count])
        if not spec.rules.is_undoable(last):
            # Dice the table has seen (and what the clock decided) stay, as in boardgame.io.
            return Outcome.refused(f"Can't undo: {spec.rules.describe_action(last, before)}")
        if count == len(session.actions) and last.get("type") == "setup":
            return self._withdraw(session, last)
        was_finished = spec.rules.is_finished(session.state)
        # What the box adds with the undo (the Café's clock as it reads now) is journaled in
        # the same change, so a power cut right after it never resumes from an older reading.
        state, added = before, []
        for action in spec.rules.after_undo(before, self._clock.now()):
            state = spec.rules.apply(state, action)
            added.append(action)
        finishes = spec.rules.is_finished(state)
        if (game_id := session.game_id) is not None:
            self.write(lambda j: j.pop_last(
                game_id, count=count, reopens=was_finished,
                then=[(action, spec.rules.is_undoable(action)) for action in added], finishes=finishes))
        session.actions[-count:] = added
        session.state = state
        if session.game_id is not None and finishes:
            self.write(lambda j: history_store.on_finish(j, session))
        return Outcome(True, state, (f"Undone: {spec.rules.describe_action(last, before)}{also}",),
                       Change.GAME, "ok")

    def _withdraw(self, session: Session[Any], setup: Action) -> Outcome:
        """Undoing the setup takes the whole game back: it leaves no trace in the journal (no
        "round 0" to resume, no dropped game in history, nobody credited with it) and the
        table is at that game's setup again."""
        if (game_id := session.game_id) is not None:
            self.write(lambda j: j.forget(game_id))
        self.session = None
        spec = session.spec
        undone = f"Undone: {spec.rules.describe_action(setup, spec.rules.initial_state())}"
        return Outcome(True, None, (undone, "Set up again"), Change.SETUP, "ok", game=spec)

    # ----- the roster of recent players ---------------------------------------------------
    def roster_names(self) -> list[str]:
        """Names of recent players, the last used first (empty without a journal)."""
        try:
            return self.journal.roster() if self.journal is not None else []
        except JournalError:
            return []  # the names are a convenience: typing one still works

    @staticmethod
    def _seat_names(action: Action) -> list[str]:
        """The players' names a setup action seats, in seat order (none for a solo game)."""
        players = action.get("players")
        if not isinstance(players, list):
            return []
        return [p["name"] for p in players
                if isinstance(p, dict) and isinstance(p.get("name"), str)]

    # ----- journal health -----------------------------------------------------------------
    def write(self, write: Callable[[Journal], None]) -> None:
        """One change to the journal (never raises), then what it has to say."""
        if self.journal is not None:
            write(self.journal)
            self.journal_news()

    def journal_news(self) -> None:
        """Tell the panel the journal's health and its newest change; while it holds changes
        in memory, keep a retry on the loop."""
        journal = self._writer()
        notice = journal.take_notice()
        status = journal.status
        ok = status.ok
        if notice is not None or ok != self._told_ok:  # the panel hears of a change only
            self._told_ok = ok
            self.tell(Health("journal", ok) if notice is None
                      else Health("journal", ok, notice_lines(notice), notice.error))
        self._publish_health(status)
        if not ok and not self._retrying:
            self._retrying = True
            self._clock.at(self._clock.now() + RETRY_S, self._retry_journal)

    def _publish_health(self, status: JournalStatus) -> None:
        """Tell the phone page when the health changes (see :mod:`companion.journal.health_file`)."""
        if self.health_dir is None:
            return
        text = health_file.as_text(status)
        if text != self._published_health:
            health_file.publish(self.health_dir, text)
            self._published_health = text

    def _retry_journal(self) -> None:
        self._retrying = False
        self._writer().retry()
        self.journal_news()

    def _writer(self) -> Journal:
        """The journal, which a game with an id (or a retry) implies."""
        if self.journal is None:
            raise RuntimeError("no journal")
        return self.journal


def _entry(spec: GameSpec[Any], game_id: int | None, state: Any, last_at: float) -> SavedEntry:
    return SavedEntry(game_id, spec.title, spec.rules.describe(state), players_text(state), last_at)


class SavedGames:
    """Reads the journal's unfinished games and replays each once (again only when it
    changed); a game that does not replay is reported once by ``broken``."""

    def __init__(self) -> None:
        self._cache: dict[int, tuple[tuple[int, float], SavedEntry]] = {}

    def list(self, journal: Journal | None, games: dict[str, GameSpec[Any]],
             session: Session[Any] | None, session_at: float) -> tuple[list[SavedEntry], list[int]]:
        """The entries, the one played last first, and the ids of games that failed to replay.

        The game in memory (``session``) is described from its state, not replayed; a game
        this version does not know stays in the journal, unlisted.
        """
        entries: list[SavedEntry] = []
        broken: list[int] = []
        if journal is None:
            return _in_memory(entries, session, session_at), broken
        for summary in journal.saved_games():
            spec = games.get(summary.game)
            if spec is None:
                continue
            if session is not None and session.game_id == summary.id:
                entries.append(_entry(spec, summary.id, session.state, summary.last_at))
                continue
            key = (summary.actions, summary.last_at)
            cached = self._cache.get(summary.id)
            if cached is None or cached[0] != key:
                try:
                    state = spec.rules.replay(journal.load(summary.id).actions)
                    cached = (key, _entry(spec, summary.id, state, summary.last_at))
                except Exception as exc:  # another version's journal, or edited by hand
                    log.warning("saved game %s does not replay: %r", summary.id, exc)
                    broken.append(summary.id)
                    continue
                self._cache[summary.id] = cached
            entries.append(cached[1])
        return _in_memory(entries, session, session_at), broken


def _in_memory(entries: list[SavedEntry], session: Session[Any] | None,
               session_at: float) -> list[SavedEntry]:
    """``entries`` with the unfinished game kept only in memory first, if there is one."""
    if session is not None and session.game_id is None \
            and not session.spec.rules.is_finished(session.state):
        entries.insert(0, _entry(session.spec, None, session.state, session_at))
    return entries
