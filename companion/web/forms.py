"""The phone page's forms: reading a posted form within bounds, and what the Settings page
shows (each setting now and where it comes from, the printed-card data as the doctor finds it).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request

from companion.contract.config import ConfigError
from companion.games.catalog import GAMES
from companion.records import cards, roster
from companion.records import settings as store

from .cards import listing

FORM_BYTES = 8192           # the page's forms are a few fields: a bigger body is refused
TITLES = {key: spec.title for key, spec in GAMES.items()}


class FormRefused(Exception):
    """A posted form refused before anything is decided: the message and the HTTP status."""

    def __init__(self, message: str, status: int) -> None:
        self.message, self.status = message, status
        super().__init__(message)


async def small_form(request: Request, limit: int = FORM_BYTES, fields: int = 64,
                     strict: bool = False) -> dict[str, str]:
    """The request's URL-encoded form, read whole before anything is decided; FormRefused when
    it is bigger than ``limit`` bytes or has more than ``fields`` fields. Undecodable bytes
    become U+FFFD and empty fields are left out; ``strict`` (a form whose every field is kept
    as sent), undecodable bytes refuse the form and empty fields are kept."""
    too_big = FormRefused("the form is too big", 413)
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and len(declared) < 12 and int(declared) > limit:
        raise too_big
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_big
    errors = "strict" if strict else "replace"
    try:
        pairs = parse_qsl(body.decode("utf-8", errors), keep_blank_values=strict,
                          max_num_fields=fields, errors=errors)
    except UnicodeDecodeError:
        raise FormRefused("the form is not UTF-8 text: nothing was saved", 400) from None
    except ValueError:      # more fields than a form of this page has
        raise too_big from None
    return dict(pairs)


def settings_view(state_dir: Path, config_path: str | None, fields: dict[str, store.Setting]
                  ) -> dict[str, Any]:
    """The settings forms' groups (the box's, then each game's) with each value now and where it
    comes from, and the printed-card data each game uses, stand-ins said as such (the findings
    of ``companion doctor``'s own checks)."""
    from companion.games import box_config

    try:
        cfg = box_config.load(config_path)
    except ConfigError as exc:
        return {"groups": [], "problem": str(exc), "cards": [], "card_files": []}
    try:
        with roster.connect(state_dir) as conn:
            overrides = store.saved(conn, fields)
    except (roster.RosterError, sqlite3.Error):
        overrides = {}
    now = store.current(cfg, overrides, fields)
    groups: dict[str, list[dict[str, Any]]] = {}
    for key, setting in fields.items():
        title = TITLES.get(setting.game, "The box") if setting.game else "The box"
        value, set_here = now[key]
        groups.setdefault(title, []).append({
            "key": key, "label": store.BOX[key][1] if key in store.BOX else
            setting.name.replace("_", " ").capitalize(),
            "doc": setting.field.doc, "value": value, "set": set_here,
            "default": setting.field.default, "choices": _choices(setting.field)})
    from companion.doctor.checks import check_games

    installer = cards.installer_paths(cfg, GAMES)
    cards.apply(cfg, state_dir, GAMES)      # the doctor's checks read the phone's copies
    return {"groups": list(groups.items()), "problem": "", "cards": check_games(cfg),
            "card_files": listing(installer, state_dir)}


def _choices(field: Any) -> list[str]:
    """A field's allowed texts when its check is a list of choices (else free input)."""
    probe = field.check("\x00") if field.check and field.kind is str else None
    return probe.removeprefix("must be one of ").split(", ") if probe and probe.startswith(
        "must be one of ") else []


