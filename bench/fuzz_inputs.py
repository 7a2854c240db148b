"""Malformed config and data files, and adversarial replay files, loaded as the box loads them.

- bad files: config.toml, trays and drinks files, Miams sheet and tile files broken in every way
  an installer or a damaged SD card can (syntax, wrong types, unknown keys, huge numbers, unicode
  digits, long names, empty, binary, BOM, deep nesting), each read by its loader and by
  ``companion doctor`` in process. ``bad_file_tracebacks``: an exception that is not the box's
  own ConfigError, or doctor raising (aim 0); ``bad_files_misjudged``: a file loaded that should
  be refused, or the reverse, or doctor passing a refused file (aim 0).
- replays: the example games with lines broken or fields replaced by hostile values, through
  ``companion replay`` in process and a few as a subprocess. ``replay_tracebacks``: an exception
  out of the command, a Python exception name or a traceback in its output, more than one line
  of error, or an exit status other than 0 or 2 (aim 0).

    python bench/fuzz_inputs.py [--quick] [--json]

``run(quick)`` returns the figures as a dict.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.cli import main as companion_main
from companion.doctor.checks import FAIL, OK, Probes, diagnose
from companion.games import box_config as config
from companion.games.makan_mania import data as makan
from companion.games.miams import sheet as miams

ROOT = Path(__file__).resolve().parent.parent

EXAMPLES = ROOT / "docs" / "examples"
GAMES = {"makan": "makan_4p.jsonl", "cafe": "cafe_game.jsonl", "miams": "miams_game.jsonl"}
# A Python exception's name in what the box prints is a leak, whatever else the line says.
LEAK = re.compile(r"Traceback|\b[A-Z][A-Za-z]*(Error|Exception)\b")

# ----- bad files ----------------------------------------------------------------------------

# kind, name, content, and what the box should do: "refuse" it, "load" it, or load it with
# doctor FAILing what it would do to a game ("doctor").
Case = tuple[str, str, bytes, str]
# The [games.*] key that points the box at each kind of data file.
SETTING = {"trays": ("makan", "trays"), "drinks": ("makan", "drinks"), "sheet": ("miams", "sheet"),
           "tile": ("miams", "tile")}


def _shipped(kind: str) -> str:
    path = {"trays": makan.TRAYS_FILE, "drinks": makan.DRINKS_FILE, "sheet": miams.DEFAULT_SHEET,
            "tile": miams.DEFAULT_TILE}.get(kind)
    return path.read_text(encoding="utf-8") if path else config.example_toml()


def _edit(kind: str, name: str, old: str, new: str, expect: str = "refuse") -> Case:
    text = _shipped(kind)
    assert old in text, (kind, old)
    return kind, name, text.replace(old, new, 1).encode(), expect


def bad_files() -> list[Case]:
    """Every malformed file of the campaign: a few broken the same way for every kind of file,
    then the mistakes each kind of file invites."""
    cases: list[Case] = []
    for kind in ("config", "trays", "drinks", "sheet", "tile"):
        good = _shipped(kind)
        # The example config is all comments: empty or cut short, it is all the defaults.
        short = "load" if kind == "config" else "refuse"
        cases += [
            (kind, "empty", b"", short),
            (kind, "binary", bytes(range(256)) * 4, "refuse"),
            (kind, "latin-1", "name = \"Caf\xe9\"\n".encode("latin-1"), "refuse"),
            (kind, "bom", ("\ufeff" + good).encode(), "load"),
            (kind, "truncated", good[: len(good) // 2 + 7].encode(), short),
            (kind, "unclosed bracket", (good + "\nx = [1, 2\n").encode(), "refuse"),
            (kind, "huge integer", (good + "\nbig = " + "9" * 5000 + "\n").encode(), "refuse"),
            (kind, "deep arrays", (good + "\ndeep = " + "[" * 5000 + "]" * 5000 + "\n").encode(), "refuse"),
            (kind, "deep tables", (good + "\ndeep = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n").encode(),
             "refuse"),
            (kind, "nul byte", (good[:40] + "\0" + good[40:]).encode(), "refuse"),
            (kind, "unknown key", ("surprise = 1\n" + good).encode(), "refuse"),
        ]
    cases += [
        ("config", "wrong type", b"[buttons]\nup = \"five\"\n", "refuse"),
        ("config", "bool for int", b"[buttons]\nup = true\n", "refuse"),
        ("config", "float for int", b"[buttons]\nup = 5.0\n", "refuse"),
        ("config", "huge pin", b"[buttons]\nup = 99999999999999999999999999999\n", "refuse"),
        ("config", "nan", b"[buttons]\nlong_press_s = nan\n", "refuse"),
        ("config", "infinity", b"[display]\ndim_after_min = inf\n", "refuse"),
        ("config", "unknown section", b"[speaker]\nvolume = 2\n", "refuse"),
        ("config", "unknown game", b"[games.chess]\nclock = 1\n", "refuse"),
        ("config", "pin clash", b"[buttons]\nup = 6\n", "refuse"),
        ("config", "tiny round", b"[games.cafe]\nround_seconds = 0\n", "refuse"),
        ("config", "section as value", b"buttons = 5\n", "refuse"),
        ("config", "missing sheet", b"[games.miams]\nsheet = \"/nonexistent/sheet.toml\"\n", "doctor"),
        ("config", "missing drinks", b"[games.makan]\ndrinks = \"/nonexistent/drinks.toml\"\n", "doctor"),
        _edit("trays", "unknown ability", 'ability = "jump_88"', 'ability = "jump_99"'),
        _edit("trays", "duplicate colour", 'colour = "black"', 'colour = "red"'),
        _edit("trays", "long name", 'name = "Red"', 'name = "' + "Red " * 1250 + '"'),
        _edit("trays", "control character", 'name = "Red"', 'name = "Re\\u0000d"'),
        _edit("trays", "other alphabet", 'name = "Red"', 'name = "红"'),
        _edit("trays", "empty name", 'name = "Red"', 'name = " "'),
        _edit("trays", "printed as text", "printed = true\n", 'printed = "yes"\n'),
        ("trays", "tray as table", b'[tray]\ncolour = "red"\n', "refuse"),
        ("drinks", "every copy 1", re.sub(r"copies = \d+", "copies = 1", _shipped("drinks")).encode(),
         "doctor"),
        ("drinks", "no copies", re.sub(r"copies = \d+", "copies = 0", _shipped("drinks")).encode(),
         "doctor"),
        _edit("drinks", "negative copies", "copies = 4", "copies = -1"),
        _edit("drinks", "30-digit copies", "copies = 4", "copies = " + "9" * 30),
        _edit("drinks", "unicode digit", "coins = 1", 'coins = "²"'),
        _edit("drinks", "float cost", "coins = 1", "coins = 1.0"),
        _edit("drinks", "face 7", "faces = [1, 2, 3]", "faces = [1, 2, 7]"),
        _edit("drinks", "faces as text", "faces = [1, 2, 3]", 'faces = "1,2,3"'),
        _edit("drinks", "unknown effect", 'effect = "faces"', 'effect = "magic"'),
        _edit("drinks", "key with a space", 'key = "kopi_o"', 'key = "kopi o"'),
        _edit("drinks", "duplicate key", 'key = "teh_o"', 'key = "kopi_o"'),
        _edit("drinks", "long name", 'name = "Kopi O"', 'name = "' + "Kopi " * 1000 + '"'),
        _edit("drinks", "bell in name", 'name = "Kopi O"', 'name = "Kopi\\u0007"'),
        _edit("drinks", "copies_printed as 1", "copies_printed = false", "copies_printed = 1"),
        _edit("sheet", "superscript stars", '"stars:2", ""]', '"stars:²", ""]'),
        _edit("sheet", "arabic-indic stars", '"stars:2", ""]', '"stars:٣", ""]'),
        _edit("sheet", "5000-digit stars", '"stars:2", ""]', '"stars:' + "9" * 5000 + '", ""]'),
        _edit("sheet", "hearts as text", "hearts = [3, 4, 6, 7]", 'hearts = [3, "4", 6, 7]'),
        _edit("sheet", "huge hearts", "hearts = [3, 4, 6, 7]", "hearts = [3, 4, 6, " + "7" * 40 + "]"),
        _edit("sheet", "end 0", "end = 3", "end = 0"),
        _edit("sheet", "13 spaces", "hearts = [3, 4, 6, 7]", "hearts = [" + ", ".join(["1"] * 13) + "]"),
        _edit("sheet", "rows as number", "[rows.pair]", "rows = 5\n[other]"),
        _edit("sheet", "long name", 'name = "Stand-in sheet"', 'name = "' + "S" * 5000 + '"'),
        _edit("sheet", "misspelt key", "catch_up", "catchup"),
        _edit("sheet", "catch_up as text", "catch_up = [", 'catch_up = "stars:1" # ['),
        _edit("tile", "unknown skewer", '"pair"', '"nope"'),
        _edit("tile", "faces as list", "[faces]", "faces = [1]\n[x]"),
        _edit("tile", "stand_in as text", "stand_in = true", 'stand_in = "true"'),
        _edit("tile", "long fruit name", 'fruit1 = "Stand-in 1"', 'fruit1 = "' + "Berry" * 1000 + '"'),
        _edit("tile", "missing face", 'marshmallow = "yums"', ""),
        _edit("tile", "skewer as number", 'fruit1 = "pair"', "fruit1 = 1"),
    ]
    return cases


def _file_outcome(kind: str, path: Path) -> str:
    """How the box's loader takes a file: "loads", "refused" or an exception's name."""
    try:
        if kind == "config":
            config.load(path, required=True)
        elif kind == "trays":
            makan.load_trays(path)
        elif kind == "drinks":
            makan.load_drinks(path)
            makan.copies_printed(path)
        else:
            (miams.load_sheet if kind == "sheet" else miams.load_tile)(path)
    except config.ConfigError:
        return "refused"
    except Exception as exc:  # any other escape is what the campaign counts
        return type(exc).__name__
    return "loads"


def _doctor(kind: str, path: Path, folder: Path) -> tuple[str, list[str]]:
    """``companion doctor``'s findings for a box using this file: (worst level, lines)."""
    if kind == "config":
        config_path = path
    else:
        game, key = SETTING[kind]
        config_path = folder / "config.toml"
        config_path.write_text(f'[games.{game}]\n{key} = "{path}"\n', encoding="utf-8")
    findings = diagnose(str(config_path), Probes.sim(), state_dir=str(folder / "state"), sim=True)
    # The simulated board has no GPIO chip to probe; only the file checks matter here.
    files = [f for f in findings if f.check in ("config", "makan", "miams")]
    worst = FAIL if any(f.level == FAIL for f in files) else "warn" if any(
        f.level != OK for f in files) else OK
    return worst, [f.line() for f in files]


def run_bad_files(folder: Path) -> dict[str, Any]:
    tracebacks, misjudged = [], []
    cases = bad_files()
    for number, (kind, name, content, expect) in enumerate(cases):
        path = folder / f"{number:03d}-{kind}.toml"
        path.write_bytes(content)
        outcome = _file_outcome(kind, path)
        try:
            worst, lines = _doctor(kind, path, folder)
        except Exception as exc:  # doctor words every finding: an escape is a defect
            tracebacks.append(f"{kind}/{name}: doctor {type(exc).__name__}")
            continue
        if outcome not in ("loads", "refused") or any(LEAK.search(line) for line in lines):
            tracebacks.append(f"{kind}/{name}: {outcome}")
        elif (outcome == "refused") != (expect == "refuse") or (outcome == "refused" and worst == OK) or (
                expect == "doctor" and worst != FAIL):
            misjudged.append(f"{kind}/{name}: {outcome}, doctor {worst}")
    return {"bad_files": len(cases), "bad_file_tracebacks": len(tracebacks),
            "bad_files_misjudged": len(misjudged), "bad_file_problems": (tracebacks + misjudged)[:10]}


# ----- adversarial replays ------------------------------------------------------------------

HOSTILE: list[Any] = [
    None, True, False, 0, -1, 1e-6, 2.0, "0", "", "x" * 10_000, "\ud800", "\u2028", [], {}, [[]],
    10**18 - 1, -(10**18 - 1), 1e15, -1e15, {"type": "setup"}, [0] * 1000, "²", 1.5,
]
RAW_VALUES = ["9" * 5000, "1e400", "-1e400", "NaN", "Infinity", "[" * 50 + "]" * 50, "1" + "0" * 19,
              '"\\u0000"', "1e-400"]


def _lines(game: str) -> list[str]:
    return [line for line in (EXAMPLES / GAMES[game]).read_text(encoding="utf-8").split("\n")
            if line.strip() and not line.startswith("#")]


def _mutate(lines: list[str], rng: random.Random) -> list[str]:
    """One action of a good game with one field replaced, dropped or given a hostile raw value;
    the game stops after it."""
    at = rng.randrange(len(lines))
    action = json.loads(lines[at])
    key = rng.choice([*action, "type", "extra"])
    how = rng.random()
    if how < 0.15:
        action.pop(key, None)
        line = json.dumps(action)
    elif how < 0.7:
        action[key] = rng.choice(HOSTILE)
        line = json.dumps(action, ensure_ascii=rng.random() < 0.5)
    else:
        action[key] = "@@RAW@@"
        line = json.dumps(action).replace('"@@RAW@@"', rng.choice(RAW_VALUES))
    return [*lines[:at], line]


def _structural(lines: list[str]) -> list[bytes]:
    """Whole-file breakages: encodings, BOM, truncation, not an object, nesting."""
    text = "\n".join(lines) + "\n"
    return [
        b"", b"\xff\xfe\x00\x01", ("\ufeff" + text).encode(), text.encode("utf-16"),
        text[: len(text) // 2].encode(), ("[" * 100_000).encode(), b'"just a string"\n',
        b"[1, 2, 3]\n", b'{"type": 5}\n', b"{}\n", b"null\n", ("\0" * 100).encode(),
        (text + '{"type": "' + "a" * 100_000 + '"}\n').encode(), text.replace("\n", "\r\n").encode(),
        (text * 3).encode(), ('{"type":"setup"}\n' * 50).encode(),
    ]


def _replay(game: str, path: Path) -> tuple[int | None, str, str, str]:
    """``companion replay`` in process: (exit status, stdout, stderr, escaped exception)."""
    out, err = io.StringIO(), io.StringIO()
    escaped = ""
    code: int | None = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = companion_main(["replay", game, str(path)])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # any escape is what the campaign counts
            escaped = type(exc).__name__
    return code, out.getvalue(), err.getvalue(), escaped


def _bad_run(code: int | None, err: str, escaped: str) -> bool:
    return bool(escaped) or code not in (0, 2) or len(err.strip().splitlines()) > 1 or bool(
        LEAK.search(err)) or (code != 0 and not err.strip())


def run_replays(folder: Path, quick: bool, seed: int = 13) -> dict[str, Any]:
    rng = random.Random(seed)
    files: list[tuple[str, bytes]] = []
    mutated_per_game = 25 if quick else 150
    for game in GAMES:
        lines = _lines(game)
        files += [(game, content) for content in _structural(lines)]
        files += [(game, ("\n".join(_mutate(lines, rng)) + "\n").encode("utf-8", "surrogatepass"))
                  for _ in range(mutated_per_game)]
    problems: list[str] = []
    codes = {0: 0, 2: 0}
    for number, (game, content) in enumerate(files):
        path = folder / f"{number:04d}-{game}.jsonl"
        path.write_bytes(content)
        code, _out, err, escaped = _replay(game, path)
        if _bad_run(code, err, escaped):
            problems.append(f"{path.name}: exit {code} {escaped} {err.strip()[:120]!r}")
        elif code in codes:
            codes[code] += 1
    # A few through a real process: what a user's shell sees, encodings of stdout/stderr included.
    picked = rng.sample(range(len(files)), 3 if quick else 12)
    for number in picked:
        game = files[number][0]
        path = folder / f"{number:04d}-{game}.jsonl"
        result = subprocess.run([sys.executable, "-m", "companion", "replay", game, str(path)],
                                capture_output=True, text=True, errors="replace", timeout=60, cwd=ROOT)
        if _bad_run(result.returncode, result.stderr, ""):
            problems.append(f"{path.name} (process): exit {result.returncode} {result.stderr[:120]!r}")
    return {"replay_adversarial": len(files) + len(picked), "replay_subprocess": len(picked),
            "replay_tracebacks": len(problems), "replay_exit_codes": codes,
            "replay_problems": problems[:10]}


def run(quick: bool) -> dict[str, Any]:
    """The campaign's figures (``quick``: fewer mutated replays and processes, for CI)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fuzz-inputs-") as tmp:
        files_dir, replays_dir = Path(tmp, "files"), Path(tmp, "replays")
        files_dir.mkdir()
        replays_dir.mkdir()
        result = {**run_bad_files(files_dir), **run_replays(replays_dir, quick)}
    result["inputs_seconds"] = round(time.perf_counter() - started, 1)
    return result


def main(argv: list[str] | None = None, report: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer replays, for CI (< 30 s)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    args = parser.parse_args(argv)
    result = run(args.quick)
    if args.json:
        report(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        for key, value in result.items():
            report(f"{key}: {value}")
    failed = result["bad_file_tracebacks"] + result["replay_tracebacks"] + result["bad_files_misjudged"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
