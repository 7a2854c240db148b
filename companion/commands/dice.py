"""``companion dice scan``: the Bluetooth dice in reach, as lines to pair them with."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "dice", help="find Pixels and GoDice dice in reach to pair them",
        description="Search for Bluetooth LE dice (Pixels, GoDice) for a few seconds and print "
        "one line per die to put in [dice] smart, with the die kind it stands for in place of "
        "KIND (yellow, blue, white, red), in the order of the game's dice. Roll each die to "
        "wake it before the search.")
    parser.add_argument("action", choices=["scan"], help="scan: list the dice in reach")
    parser.add_argument("--seconds", type=float, default=5.0,
                        help="how long to search (longer wedges BlueZ 5.66, see docs/sensor.md)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from hardware.ble_dice import problem, scan

    try:
        found = scan(args.seconds)
    except Exception as exc:  # no adapter, BlueZ not running, no permission on D-Bus
        print(f"cannot search for dice: {problem(exc)}")
        return 1
    if not found:
        print("no dice in reach: roll each die to wake it, then search again")
        return 1
    print("# put these in config.toml's [dice] smart list, KIND replaced by the die's kind:")
    for die in found:
        print(f'"{die.make} {die.address} KIND",  # {die.name}, {die.rssi} dBm')
    return 0
