"""The phone page: a Starlette application over the journal, read-only but for the roster.

Pages are rendered on the server with Jinja2; the Live page gets its updates as Server-Sent
Events (each a freshly rendered part of the page) when :class:`JournalWatch` sees the box
write. Every route but pairing and the bundled assets answers 401 without a paired session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
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

from companion.games.catalog import GAMES
from companion.journal import health
from companion.records import roster
from companion.records.export import to_bgstats, to_csv, to_jsonl, when
from companion.records.history import Book, HistoryError, open_book

from . import update
from .auth import COOKIE, SESSION_S, Pairing
from .live import live
from .watch import JournalWatch

HERE = Path(__file__).parent
KEEPALIVE_S = 15.0
TITLES = {key: spec.title for key, spec in GAMES.items()}
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
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(default=True))
    env.filters["mmss"] = _mmss
    env.filters["when"] = lambda seconds: when(seconds)[:16]
    env.globals["titles"] = TITLES
    return env


def build(state_dir: str | Path, health_dir: Path | None = None) -> Starlette:
    """The application for the journal in ``state_dir``; the box's journal health is read
    from ``health_dir`` (default ``$RUNTIME_DIRECTORY``, else /run/companion): a warning on
    every page while the box cannot write its card."""
    state_dir = Path(state_dir)
    health_dir = health_dir or health.runtime_dir() or health.RUNTIME_DIR
    env = _environment()
    pairing = Pairing(state_dir)
    watch = JournalWatch(state_dir)

    def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        journal = health.read(health_dir)
        return HTMLResponse(env.get_template(name).render(
            **context, failing=journal if journal and not journal.ok else None),
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

    def welcome() -> Response:
        response = RedirectResponse("/", status_code=303, headers=HEADERS)
        response.set_cookie(COOKIE, pairing.new_session(), max_age=SESSION_S, httponly=True,
                            samesite="strict", path="/")
        return response

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

    def live_html() -> str:
        data = with_book(lambda b: live(b.read), {"kind": "none", "now": time.time()})
        return env.get_template("live_part.html").render(g=data)

    # ----- pairing ------------------------------------------------------------------------
    async def pair(request: Request) -> Response:
        if request.method == "GET":
            token = request.query_params.get("token") or request.query_params.get("t")
            if pairing.take_token(token):
                return welcome()
            said = "That code was used or has expired." if token else ""
            return unpaired(request, said)
        wait = pairing.wait_s()
        if wait > 0:
            return unpaired(request, f"Too many tries: wait {int(wait) + 1} s.", 429)
        form = await request.form()
        if pairing.try_pin(str(form.get("pin", ""))):
            return welcome()
        return unpaired(request, "Wrong PIN, or the box's Phone screen is closed.")

    # ----- pages --------------------------------------------------------------------------
    async def home(request: Request, sid: str) -> Response:
        return page("live.html", part=live_html(), tab="live")

    async def events(request: Request, sid: str) -> Response:
        async def stream() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            while True:
                changed = await watch.wait(KEEPALIVE_S)
                if await request.is_disconnected():
                    return
                if changed:
                    yield f"event: live\ndata: {json.dumps({'html': live_html()})}\n\n"
                else:
                    yield ": still here\n\n"
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    async def history(request: Request, sid: str) -> Response:
        def read(b: Book) -> dict[str, Any]:
            people = b.players()
            return {"games": b.games(limit=100), "people": [
                (name, b.player_lines(name, TITLES)) for name, _ in people[:12]],
                "makan": b.makan_lines(), "cafe": b.cafe_lines(), "miams": b.miams_lines()}
        data = with_book(read, {"games": [], "people": [], "makan": [], "cafe": [], "miams": []})
        return page("history.html", tab="history", **data)

    async def game(request: Request, sid: str) -> Response:
        game_id = request.path_params["id"]
        try:
            found = with_book(lambda b: b.game(game_id))
        except KeyError:
            found = None
        if found is None:
            return page("missing.html", 404, tab="history", what=f"game {game_id}")
        played, seats, final = found
        return page("game.html", tab="history", played=played, seats=seats,
                    final=json.dumps(final, indent=1, ensure_ascii=False) if final else "")

    async def export(request: Request, sid: str) -> Response:
        name = request.path_params["name"]
        opened = book()
        if opened is None:
            return PlainTextResponse("no journal yet\n", status_code=404, headers=HEADERS)
        try:
            if name == "games.csv":
                body, kind = to_csv(opened), "text/csv; charset=utf-8"
            elif name == "bgstats.json":
                body = json.dumps(to_bgstats(opened), indent=1, ensure_ascii=False)
                kind = "application/json"
            elif name.startswith("game-") and name.endswith(".jsonl") and name[5:-6].isdecimal():
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
            form = await request.form()
            if not pairing.csrf_ok(sid, form.get("csrf")):
                return PlainTextResponse("the form expired: reload the page\n", status_code=403,
                                         headers=HEADERS)
            try:
                message = _change(state_dir, form)
                return RedirectResponse(f"/roster?done={quote(message)}", status_code=303,
                                        headers=HEADERS)
            except roster.RosterError as exc:
                error = str(exc)
        try:
            with roster.connect(state_dir) as conn:
                players = roster.players(conn)
        except roster.RosterError as exc:
            players, error = [], error or str(exc)
        return page("roster.html", 400 if error else 200, tab="roster", players=players,
                    csrf=pairing.csrf(sid), message=message, error=error)

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
        Route("/events", paired(events)),
        Route("/history", paired(history)),
        Route("/history/{id:int}", paired(game)),
        Route("/export/{name}", paired(export)),
        Route("/roster", paired(roster_page), methods=["GET", "POST"]),
        Route("/update", paired(update.endpoint(state_dir, page, pairing)), methods=["GET", "POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ], lifespan=lifespan)
    app.state.pairing = pairing
    app.state.watch = watch
    return app


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
    raise roster.RosterError("pick add, rename or merge")
