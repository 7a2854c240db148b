"""What companion-hotspot.service tells the box and the phone page of the box's own Wi-Fi
network, in ``hotspot/hotspot.json`` in the state directory (written by root, read by both).
Light to import: the box reads it from its start."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path

ADDRESS = "10.42.0.1"  # the box on its own network (a /24; phones get .10 to .99 from dnsmasq)
PREFIX = 24
REQUEST_NAME = "wifi-request.json"  # in the state directory's handed/, written by the page
STATE_FOLDER = "hotspot"  # in the state directory
STATE_NAME = "hotspot.json"  # in STATE_FOLDER
NETWORKS_SHOWN = 20  # scanned networks offered on the page


class Mode(StrEnum):
    OFF = "off"  # no radio, or the box's network is joined or still being tried
    OPEN = "open"  # the access point is up
    JOINING = "joining"  # a phone's network is being joined
    JOINED = "joined"  # a phone's network was joined: the access point is closed


@dataclass(frozen=True)
class State:
    mode: Mode
    name: str = ""
    passphrase: str = ""
    network: str = ""  # the network being joined or joined
    problem: str = ""  # why the last request was refused or its network not joined
    networks: list[str] = field(default_factory=list)  # seen by the last scan

    def as_text(self) -> str:
        return json.dumps({**asdict(self), "mode": self.mode.value})

    @classmethod
    def from_text(cls, text: str) -> State:
        """The state the service wrote; ValueError when it is not one."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a hotspot state")
        networks = data.get("networks", [])
        name, passphrase, network, problem = (str(data.get(key, "")) for key in
                                              ("name", "passphrase", "network", "problem"))
        return cls(Mode(data["mode"]), name, passphrase, network, problem,
                   [str(n) for n in networks][:NETWORKS_SHOWN] if isinstance(networks, list) else [])

    def lines(self) -> list[str]:
        """What About says of the box's own network (short lines: the panel is 21 letters)."""
        if self.mode is Mode.OPEN:
            return ["Wi-Fi: box's own", f" {self.name}", f" key {self.passphrase}",
                    f" http://{ADDRESS}/wifi", *([f" {self.problem}"] if self.problem else [])]
        if self.mode is Mode.JOINING:
            return ["Wi-Fi: joining", f" {self.network}"]
        if self.mode is Mode.JOINED:
            return ["Wi-Fi: joined", f" {self.network}"]
        return []

    def told(self) -> tuple[bool, tuple[str, str]] | None:
        """Whether all is well, and the notice's two lines, when the state changes (None:
        nothing to say, as at each start with the box on its network)."""
        if self.mode is Mode.OPEN:
            return not self.problem, (f"Wi-Fi {self.name}", f"key {self.passphrase}")
        if self.mode is Mode.JOINING:
            return True, ("Joining Wi-Fi:", self.network)
        if self.mode is Mode.JOINED:
            return True, ("Wi-Fi joined:", self.network)
        return None


def read_state(state_dir: Path) -> State | None:
    """What the service last said (``hotspot/hotspot.json`` in the state directory), or None."""
    try:
        return State.from_text((state_dir / STATE_FOLDER / STATE_NAME).read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None


