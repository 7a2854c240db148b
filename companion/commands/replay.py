"""``companion replay GAME FILE.jsonl``: apply a game's actions headlessly, print its state."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from companion.contract.rules import Action
from companion.contract.spec import GameSpec
from companion.files import textfiles
from companion.files.jsonread import BOM, JsonError, loads
from companion.games import RuleError
from companion.games.catalog import GAMES

UNDO = "undo"  # the box's long BACK in a file of actions, for every game (docs/games.md)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay a game's JSON actions and print the final state",
        description="Apply one JSON action per line (the journal's vocabulary, see docs/) and "
        "print the final state as JSON. Blank lines and lines starting with # are skipped. "
        "A bad line (not JSON, not an action, or an action the rules refuse) stops it with one "
        "FILE:LINE: reason line and exit status 2.",
    )
    parser.add_argument("game", help="game key: " + ", ".join(GAMES) if GAMES else "game key")
    parser.add_argument("file", help="JSON-lines file of actions, or - for standard input")
    parser.set_defaults(handler=handle)


def read_actions(lines: Iterable[str], source: str) -> Iterator[tuple[int, dict]]:
    """Parse JSON lines into (line number, action), one at a time; SystemExit(2) with
    file:line: reason on a bad one (not JSON, nested too deep, a number out of bounds, not an
    action)."""
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            action = loads(text)
        except JsonError as exc:
            print(f"{source}:{number}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            print(f'{source}:{number}: an action is an object with a "type"', file=sys.stderr)
            raise SystemExit(2)
        yield number, action


class Replay:
    """A game replayed from a file's actions as the box plays them. ``{"type": "undo"}`` takes
    back the table's last step as a long BACK does: the last action with the steps the box
    added after it, refused ("Can't undo: ...") where the box refuses (a roll the table asked
    for, time run out), the whole game when only its setup is left. ``"then"`` holds what the
    box journaled with the undo (the Café's clock reading as it read then), applied after it.
    ``actions`` are the journal's: an undo leaves no action, only what it took back gone."""

    def __init__(self, spec: GameSpec[Any]) -> None:
        self.rules = spec.rules
        self.actions: list[Action] = []
        self.state: Any = self.rules.initial_state()

    def play(self, action: Action) -> None:
        """Apply one action of the file; RuleError if the rules (or the undo) refuse it."""
        if action["type"] == UNDO:
            self._undo(action.get("then", []))
            return
        self.state = self.rules.apply(self.state, action)
        self.actions.append(action)

    def _undo(self, then: Any) -> None:
        if not isinstance(then, list) or not all(
                isinstance(a, dict) and isinstance(a.get("type"), str) and a["type"] != UNDO
                for a in then):
            raise RuleError('an undo\'s "then" is a list of actions')
        if not self.actions:
            raise RuleError("Nothing to undo")
        count, _ = self.rules.last_step(self.actions)
        last, kept = self.actions[-count], self.actions[:-count]
        state = self.rules.replay(kept)
        if not self.rules.is_undoable(last):
            raise RuleError(f"Can't undo: {self.rules.describe_action(last, state)}")
        for action in then:
            state = self.rules.apply(state, action)
        self.actions, self.state = [*kept, *then], state


def text_lines(stream: BinaryIO, source: str) -> Iterator[str]:
    """The lines of a file of actions, read within the bounds of :mod:`companion.files.textfiles`
    (TooLarge past them; UnicodeDecodeError on a line that is not UTF-8). Lines end at "\n"
    only, as editors number them (str.splitlines also breaks at U+2028)."""
    for number, raw in enumerate(textfiles.lines(stream, source)):
        line = raw.decode("utf-8")
        yield line.removeprefix(BOM) if number == 0 else line


@contextlib.contextmanager
def opened(file: str) -> Iterator[BinaryIO]:
    """``file``, or standard input for ``-``, open for reading bytes."""
    if file == "-":
        yield sys.stdin.buffer
        return
    with open(file, "rb") as stream:
        yield stream


def unreadable(file: str, exc: Exception) -> str | None:
    """The one line that says why ``file`` could not be read, or None for another error."""
    if isinstance(exc, textfiles.TooLarge):
        return str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"{file} is not UTF-8 text (one JSON action per line)"
    if isinstance(exc, OSError):
        return f"cannot read {file}: {exc.strerror or exc}"
    return None


def handle(args: argparse.Namespace) -> int:
    spec = GAMES.get(args.game)
    if spec is None:
        print(f"companion replay: unknown game {args.game!r}; games: {', '.join(GAMES)}",
              file=sys.stderr)
        return 2
    game = Replay(spec)
    try:
        with opened(args.file) as stream:
            for number, action in read_actions(text_lines(stream, args.file), args.file):
                try:
                    game.play(action)
                except RuleError as exc:  # written for the OLED's short lines: one line here
                    print(f"{args.file}:{number}: refused: {' '.join(str(exc).split())}",
                          file=sys.stderr)
                    return 2
                except Exception:  # a malformed field the rules did not foresee: still file:line
                    print(f"{args.file}:{number}: malformed {action['type'][:40]!r} action: a "
                          "field has a value the rules cannot use", file=sys.stderr)
                    return 2
    except (OSError, UnicodeDecodeError, textfiles.TooLarge) as exc:
        print(f"companion replay: {unreadable(args.file, exc)}", file=sys.stderr)
        return 2
    try:
        json.dump(spec.rules.summary(game.state), sys.stdout, indent=2, sort_keys=True)
        print()
        sys.stdout.flush()
    except BrokenPipeError:  # `companion replay ... | head`
        sys.stdout = None
    return 0
