"""The pages whose forms change what the box keeps: the roster, the settings and the paired
phones. Each form is read whole and checked against this session's CSRF token first."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from companion.contract.config import ConfigError
from companion.games.catalog import config_sections
from companion.records import phones, roster
from companion.records import settings as store
from companion.records.export import when
from companion.records.settings import Setting

from .forms import settings_view
from .site import HEADERS, Site, refused

MAX_VALUE_CHARS = 40        # a setting's value as typed: a number or a choice


def back_to(path: str, message: str) -> Response:
    """Back to ``path`` after a change, saying what was done."""
    return RedirectResponse(f"{path}?done={quote(message)}", status_code=303, headers=HEADERS)


class FormPages:
    """``/roster``, ``/settings`` and ``/phones`` of ``site``."""

    def __init__(self, site: Site) -> None:
        self.site = site

    async def roster(self, request: Request, sid: str) -> Response:
        message, error = request.query_params.get("done", ""), ""
        if request.method == "POST":
            form = await self.site.checked_form(request, sid)
            if isinstance(form, Response):
                return form
            try:
                return back_to("/roster", change_roster(self.site, form))
            except roster.RosterError as exc:
                error = str(exc)
        try:
            with roster.connect(self.site.state_dir) as conn:
                players, me = roster.players(conn), roster.me(conn)
        except roster.RosterError as exc:
            players, me, error = [], None, error or str(exc)
        return self.site.page("roster.html", 400 if error else 200, tab="roster", players=players,
                              me=me, csrf=self.site.pairing.csrf(sid), message=message, error=error)

    async def settings(self, request: Request, sid: str) -> Response:
        fields = store.settable(config_sections())
        message = request.query_params.get("done", "")
        errors: dict[str, str] = {}
        typed: dict[str, str] = {}
        if request.method == "POST":
            form = await self.site.checked_form(request, sid)
            if isinstance(form, Response):
                return form
            changes, errors, typed = read_settings(fields, form)
            if not errors and changes:
                try:
                    with roster.connect_for_change(self.site.state_dir) as conn:
                        for key, value in changes.items():
                            store.save(conn, key, value)
                except (roster.RosterError, sqlite3.Error) as exc:
                    return refused(f"cannot save the settings: {exc}", 409)
                store.announce(self.site.state_dir)
                said = ", ".join(store.words(k, v) for k, v in changes.items())
                return back_to("/settings", "Saved: " + said)
        return self.site.page(
            "settings.html", 400 if errors else 200, tab="settings",
            **settings_view(self.site.state_dir, self.site.config_path, fields), errors=errors,
            typed=typed, message=message, csrf=self.site.pairing.csrf(sid))

    async def phones(self, request: Request, sid: str) -> Response:
        message = ""
        pairing = self.site.pairing
        if request.method == "POST":
            form = await self.site.checked_form(request, sid)
            if isinstance(form, Response):
                return form
            try:
                gone = pairing.forget(form.get("phone", ""))
            except (roster.RosterError, sqlite3.Error) as exc:
                return refused(f"cannot forget the phone: {exc}", 409)
            if form.get("phone") == phones.digest(sid):
                return self.site.unpaired(request, "This phone was forgotten: pair it again to come back.")
            message = "Phone forgotten." if gone else "That phone was forgotten already."
        now = time.time()
        listed = [{"id": p.id, "name": p.name, "paired": when(p.paired_at)[:16],
                   "seen": phones.ago(now - p.last_seen), "this": p.id == phones.digest(sid)}
                  for p in pairing.phones()]
        return self.site.page("phones.html", tab="phones", phones=listed, csrf=pairing.csrf(sid),
                              message=message)


def read_settings(fields: Mapping[str, Setting], form: Mapping[str, str]
                  ) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """The settings the form changes, each checked as the config checks it; the refused ones
    with their messages; every value as typed (the page shows them again)."""
    changes: dict[str, Any] = {}
    errors: dict[str, str] = {}
    typed: dict[str, str] = {}
    for key, text in form.items():
        if key not in fields:
            continue
        typed[key] = text
        try:
            if len(text) > MAX_VALUE_CHARS:
                raise ValueError(f"{key}: at most {MAX_VALUE_CHARS} characters")
            changes[key] = store.from_text(fields[key], text)
        except (ConfigError, ValueError) as exc:
            errors[key] = str(exc)
    return changes, errors, typed


def change_roster(site: Site, form: dict[str, str]) -> str:
    """Make the roster change the form asks for; returns what was done, in a few words."""
    op = form.get("op")
    with roster.connect_for_change(site.state_dir) as conn:
        if op == "add":
            done = roster.add(conn, str(form.get("name", "")))
            return f"Added {done.name}"
        if op == "rename":
            old = roster.find(conn, str(form.get("player", "")))
            done = roster.rename(conn, old.id, str(form.get("name", "")))
            return f"{old.name} is now {done.name}"
        if op == "merge":
            gone = roster.find(conn, str(form.get("player", "")))
            done = roster.merge(conn, gone.id, str(form.get("into", "")))
            return f"{gone.name} merged into {done.name}"
        if op == "me":  # the BG Stats play file's user; an empty choice: none of them
            who = str(form.get("player", ""))
            marked = roster.set_me(conn, who or None)
            return f"You are {marked.name}" if marked else "You are none of these"
    raise roster.RosterError("pick add, rename, merge or me")
