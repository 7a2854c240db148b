"""Smart dice paired on the box: the pairings in force, the link that reads them, a search for
the dice in reach, and what the phone page is told of them.

The pairings are the journal's (set on Settings → Dice or on the page's Dice section) over
config.toml's ``[dice] smart`` (:mod:`companion.records.dice`). A change goes to the link at
once, without a restart: the dice paired before stay connected. A search runs on its own thread
and posts what it found onto the loop, so nothing waits on the radio there; the simulator's
radio finds its virtual dice. After a search, a pairing and a change of a die's connection or
charge the box rewrites ``dice.json`` for the page. The link and the Bluetooth transport are
imported once a die is paired or searched for: a box without dice does not load them at
start-up.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.records import dice as pairs
from firmware_bridge.events import SensorNews

from .events import Call

if TYPE_CHECKING:
    from companion.contract.config import Config
    from companion.contract.input import SensorStatus
    from firmware_bridge.smart_link import SmartDiceLink, SmartDie, Transport
    from hardware.ble_dice import Found
    from hardware.bundle import Hardware

    from ..journal.journal import Journal
    from .play import Play

log = logging.getLogger(__name__)

SEARCH_S = 5.0  # as the link's own searches: BlueZ 5.66 wedges near the kernel's 10.24 s end


@dataclass(frozen=True)
class Radio:
    """How the box reaches dice: ``search(seconds)`` lists those in reach, ``transport()``
    makes what keeps a paired set connected; ``virtual``: the simulator's, whose keys throw
    them (``hardware.extras["dice"]``)."""

    search: Callable[[float], list[Found]]
    transport: Callable[[], Transport]
    virtual: bool = False


def radio(virtual: bool) -> Radio:
    """Bluetooth through bleak, or the simulator's virtual dice (:data:`IN_REACH` found)."""
    if virtual:
        from firmware_bridge.virtual_dice import IN_REACH, VirtualDice
        from hardware.ble_dice import Found

        return Radio(lambda _seconds: [Found(*die) for die in IN_REACH], VirtualDice, virtual=True)
    from hardware.ble_dice import BleakDice, scan

    return Radio(scan, BleakDice)


def pairing(line: str) -> SmartDie:
    """A pairing line's die."""
    from firmware_bridge.smart_link import parse_pairing

    return parse_pairing(line)


def in_force(config: Config, journal: Journal | None) -> list[str]:
    """The pairings the box uses: set on the box or the page, else config.toml's."""
    saved: dict[str, Any] = {}
    if journal is not None:
        try:
            saved = journal.settings()
        except Exception:  # a settings row we cannot read must not stop the box
            log.exception("could not read the paired dice")
    return pairs.in_force(saved, config.dice.smart)


class BoxDice:
    """The box's paired dice (``lines``, in die order), their link and the last search."""

    def __init__(self, config: Config, hardware: Hardware, post: Callable[[object], None],
                 play: Play, sensor: SensorStatus, state_dir: Path | None, *,
                 unpaired: Callable[[str], None]) -> None:
        self._hardware = hardware
        self._post = post
        self._play = play
        self._sensor = sensor
        self._state_dir = state_dir
        self._unpaired = unpaired  # the panel's: no die paired, no sensor icon
        self._radio: Radio | None = hardware.extras.get("radio")
        self._config = config
        self.lines = in_force(config, play.journal)
        # a serial sensor reads the table when no die is paired at start (boot chose it)
        self._serial = bool(config.sensor.port) and not self.lines
        self.link: SmartDiceLink | None = None
        self.found: list[Found] = []
        self.searching = False
        self.problem = ""

    # ----- the link -----------------------------------------------------------------------
    def start(self) -> None:
        """Connect the paired dice in the background (none paired: nothing to do)."""
        if not self.lines or self._radio is None:
            return
        from firmware_bridge.smart_link import SmartDiceLink

        transport = self._radio.transport()
        if self._radio.virtual:
            self._hardware.extras["dice"] = transport
        link = SmartDiceLink([pairing(line) for line in self.lines],
                             lambda: self._post(news), transport)
        news = SensorNews(link.take)
        self.link = self._hardware.extras["sensor"] = link
        self._sensor.configured = True
        link.start()

    def stop(self) -> None:
        if self.link is not None:
            self.link.stop()
            self.link = None

    def _use(self, lines: list[str]) -> None:
        """Read ``lines`` from now on, the old status forgotten (the link tells it again); the
        dice paired before keep their connection."""
        self.lines = lines
        fresh = type(self._sensor)()
        for field in dataclasses.fields(fresh):
            setattr(self._sensor, field.name, getattr(fresh, field.name))
        if self.link is not None and lines:
            self._sensor.configured = True
            self.link.change([pairing(line) for line in lines])
        else:
            self.stop()
            self.start()
        if not lines:
            self._unpaired("sensor")
        self.tell_page()

    def follow(self) -> None:
        """The page may have paired or forgotten a die: use its set at once (while the serial
        sensor reads the table, from the next start)."""
        lines = in_force(self._config, self._play.journal)
        if lines != self.lines and not self._serial:
            self._use(lines)

    # ----- what Settings → Dice asks --------------------------------------------------------
    def search(self) -> str:
        """Start a search for dice in reach; "" when started, else why not."""
        if self._radio is None:
            return "No Bluetooth here"
        if self._serial:
            return "config.toml's sensor reads the dice"
        if not self.searching:
            self.searching, self.problem = True, ""
            threading.Thread(target=self._search, args=(self._radio,), name="dice-search",
                             daemon=True).start()
            self.tell_page()
        return ""

    def _search(self, radio: Radio) -> None:
        try:
            found, said = radio.search(SEARCH_S), ""
        except Exception as exc:  # no adapter, BlueZ not running, no permission on D-Bus
            from hardware.ble_dice import problem

            found, said = [], problem(exc)
        self._post(Call(partial(self._searched, found, said)))

    def _searched(self, found: list[Found], said: str) -> None:
        self.searching, self.found, self.problem = False, found, said
        self.tell_page()

    def found_rows(self) -> list[tuple[str, str]]:
        """The dice the last search found: the name each advertises (its make when it has none),
        and the signal or "paired"."""
        mine = {pairing(line).address.upper() for line in self.lines}
        return [(die.name or die.make.capitalize(),
                 "paired" if die.address.upper() in mine else f"{die.rssi}dBm")
                for die in self.found]

    def paired_rows(self) -> list[tuple[str, str]]:
        """Each paired die's label, and its charge, "on" or "missing"."""
        return [(die.label, "missing" if not up else "on" if charge is None else f"{charge}%")
                for die, up, charge in self._paired()]

    def _paired(self) -> list[tuple[SmartDie, bool, int | None]]:
        states = self.link.status() if self.link is not None else []
        return [(pairing(line), *(states[index] if index < len(states) else (False, None)))
                for index, line in enumerate(self.lines)]

    def pair(self, index: int, kind: str) -> str:
        """Pair the found die ``index`` as ``kind``; what was done (ValueError: refused)."""
        die = self.found[index]
        self._keep(pairs.paired(self.lines, die.make, die.address, kind))
        return f"Paired: {pairing(f'{die.make} {die.address} {kind}').label}"

    def forget(self, index: int) -> str:
        """Forget the paired die ``index``; what was done."""
        label = pairing(self.lines[index]).label
        self._keep(self.lines[:index] + self.lines[index + 1:])
        return f"Forgot {label}"

    def _keep(self, lines: list[str]) -> None:
        self._play.write(lambda journal: journal.save_setting(pairs.KEY, lines))
        self._use(lines)

    # ----- the page -------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """What ``dice.json`` says: each paired die and the last search's dice."""
        paired = [{"make": die.make, "address": die.address, "kind": die.kind, "label": die.label,
                   "connected": up, "battery": charge} for die, up, charge in self._paired()]
        return {"paired": paired, "found": [dataclasses.asdict(die) for die in self.found],
                "searching": self.searching, "problem": self.problem}

    def tell_page(self) -> None:
        if self._state_dir is None or self._play.journal is None:
            return
        try:
            pairs.write_status(self._state_dir, self.status())
        except OSError as exc:
            log.warning("the page is not told of the dice: %s", exc)
