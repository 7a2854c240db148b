"""The Live feed: the Live page and the table view, and their Server-Sent Events, each a freshly
rendered part of the page sent when :class:`JournalWatch` sees the box write."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from .auth import COOKIE
from .board import board
from .live import live
from .site import HEADERS, Site
from .watch import JournalWatch

KEEPALIVE_S = 15.0


class LiveFeed:
    """The Live pages of ``site`` and their events, woken by ``watch``."""

    def __init__(self, site: Site, watch: JournalWatch) -> None:
        self.site, self.watch = site, watch
        self.rendered: dict[str, tuple[int, str]] = {}  # view -> (the watch's change count, its part)

    def part(self, view: str = "live") -> str:
        """The changing part of the Live page, or of the table view."""
        data = self.site.with_book(lambda b: live(b.read), {"kind": "none", "now": time.time()})
        name = "table_part.html" if view == "table" else "live_part.html"
        return self.site.env.get_template(name).render(g=data, b=board(data))

    def changed_part(self, view: str) -> str:
        """The part as of the change the watch saw last, rendered once for all the streams it
        woke (three pages watching cost one render a change, not three)."""
        cached = self.rendered.get(view)
        if cached is None or cached[0] != self.watch.changes:
            cached = self.rendered[view] = (self.watch.changes, self.part(view))
        return cached[1]

    async def home(self, request: Request, sid: str) -> Response:
        return self.site.page("live.html", part=self.part(), tab="live", view="live")

    async def table(self, request: Request, sid: str) -> Response:
        return self.site.page("live.html", part=self.part("table"), tab="table", view="table")

    async def events(self, request: Request, sid: str) -> Response:
        view = "table" if request.query_params.get("view") == "table" else "live"
        return StreamingResponse(self._stream(request, sid, view), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    async def _stream(self, request: Request, sid: str, view: str) -> AsyncIterator[str]:
        cookie = request.cookies.get(COOKIE)
        # The part as it is now first: the page may have missed a change since it loaded.
        sent = self.part(view)
        yield f"retry: 1000\n\nevent: live\ndata: {json.dumps({'html': sent})}\n\n"
        while True:
            changed = await self.watch.wait(KEEPALIVE_S)
            if await request.is_disconnected() or self.site.pairing.session_id(cookie) != sid:
                return      # gone, or this phone was forgotten meanwhile
            html = self.changed_part(view) if changed else sent
            if html != sent:    # a roster or a phone's "last seen" changes no Live part
                sent = html
                yield f"event: live\ndata: {json.dumps({'html': html})}\n\n"
            else:
                yield ": still here\n\n"
