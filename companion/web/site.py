"""What every route of the phone page shares: the journal's state directory and the config, the
templates and the warnings every page carries (the box cannot write its journal; companion.txt
had lines the box could not use), the gate every route but pairing passes (a paired session),
the refusals and the journal read per request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from companion.appliance import firstboot_report
from companion.contract.config import Config
from companion.journal import health_file
from companion.records.history import Book, HistoryError, open_book
from companion.ui.journal_words import kept_words

from .auth import COOKIE, SESSION_S, Pairing
from .forms import FormRefused, small_form

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

Endpoint = Callable[[Request], Awaitable[Response]]
PairedEndpoint = Callable[[Request, str], Awaitable[Response]]


def refused(text: str, status: int) -> Response:
    """A refusal in one line of plain text."""
    return PlainTextResponse(text + "\n", status_code=status, headers=HEADERS)


@dataclass
class Site:
    """The phone page's shared parts; ``health_dir`` is where the box says its journal's health."""

    state_dir: Path
    config: Config | None
    config_path: str | None
    health_dir: Path
    env: Environment
    pairing: Pairing

    def page(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        """A template rendered, with the journal's warning while the box cannot write it and
        the lines of companion.txt the box could not use."""
        journal = health_file.read(self.health_dir)
        failing = journal if journal and not journal.ok else None
        return HTMLResponse(self.env.get_template(name).render(
            **context, failing=failing, failing_kept=kept_words(failing) if failing else "",
            setup=firstboot_report.in_state_dir(self.state_dir)),
            status_code=status, headers=HEADERS)

    # ----- the gate: pairing and the paired session -----------------------------------------
    def unpaired(self, request: Request, message: str = "", status: int = 401) -> Response:
        if request.url.path.startswith(("/events", "/export")):
            return PlainTextResponse("not paired with the box\n", status_code=401, headers=HEADERS)
        return self.page("pair.html", status, message=message)

    def paired(self, endpoint: PairedEndpoint) -> Endpoint:
        """``endpoint`` behind the gate: it is handed the session's id, or never called."""
        async def check(request: Request) -> Response:
            sid = self.pairing.session_id(request.cookies.get(COOKIE))
            if sid is None:
                return self.unpaired(request)
            return await endpoint(request, sid)
        return check

    async def pair(self, request: Request) -> Response:
        """``/pair``: a token from the box's QR code (GET) or the PIN it shows (POST)."""
        address = request.client.host if request.client else ""
        agent = request.headers.get("user-agent", "")
        if request.method == "GET":
            token = request.query_params.get("token") or request.query_params.get("t")
            if not token:
                return self.unpaired(request)
            done = self.pairing.take_token(token, address, agent)
        else:
            try:
                form = await small_form(request)
            except FormRefused as exc:
                return refused(exc.message, exc.status)
            done = self.pairing.try_pin(form.get("pin", ""), address, agent)
        if done.cookie:
            response = RedirectResponse("/", status_code=303, headers=HEADERS)
            response.set_cookie(COOKIE, done.cookie, max_age=SESSION_S, httponly=True,
                                samesite="strict", path="/")
            return response
        return self.unpaired(request, done.message, done.status)

    async def checked_form(self, request: Request, sid: str,
                           **limits: Any) -> dict[str, str] | Response:
        """A posted form, read whole, whose CSRF token is this session's; else the refusal
        (``limits``: :func:`small_form`'s, for a bigger form)."""
        try:
            form = await small_form(request, **limits)
        except FormRefused as exc:
            return refused(exc.message, exc.status)
        if not self.pairing.csrf_ok(sid, form.get("csrf")):
            return refused("the form expired: reload the page", 403)
        return form

    # ----- the journal, opened for one request --------------------------------------------
    def book(self) -> Book | None:
        try:
            return open_book(self.state_dir, check=False, fill=False)
        except HistoryError:
            return None

    def with_book(self, read: Callable[[Book], Any], fallback: Any = None) -> Any:
        """What ``read`` finds in the journal, or ``fallback`` when there is none to read."""
        opened = self.book()
        if opened is None:
            return fallback
        try:
            return read(opened)
        except HistoryError:
            return fallback
        finally:
            opened.close()
