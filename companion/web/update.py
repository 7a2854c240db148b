"""The phone page's Update tab: a release file handed to the box, which asks its owner.

The page runs unprivileged and cannot install anything, nor hand a file to the updater: it
only writes the uploaded file into ``handed/`` (a folder its unit may add files to). The box
asks "Install 0.3.0?" on its own screen; only OK there moves the file into the updater's spool,
where ``companion-update.path`` starts ``companion update --spool`` as root (docs/update.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import Message

from companion.appliance.slots import RESULT_NAME, SPOOL_NAME, versions
from companion.records.settings import HANDED

MAX_BYTES = 64 * 1024 * 1024  # a release is about 15 MB
CHUNK = 1 << 20


def hand_over(state_dir: Path, upload: Any) -> str:
    """Copy the uploaded file into ``handed/`` (as NAME.release, renamed once whole)."""
    name = Path(str(getattr(upload, "filename", "") or "")).name
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+\.release", name):
        raise ValueError("choose a .release file (built with companion update --build-release)")
    directory = state_dir / HANDED
    directory.mkdir(exist_ok=True)  # made by systemd-tmpfiles on the box
    partial = directory / (name + ".partial")
    size = 0
    with partial.open("wb") as out:
        while block := upload.file.read(CHUNK):
            size += len(block)
            if size > MAX_BYTES:
                out.close()
                partial.unlink()
                raise ValueError(f"{name} is over {MAX_BYTES // (1024 * 1024)} MB: not a release")
            out.write(block)
    partial.rename(directory / name)
    return (f"{name} is on the box: press OK on the box to install it (it restarts, about a "
            "minute; BACK there: not installed)")


class TooLarge(Exception):
    """More bytes came than the form may hold."""


def bounded(request: Request, limit: int) -> Request:
    """The request with a body cut off after ``limit`` bytes received: a chunked upload (no
    Content-Length to refuse it by) stops there, before the form parser's temporary file
    grows further (it is removed when the parse fails)."""
    received = 0

    async def receive() -> Message:
        nonlocal received
        message = await request.receive()
        received += len(message.get("body", b""))
        if received > limit:
            raise TooLarge
        return message

    return Request(request.scope, receive)


def last_result(state_dir: Path) -> str:
    try:
        return (state_dir / SPOOL_NAME / RESULT_NAME).read_text().strip()
    except OSError:
        return ""


def endpoint(state_dir: Path, page: Callable[..., Response], pairing: Any
             ) -> Callable[[Request, str], Any]:
    async def update_page(request: Request, sid: str) -> Response:
        message, error = request.query_params.get("done", ""), ""
        if request.method == "POST":
            if int(request.headers.get("content-length") or 0) > MAX_BYTES + CHUNK:
                return PlainTextResponse("too large for a release file\n", status_code=413)
            try:
                form = await bounded(request, MAX_BYTES + CHUNK).form()
            except TooLarge:  # and the rest of the body is not read: the connection closes
                return PlainTextResponse("too large for a release file\n", status_code=413,
                                         headers={"Connection": "close"})
            if not pairing.csrf_ok(sid, form.get("csrf")):
                return PlainTextResponse("the form expired: reload the page\n", status_code=403)
            try:
                done = hand_over(state_dir, form.get("release"))
                return RedirectResponse(f"/update?done={quote(done)}", status_code=303)
            except (ValueError, OSError) as exc:
                error = str(exc)
        return page("update.html", 400 if error else 200, tab="update", message=message,
                    error=error, versions=versions(), last=last_result(state_dir),
                    csrf=pairing.csrf(sid))
    return update_page
