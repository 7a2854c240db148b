"""The phone page's card-data forms: one per printed-card file a game declares, showing the
values the game reads now (stand-ins marked), checked on saving by the game's own loader and
doctor check (:mod:`companion.records.cards`), whose message is shown next to the field it is about.

Nothing here knows a game: the games, their files and their values come from the specs.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from companion.contract.cards import FLAG, CardFile
from companion.contract.config import ConfigError
from companion.contract.spec import GameSpec
from companion.games import box_config
from companion.games.catalog import GAMES
from companion.records import cards

FORM_BYTES = 64 * 1024      # the biggest form (ten drinks of nine values) is about 4 KiB
FORM_FIELDS = 256
SOURCES = {"phone": "the copy saved on this page", "config": "the file config.toml names",
           "stand-in": "the stand-in shipped with the box"}


def source(installer: Mapping[tuple[str, str], str], state_dir: Path, spec: GameSpec[Any],
           card: CardFile) -> str:
    """Where the file the game reads comes from, in words: the phone's copy, config.toml's
    file (``installer``: :func:`companion.records.cards.installer_paths`) or the stand-in."""
    if cards.phone_copy(state_dir, spec.key, card).is_file():
        return SOURCES["phone"]
    return SOURCES["config" if installer.get((spec.key, card.key)) else "stand-in"]


def listing(installer: Mapping[tuple[str, str], str], state_dir: Path) -> list[dict[str, Any]]:
    """Each card file for the Settings page: its game, title, link and where it comes from."""
    return [{"game": spec.title, "title": card.title, "doc": card.doc,
             "href": f"/cards/{spec.key}/{card.key}",
             "source": source(installer, state_dir, spec, card)}
            for spec, card in cards.declared(GAMES)]


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _legend(card: CardFile, path: str, doc: Any) -> str:
    """A group's heading: "Tray 3 · Blue", "Rows full house", or the file's title."""
    if not path:
        return card.title
    words = []
    for part in cards.parts(path):
        words.append(_label(part) if isinstance(part, str) else str(part + 1))
    named = cards.get(doc, f"{path}.name")
    return " ".join(words) + (f" · {named}" if isinstance(named, str) and named else "")


def view(card: CardFile, doc: Any, typed: dict[str, str], errors: dict[str, str]
         ) -> list[tuple[str, list[dict[str, Any]]]]:
    """The form's groups (one per table of the file) and their fields, stand-ins marked."""
    stand_ins = set(card.stand_ins(doc))
    groups: dict[str, list[dict[str, Any]]] = {}
    for key, value in cards.fields(card, doc):
        path, _, name = key.rpartition(".")
        text = typed.get(key, cards.shown(cards.get(doc, key), value.kind))
        choices = list(("true", "false") if value.kind == FLAG else value.choices)
        if choices and text not in choices:  # a file's value the loader will refuse: shown
            choices.append(text)
        groups.setdefault(path, []).append({
            "key": key, "label": _label(name), "doc": value.doc, "text": text,
            "choices": ([""] if value.optional and choices else []) + choices,
            "kind": value.kind, "stand_in": key in stand_ins, "error": errors.get(key, "")})
    return [(_legend(card, path, doc), fields) for path, fields in groups.items()]


def endpoint(state_dir: Path, config_path: str | None, page: Callable[..., Response],
             checked_form: Callable[..., Awaitable[dict[str, str] | Response]],
             csrf: Callable[[str], str]) -> Callable[[Request, str], Awaitable[Response]]:
    """The ``/cards/{game}/{file}`` page: GET shows the form, POST saves it (or, ``op=reset``,
    drops the phone's copy)."""

    async def card_page(request: Request, sid: str) -> Response:
        found = cards.find(GAMES, request.path_params["game"], request.path_params["file"])
        if found is None:
            return page("missing.html", 404, tab="settings", what="that card file")
        spec, card = found
        here = f"/cards/{spec.key}/{card.key}"
        try:
            cfg = box_config.load(config_path)
        except ConfigError as exc:
            return page("cards.html", 409, tab="settings", spec=spec, card=card, groups=[],
                        problem=str(exc), findings=[])
        installer = cards.installer_paths(cfg, GAMES)
        cards.apply(cfg, state_dir, GAMES)
        path = cards.in_use(cfg, spec.key, card)
        doc, unreadable = cards.document(card, path)
        message, problem, typed, errors = request.query_params.get("done", ""), "", {}, {}
        if request.method == "POST":
            form = await checked_form(request, sid, limit=FORM_BYTES, fields=FORM_FIELDS,
                                      strict=True)
            if isinstance(form, Response):
                return form
            typed = {k: v for k, v in form.items() if k not in ("csrf", "op")}
            if form.get("op") == "reset":
                gone = cards.reset(state_dir, spec.key, card)
                said = (f"{card.title}: the phone's copy removed; the next game reads "
                        f"{source(installer, state_dir, spec, card)}") if gone else \
                    f"{card.title}: no copy was saved on the phone"
                return RedirectResponse(f"{here}?done={quote(said)}", status_code=303)
            try:
                refusal = cards.save(cfg, state_dir, spec, card, cards.from_form(
                    card, doc, form, ignore=("csrf", "op")), cards.header(spec, card, time.time()))
            except cards.CardError as exc:
                refusal = cards.Refusal(exc.key, exc.problem)
            except OSError as exc:
                refusal = cards.Refusal("", f"cannot write the file: {exc.strerror or exc}")
            if refusal is None:
                said = f"Saved {card.title}: the next {spec.title} game uses it"
                return RedirectResponse(f"{here}?done={quote(said)}", status_code=303)
            at = cards.field_of(refusal.key, (k for k, _ in cards.fields(card, doc)))
            if at is None:
                problem = f"{refusal.key}: {refusal.message}" if refusal.key else refusal.message
            else:
                errors[at] = refusal.message
        cards.apply(cfg, state_dir, GAMES, installer)   # as the box reads it now
        findings = spec.doctor(cfg) if spec.doctor is not None else []
        return page("cards.html", 400 if problem or errors else 200, tab="settings", spec=spec,
                    card=card, groups=view(card, doc, typed, errors), problem=problem or unreadable,
                    message=message, csrf=csrf(sid), findings=findings, path=str(path),
                    origin=source(installer, state_dir, spec, card),
                    stand_ins=len(set(card.stand_ins(doc))), here=here)

    return card_page
