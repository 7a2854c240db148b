"""``companion doctor``: can this box run? One line per check, each with its fix."""

from __future__ import annotations

import argparse

from companion.cli import add_common
from companion.doctor import Probes, SimProbes, can_run, diagnose


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "doctor", help="check config, display, pins, sensor, state dir and service",
        description="Check everything the box needs and print one line per check with its fix. "
        "Exit status 0 only if the box can run. Run it as the service user to test its "
        "permissions: sudo -u companion companion doctor.",
    )
    add_common(parser)
    parser.add_argument("--sim", action="store_true",
                        help="check against the simulated hardware (no Pi needed)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    probes = SimProbes() if args.sim else Probes()
    findings = diagnose(args.config, probes, state_dir=args.state_dir, sim=args.sim)
    for finding in findings:
        print(finding.line())
    ok = can_run(findings)
    print("The box can run." if ok else "The box cannot run: fix the FAIL lines above.")
    return 0 if ok else 1
