"""``companion replay GAME FILE.jsonl``: apply a game's actions headlessly, print its state."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.games import RuleError
from companion.games.catalog import GAMES
from companion.jsonread import BOM, JsonError, loads


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


def read_actions(lines: list[str], source: str) -> list[tuple[int, dict]]:
    """Parse JSON lines into (line number, action); SystemExit(2) with file:line: reason on a bad
    one (not JSON, nested too deep, a number out of bounds, not an action)."""
    actions = []
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
        actions.append((number, action))
    return actions


def handle(args: argparse.Namespace) -> int:
    spec = GAMES.get(args.game)
    if spec is None:
        print(f"companion replay: unknown game {args.game!r}; games: {', '.join(GAMES)}",
              file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        print(f"companion replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"companion replay: {args.file} is not UTF-8 text (one JSON action per line)",
              file=sys.stderr)
        return 2
    state = spec.initial_state()
    # Lines end at "\n" only, as editors number them (str.splitlines also breaks at U+2028).
    for number, action in read_actions(text.removeprefix(BOM).split("\n"), args.file):
        try:
            state = spec.apply(state, action)
        except RuleError as exc:  # written for the OLED's short lines: one line here
            print(f"{args.file}:{number}: refused: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        except Exception:  # a malformed field the rules did not foresee: still file:line
            print(f"{args.file}:{number}: malformed {action['type'][:40]!r} action: a field has a "
                  "value the rules cannot use", file=sys.stderr)
            return 2
    try:
        json.dump(spec.summary(state), sys.stdout, indent=2, sort_keys=True)
        print()
        sys.stdout.flush()
    except BrokenPipeError:  # `companion replay ... | head`
        sys.stdout = None
    return 0
