"""The phone page: a Starlette application over the journal, read-only but for the roster.

Pages are rendered on the server with Jinja2; the Live page gets its updates as Server-Sent
Events (each a freshly rendered part of the page) when :class:`JournalWatch` sees the box
write. Every route but pairing and the bundled assets answers 401 without a paired session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, FunctionLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from companion.appliance import firstboot_report
from companion.contract.config import Config, ConfigError
from companion.games.catalog import GAMES, config_sections
from companion.journal import health_file
from companion.records import phones, roster
from companion.records import settings as store
from companion.records.bgstats import add_play_link, play_file_text
from companion.records.export import (
    BGSPLAY_MIME,
    bgg_ids,
    plays,
    to_csv,
    to_jsonl,
    when,
)
from companion.records.history import Book, HistoryError, open_book
from companion.ui.journal_words import kept_words
from companion.ui.words import player_lines

from . import cards, update
from .auth import COOKIE, SESSION_S, Pairing
from .board import board
from .forms import TITLES, FormRefused, settings_view, small_form
from .live import game_template, live
from .watch import JournalWatch

HERE = Path(__file__).parent
KEEPALIVE_S = 15.0
MAX_VALUE_CHARS = 40        # a setting's value as typed: a number or a choice
MAX_ID_DIGITS = 18          # a game id in a path: SQLite's integers, and never int() of 5,000 digits
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Endpoint = Callable[[Request], Awaitable[Response]]


def _mmss(seconds: float | None) -> str:
    whole = max(0, int(-(-(seconds or 0) // 1)))   # whole seconds up, as the box shows them
    return f"{whole // 60}:{whole % 60:02d}"


def _environment() -> Environment:
    # The page's own templates, then each game's Live template (``games/<key>/live.html``).
    loader = ChoiceLoader([FileSystemLoader(HERE / "templates"), FunctionLoader(game_template)])
    env = Environment(loader=loader, autoescape=select_autoescape(default=True))
    env.filters["mmss"] = _mmss
    env.filters["when"] = lambda seconds: when(seconds)[:16]
    env.globals["titles"] = TITLES
    return env


def build(state_dir: str | Path, config: Config | None = None, *, start_token: bool = False,
          config_path: str | None = None, health_dir: Path | None = None) -> Starlette:
    """The application for the journal in ``state_dir``; ``config`` gives the games' BGG ids;
    ``start_token``: also pair one phone with a token of its own, for ``companion web`` run on
    a terminal; ``config_path``: the box's config file (the settings forms show its values and
    what overrides them); ``health_dir``: where the box says its journal's health (default
    ``$RUNTIME_DIRECTORY``, else /run/companion), for a warning on every page while the box
    cannot write its card."""
    state_dir = Path(state_dir)
    health_dir = health_dir or health_file.runtime_dir() or health_file.RUNTIME_DIR
    env = _environment()
    pairing = Pairing(state_dir, start_token=start_token)
    watch = JournalWatch(state_dir)

    def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        journal = health_file.read(health_dir)
        failing = journal if journal and not journal.ok else None
        return HTMLResponse(env.get_template(name).render(
            **context, failing=failing, failing_kept=kept_words(failing) if failing else "",
            setup=firstboot_report.in_state_dir(state_dir)),
            status_code=status, headers=HEADERS)

    def unpaired(request: Request, message: str = "", status: int = 401) -> Response:
        if request.url.path.startswith(("/events", "/export")):
            return PlainTextResponse("not paired with the box\n", status_code=401, headers=HEADERS)
        return page("pair.html", status, message=message)

    def paired(endpoint: Callable[[Request, str], Awaitable[Response]]) -> Endpoint:
        async def check(request: Request) -> Response:
            sid = pairing.session_id(request.cookies.get(COOKIE))
            if sid is None:
                return unpaired(request)
            return await endpoint(request, sid)
        return check

    def welcome(cookie: str) -> Response:
        response = RedirectResponse("/", status_code=303, headers=HEADERS)
        response.set_cookie(COOKIE, cookie, max_age=SESSION_S, httponly=True,
                            samesite="strict", path="/")
        return response

    def refused(text: str, status: int) -> Response:
        return PlainTextResponse(text + "\n", status_code=status, headers=HEADERS)

    def book() -> Book | None:
        try:
            return open_book(state_dir, check=False, fill=False)
        except HistoryError:
            return None

    def with_book(read: Callable[[Book], Any], fallback: Any = None) -> Any:
        opened = book()
        if opened is None:
            return fallback
        try:
            return read(opened)
        except HistoryError:
            return fallback
        finally:
            opened.close()

    def live_html(view: str = "live") -> str:
        """The changing part of the Live page, or of the table view."""
        data = with_book(lambda b: live(b.read), {"kind": "none", "now": time.time()})
        name = "table_part.html" if view == "table" else "live_part.html"
        return env.get_template(name).render(g=data, b=board(data))

    rendered: dict[str, tuple[int, str]] = {}   # view -> (the watch's change count, its part)

    def changed_html(view: str) -> str:
        """The part as of the change the watch saw last, rendered once for all the streams it
        woke (three pages watching cost one render a change, not three)."""
        cached = rendered.get(view)
        if cached is None or cached[0] != watch.changes:
            cached = rendered[view] = (watch.changes, live_html(view))
        return cached[1]

    async def checked_form(request: Request, sid: str, **limits: Any) -> dict[str, str] | Response:
        """A posted form, read whole, whose CSRF token is this session's; else the refusal
        (``limits``: :func:`small_form`'s, for a bigger form)."""
        try:
            form = await small_form(request, **limits)
        except FormRefused as exc:
            return refused(exc.message, exc.status)
        if not pairing.csrf_ok(sid, form.get("csrf")):
            return refused("the form expired: reload the page", 403)
        return form

    # ----- pairing ------------------------------------------------------------------------
    async def pair(request: Request) -> Response:
        address = request.client.host if request.client else ""
        agent = request.headers.get("user-agent", "")
        if request.method == "GET":
            token = request.query_params.get("token") or request.query_params.get("t")
            if not token:
                return unpaired(request)
            done = pairing.take_token(token, address, agent)
        else:
            try:
                form = await small_form(request)
            except FormRefused as exc:
                return refused(exc.message, exc.status)
            done = pairing.try_pin(form.get("pin", ""), address, agent)
        if done.cookie:
            return welcome(done.cookie)
        return unpaired(request, done.message, done.status)

    # ----- pages --------------------------------------------------------------------------
    async def home(request: Request, sid: str) -> Response:
        return page("live.html", part=live_html(), tab="live", view="live")

    async def table(request: Request, sid: str) -> Response:
        return page("live.html", part=live_html("table"), tab="table", view="table")

    async def events(request: Request, sid: str) -> Response:
        cookie = request.cookies.get(COOKIE)
        view = "table" if request.query_params.get("view") == "table" else "live"

        async def stream() -> AsyncIterator[str]:
            # The part as it is now first: the page may have missed a change since it loaded.
            sent = live_html(view)
            yield f"retry: 1000\n\nevent: live\ndata: {json.dumps({'html': sent})}\n\n"
            while True:
                changed = await watch.wait(KEEPALIVE_S)
                if await request.is_disconnected() or pairing.session_id(cookie) != sid:
                    return      # gone, or this phone was forgotten meanwhile
                html = changed_html(view) if changed else sent
                if html != sent:    # a roster or a phone's "last seen" changes no Live part
                    sent = html
                    yield f"event: live\ndata: {json.dumps({'html': html})}\n\n"
                else:
                    yield ": still here\n\n"
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    def log_links(b: Book, games: list[Any]) -> dict[int, str]:
        """The "Log in BG Stats" link of each finished game among ``games``."""
        finished = [g for g in games if g.headline is not None]
        ids = bgg_ids(config, state_dir=state_dir)  # the phone's Settings may set one
        return {p.played.id: add_play_link(p, ids.get(p.played.game, 0))
                for p in plays(b, listed=finished)}

    async def history(request: Request, sid: str) -> Response:
        def read(b: Book) -> dict[str, Any]:
            people = b.players()
            games = b.games(limit=100)
            return {"games": games, "people": [
                (name, player_lines(b.player_record(name), TITLES)) for name, _ in people[:12]],
                "stats": [(stats.title or f"{spec.short}: {stats.heading}", stats.lines(b.read))
                          for spec in GAMES.values() if (stats := spec.records.stats) is not None],
                "links": log_links(b, games)}
        data = with_book(read, {"games": [], "people": [], "stats": [], "links": {}})
        return page("history.html", tab="history", **data)

    async def game(request: Request, sid: str) -> Response:
        game_id = request.path_params["id"]
        found = None
        if _game_id(game_id):
            with contextlib.suppress(KeyError):
                found = with_book(lambda b: b.game(int(game_id)))
        if found is None:
            return page("missing.html", 404, tab="history", what=f"game {game_id}")
        played, seats, final = found
        link = with_book(lambda b: log_links(b, [played]), {}).get(played.id)
        return page("game.html", tab="history", played=played, seats=seats, link=link,
                    final=json.dumps(final, indent=1, ensure_ascii=False) if final else "")

    async def export(request: Request, sid: str) -> Response:
        name = request.path_params["name"]
        opened = book()
        if opened is None:
            return PlainTextResponse("no journal yet\n", status_code=404, headers=HEADERS)
        try:
            if name == "games.csv":
                body = to_csv(opened, bgg_ids(config, state_dir=state_dir))
                kind = "text/csv; charset=utf-8"
            elif name in ("plays.bgsplay", "bgstats.json"):  # the second: the former name
                body = play_file_text(opened, bgg_ids(config, state_dir=state_dir))
                kind = BGSPLAY_MIME
            elif name.startswith("game-") and name.endswith(".jsonl") and _game_id(name[5:-6]):
                body, kind = to_jsonl(opened, int(name[5:-6])), "application/x-ndjson"
            else:
                return PlainTextResponse("no such export\n", status_code=404, headers=HEADERS)
        except KeyError:
            return PlainTextResponse("no such game\n", status_code=404, headers=HEADERS)
        finally:
            opened.close()
        return Response(body, media_type=kind, headers={
            **HEADERS, "Content-Disposition": f'attachment; filename="companion-{name}"'})

    async def roster_page(request: Request, sid: str) -> Response:
        message, error = request.query_params.get("done", ""), ""
        if request.method == "POST":
            form = await checked_form(request, sid)
            if isinstance(form, Response):
                return form
            try:
                message = _change(state_dir, form)
                return RedirectResponse(f"/roster?done={quote(message)}", status_code=303,
                                        headers=HEADERS)
            except roster.RosterError as exc:
                error = str(exc)
        try:
            with roster.connect(state_dir) as conn:
                players, me = roster.players(conn), roster.me(conn)
        except roster.RosterError as exc:
            players, me, error = [], None, error or str(exc)
        return page("roster.html", 400 if error else 200, tab="roster", players=players,
                    me=me, csrf=pairing.csrf(sid), message=message, error=error)

    async def settings_page(request: Request, sid: str) -> Response:
        fields = store.settable(config_sections())
        message, errors, typed = request.query_params.get("done", ""), {}, {}
        if request.method == "POST":
            form = await checked_form(request, sid)
            if isinstance(form, Response):
                return form
            changes = {}
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
            if not errors and changes:
                try:
                    with roster.connect(state_dir) as conn:
                        for key, value in changes.items():
                            store.save(conn, key, value)
                except (roster.RosterError, sqlite3.Error) as exc:
                    return refused(f"cannot save the settings: {exc}", 409)
                said = ", ".join(store.words(k, v) for k, v in changes.items())
                return RedirectResponse(f"/settings?done={quote('Saved: ' + said)}",
                                        status_code=303, headers=HEADERS)
        return page("settings.html", 400 if errors else 200, tab="settings",
                    **settings_view(state_dir, config_path, fields), errors=errors, typed=typed,
                    message=message, csrf=pairing.csrf(sid))

    async def phones_page(request: Request, sid: str) -> Response:
        message = ""
        if request.method == "POST":
            form = await checked_form(request, sid)
            if isinstance(form, Response):
                return form
            try:
                gone = pairing.forget(form.get("phone", ""))
            except (roster.RosterError, sqlite3.Error) as exc:
                return refused(f"cannot forget the phone: {exc}", 409)
            if form.get("phone") == phones.digest(sid):
                return unpaired(request, "This phone was forgotten: pair it again to come back.")
            message = "Phone forgotten." if gone else "That phone was forgotten already."
        now = time.time()
        listed = [{"id": p.id, "name": p.name, "paired": when(p.paired_at)[:16],
                   "seen": phones.ago(now - p.last_seen), "this": p.id == phones.digest(sid)}
                  for p in pairing.phones()]
        return page("phones.html", tab="phones", phones=listed, csrf=pairing.csrf(sid),
                    message=message)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(watch.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app = Starlette(routes=[
        Route("/", paired(home)),
        Route("/pair", pair, methods=["GET", "POST"]),
        Route("/table", paired(table)),
        Route("/events", paired(events)),
        Route("/history", paired(history)),
        Route("/history/{id}", paired(game)),
        Route("/export/{name}", paired(export)),
        Route("/roster", paired(roster_page), methods=["GET", "POST"]),
        Route("/phones", paired(phones_page), methods=["GET", "POST"]),
        Route("/settings", paired(settings_page), methods=["GET", "POST"]),
        Route("/cards/{game}/{file}", paired(cards.endpoint(
            state_dir, config_path, page, checked_form, pairing.csrf)), methods=["GET", "POST"]),
        Route("/update", paired(update.endpoint(state_dir, page, pairing)), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ], lifespan=lifespan)
    app.state.pairing = pairing
    app.state.watch = watch
    return app


def _game_id(text: str) -> bool:
    """A game id as a path may carry one: ASCII digits, few enough for SQLite and int()."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS


def _change(state_dir: Path, form: Any) -> str:
    """Make the roster change the form asks for; returns what was done, in a few words."""
    op = form.get("op")
    with roster.connect(state_dir) as conn:
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
