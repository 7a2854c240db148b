"""The fuzz campaign: bad input of every kind thrown at the box, bounded in time.

Each section is a module ``bench/fuzz_<name>.py`` with ``run(quick: bool) -> dict``; this
script runs them in name order and merges their figures into one object.

    python bench/fuzz.py [--quick] [--json] [--only NAME ...]

``--quick`` (under a minute, for CI) runs fewer cases than the full campaign (under five
minutes). ``--json`` prints one JSON object; without it, one ``key: value`` line per figure.
The exit status is 1 when a figure whose aim is zero (:data:`ZERO_AIMS`) is not, so CI fails.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
# Figures that must be 0: bad input that got through or broke something.
ZERO_AIMS = ("sensor_exceptions", "sensor_false_faces", "bad_file_tracebacks", "replay_tracebacks",
             "button_exceptions", "invariant_breaks")


def sections() -> list[str]:
    """The names of the campaign's sections (``fuzz_<name>.py`` beside this file)."""
    return sorted(path.stem.removeprefix("fuzz_") for path in HERE.glob("fuzz_*.py"))


def run(names: list[str], quick: bool) -> dict[str, object]:
    """Every section's figures in one dict, and the seconds each took."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    figures: dict[str, object] = {"quick": quick}
    for name in names:
        started = time.monotonic()
        figures.update(importlib.import_module(f"fuzz_{name}").run(quick))
        figures[f"{name}_seconds"] = round(time.monotonic() - started, 1)
    return figures


def missed_aims(figures: dict[str, object]) -> list[str]:
    """The zero-aim figures of a run that are not zero (those of sections not run are absent)."""
    return [f"{key}: {figures[key]}" for key in ZERO_AIMS if figures.get(key, 0) != 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the CI campaign (under a minute)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", nargs="+", choices=sections(), default=sections(),
                        metavar="NAME", help=f"only these sections ({', '.join(sections())})")
    args = parser.parse_args(argv)
    figures = run(args.only, args.quick)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {json.dumps(value)}")
    missed = missed_aims(figures)
    for line in missed:
        print(f"fuzz: aim 0 missed: {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
