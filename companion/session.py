"""The game session and its journal: start, resume, dispatch and undo game actions, each
journaled before it is shown; a journal that fails is switched off and the game plays on in
memory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from .games.base import Action, GameSpec, RuleError, Screen, Session
from .journal import Journal, JournalError, SavedGame

if TYPE_CHECKING:
    from hardware.bundle import Hardware

log = logging.getLogger(__name__)


class GameSession:
    """The game being played and its journal; part of :class:`companion.app.App`."""

    hardware: Hardware
    games: dict[str, GameSpec]
    journal: Journal | None
    journal_ok: bool
    stack: list[Screen]
    game_root: Screen | None
    session: Session | None
    resumable: SavedGame | None
    _startup_note: str | None

    def _find_resumable(self) -> None:
        try:
            saved = self.journal.unfinished()
        except Exception as exc:
            log.exception("could not read the journal")
            self._journal_failed(f"read failed ({exc.__class__.__name__})")
            return
        if saved is None:
            return
        spec = self.games.get(saved.game)
        if spec is None:
            return  # a game this version does not know stays in history
        try:
            spec.describe(spec.replay(saved.actions))
        except Exception as exc:  # a journal from another version, or hand-edited: keep it aside
            log.warning("saved game %s does not replay: %r", saved.id, exc)
            self._journal_write(lambda j: j.set_status(saved.id, "abandoned"))
            self._startup_note = "Saved game could not be replayed; kept in history"
            return
        self.resumable = saved


    def new_game(self, spec: GameSpec, first_action: Action | None = None) -> bool:
        """Start ``spec`` (the previous unfinished game is kept as history)."""
        state = spec.initial_state()
        actions: list[Action] = []
        if first_action is not None:
            try:
                state = spec.apply(state, first_action)
            except RuleError as exc:
                self.refuse(str(exc))
                return False
            actions.append(first_action)
        game_id = None
        if self.journal is not None and self.journal_ok:
            try:
                game_id = self.journal.new_game(spec.key)
                for action in actions:
                    self.journal.append(game_id, action, spec.is_undoable(action))
            except JournalError as exc:
                self._journal_failed(str(exc))
        self.resumable = None
        self.session = Session(spec, game_id, actions, state)
        self._show_game()
        return True

    def resume(self) -> None:
        """Continue the game in memory, or the one the journal found at start-up."""
        if self.session is None and self.resumable is not None:
            saved = self.resumable
            spec = self.games[saved.game]
            self.session = Session(spec, saved.id, list(saved.actions), spec.replay(saved.actions))
            self.resumable = None
        if self.session is not None:
            self._show_game()

    def abandon_resumable(self) -> None:
        """Keep the cut-off game in history but stop offering it."""
        if self.resumable is not None:
            saved = self.resumable
            self._journal_write(lambda j: j.set_status(saved.id, "abandoned"))
            self.resumable = None

    def _show_game(self) -> None:
        self.game_root = self.session.spec.play(self)
        self.stack = [self.stack[0], self.game_root]
        self.game_root.on_enter()

    def dispatch(self, action: Action) -> bool:
        """Apply a game action: refused with a reason, or journaled and then shown."""
        session = self.session
        if session is None:
            raise RuntimeError("dispatch without a game")
        try:
            new_state = session.spec.apply(session.state, action)
        except RuleError as exc:
            self.refuse(str(exc))
            return False
        if session.game_id is not None and self.journal_ok:
            try:
                self.journal.append(session.game_id, action, session.spec.is_undoable(action))
                if session.spec.is_finished(new_state):
                    self.journal.set_status(session.game_id, "finished")
            except JournalError as exc:
                self._journal_failed(str(exc))
        session.actions.append(action)
        session.state = new_state
        return True

    def undo(self) -> bool:
        """Take back the table's last action with the steps the box added after it, and say
        what was undone; rolls the table asked for stay."""
        session = self.session
        if session is None or not session.actions:
            self.toast("Nothing to undo")
            return False
        count, also = session.spec.last_step(session.actions)
        last = session.actions[-count]
        if not session.spec.is_undoable(last):
            # Dice the table has seen (and what the clock decided) stay, as in boardgame.io.
            before = session.spec.replay(session.actions[:-count])
            self.refuse(f"Can't undo: {session.spec.describe_action(last, before)}")
            return False
        was_finished = session.spec.is_finished(session.state)
        if session.game_id is not None and self.journal_ok:
            try:
                for _ in range(count):
                    self.journal.pop_last(session.game_id)
                if was_finished:
                    self.journal.set_status(session.game_id, "playing")
            except JournalError as exc:
                self._journal_failed(str(exc))
        del session.actions[-count:]
        session.state = session.spec.replay(session.actions)
        while self.stack[-1] is not self.game_root and len(self.stack) > 1:
            self.stack.pop()
        if self.game_root is not None:
            self.game_root.on_state_changed()
        self.toast(f"Undone: {session.spec.describe_action(last, session.state)}{also}")
        self.beep("ok")
        return True

    # ----- journal trouble ----------------------------------------------------------------
    def _journal_write(self, write: Callable[[Journal], None]) -> None:
        if self.journal is None or not self.journal_ok:
            return
        try:
            write(self.journal)
        except JournalError as exc:
            self._journal_failed(str(exc))

    def _journal_failed(self, reason: str) -> None:
        """Keep playing in memory; say so on screen and in the title bar."""
        log.error("journal off: %s", reason)
        self.journal_ok = False
        self.toast("Journal off:", f"{reason}; game kept in memory", error=True)

