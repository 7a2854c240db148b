"""``/dice``: the smart dice paired on the box (connected or missing, their charge) and those its
last search found, with pair, forget and "search again".

Every change is checked here before it is written: a die is paired only if the box's last
search found it, with one of the games' colours, and forgotten only if it is paired. The page
writes the pairings where it writes the settings (the journal's ``settings`` table) and marks
them in the folder the box watches, which uses them at once; a search is asked the same way.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from companion.contract.config import ConfigError
from companion.records import dice as pairs
from companion.records import roster
from companion.records import settings as store
from firmware_bridge.smart_link import SmartDie, parse_pairing

from .form_pages import back_to
from .site import Site, refused

MAX_ADDRESS_CHARS = 40  # a MAC address, or the id another system gives a die


class Refusal(Exception):
    """A change the page does not make: the reason, shown on the page."""


class DicePage:
    """``/dice`` of ``site``."""

    def __init__(self, site: Site) -> None:
        self.site = site

    async def dice(self, request: Request, sid: str) -> Response:
        error = ""
        if request.method == "POST":
            form = await self.site.checked_form(request, sid)
            if isinstance(form, Response):
                return form
            try:
                return back_to("/dice", self._change(form))
            except Refusal as exc:
                error = str(exc)
            except (roster.RosterError, sqlite3.Error) as exc:
                return refused(f"cannot save the dice: {exc}", 409)
        return self.site.page("dice.html", 400 if error else 200, tab="dice", error=error,
                              message=request.query_params.get("done", ""),
                              csrf=self.site.pairing.csrf(sid), kinds=pairs.KINDS,
                              **self._view())

    def _default(self) -> tuple[str, ...]:
        from companion.games import box_config

        try:
            return tuple(box_config.load(self.site.config_path).dice.smart)
        except ConfigError:
            return ()

    def _lines(self, conn: sqlite3.Connection) -> list[str]:
        return pairs.in_force(pairs.saved(conn), self._default())

    def _change(self, form: dict[str, str]) -> str:
        """Make the change the form asks for; what was done, in a few words (Refusal: why not)."""
        op = form.get("op")
        if op == "search":
            if not store.announce(self.site.state_dir, pairs.SEARCH_MARK):
                raise Refusal("the box could not be asked: search on the box, Settings → Dice")
            return "The box is searching for 5 s: roll each die to wake it, then reload"
        if op not in ("pair", "forget"):
            raise Refusal("pick search, pair or forget")
        address = form.get("address", "").strip().upper()
        if not 0 < len(address) <= MAX_ADDRESS_CHARS:
            raise Refusal("that is not a die's address")
        with roster.connect_for_change(self.site.state_dir) as conn:
            lines = self._lines(conn)
            labels = {die.address.upper(): die.label for die in map(parse_pairing, lines)}
            try:
                if op == "pair":
                    lines, said = self._pair(lines, address, form.get("kind", ""))
                else:
                    lines, said = pairs.forgotten(lines, address), f"Forgot {labels.get(address)}"
            except ValueError as exc:
                raise Refusal(str(exc)) from None
            store.save(conn, pairs.KEY, lines)
        store.announce(self.site.state_dir)
        return said

    def _pair(self, lines: list[str], address: str, kind: str) -> tuple[list[str], str]:
        """``lines`` with the die the box found at ``address`` paired as ``kind``."""
        found = {str(die.get("address", "")).upper(): die
                 for die in _rows(pairs.read_status(self.site.state_dir), "found")}
        if address not in found:
            raise Refusal("that die was not found by the box's last search: search again")
        if kind not in pairs.KINDS:
            raise Refusal(f"the colour is one of {', '.join(pairs.KINDS)}")
        make = str(found[address].get("make"))
        return pairs.paired(lines, make, address, kind), f"Paired: {SmartDie(make, address, kind).label}"

    def _view(self) -> dict[str, Any]:
        """The paired dice with what the box last said of each, and the dice it found."""
        status = pairs.read_status(self.site.state_dir)
        told = {str(row.get("address", "")).upper(): row for row in _rows(status, "paired")}
        try:
            with roster.connect(self.site.state_dir) as conn:
                lines = self._lines(conn)
        except (roster.RosterError, sqlite3.Error) as exc:
            return {"paired": [], "found": [], "searching": False, "problem": str(exc)}
        paired = []
        for line in lines:
            die = parse_pairing(line)
            row = told.get(die.address.upper())
            state = ("waiting for the box" if row is None else
                     "connected" if row.get("connected") else "missing")
            paired.append({"label": die.label, "address": die.address, "state": state,
                           "battery": row.get("battery") if row else None})
        mine = {die.address.upper() for die in map(parse_pairing, lines)}
        found = [{"name": str(row.get("name", "")) or str(row.get("make", "")),
                  "address": str(row.get("address", "")), "rssi": row.get("rssi"),
                  "paired": str(row.get("address", "")).upper() in mine}
                 for row in _rows(status, "found")]
        return {"paired": paired, "found": found, "searching": bool(status.get("searching")),
                "problem": str(status.get("problem", ""))}


def _rows(status: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The rows of ``dice.json``'s ``key`` that are objects (anything else left out)."""
    rows = status.get(key)
    return [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []
