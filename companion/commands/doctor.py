"""``companion doctor``: can this box run? One line per check, each with its fix."""

from __future__ import annotations

import argparse

from companion.cli import add_common
from companion.doctor import WARN, Probes, can_run, diagnose


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check config, game data files, display, pins, sensor, state dir and service",
        description="Check everything the box needs and print one line per check with its fix. "
        "Exit status 0 only if the box can run. Run it as the service user to test its "
        "permissions: sudo -u companion companion doctor.",
    )
    add_common(parser)
    parser.add_argument("--sim", action="store_true",
                        help="check against the simulated hardware (no Pi needed)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    probes = Probes.sim() if args.sim else Probes.device()
    findings = diagnose(args.config, probes, state_dir=args.state_dir, sim=args.sim)
    for finding in findings:
        print(finding.line())
    ok = can_run(findings)
    warned = any(f.level == WARN for f in findings)
    if not ok:
        print("The box cannot run: fix the FAIL lines above.")
    else:
        print("The box can run; the warn lines above are worth fixing." if warned else "The box can run.")
    return 0 if ok else 1
