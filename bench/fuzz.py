"""The fuzz campaign: bad input of every kind thrown at the box, bounded in time.

Each section is a module ``bench/fuzz_<name>.py`` with ``run(quick: bool) -> dict``; this
script runs them in name order and merges their figures into one object.

    python bench/fuzz.py [--quick] [--json] [--only NAME ...]

``--quick`` (under a minute, for CI) runs fewer cases than the full campaign (under five
minutes). ``--json`` prints one JSON object; without it, one ``key: value`` line per figure.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="the CI campaign (under a minute)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--only", nargs="+", choices=sections(), default=sections(),
                        metavar="NAME", help=f"only these sections ({', '.join(sections())})")
    args = parser.parse_args()
    figures = run(args.only, args.quick)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key}: {json.dumps(value)}")


if __name__ == "__main__":
    main()
