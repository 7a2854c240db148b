"""The History pages: the games the journal recorded with the players' and the games' stats, one
game, and the downloads (the CSV, the BG Stats play file, one game's actions)."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from companion.games.catalog import GAMES
from companion.records.bgstats import add_play_link, play_file_text
from companion.records.export import (
    BGSPLAY_MIME,
    bgg_ids,
    plays,
    to_csv,
    to_jsonl,
)
from companion.records.history import Book
from companion.ui.words import player_lines

from .forms import TITLES
from .site import HEADERS, Site

MAX_ID_DIGITS = 18          # a game id in a path: SQLite's integers, and never int() of 5,000 digits


def game_id(text: str) -> bool:
    """A game id as a path may carry one: ASCII digits, few enough for SQLite and int()."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS


class HistoryPages:
    """``/history``, ``/history/{id}`` and ``/export/{name}`` of ``site``."""

    def __init__(self, site: Site) -> None:
        self.site = site

    def log_links(self, b: Book, games: list[Any]) -> dict[int, str]:
        """The "Log in BG Stats" link of each finished game among ``games``."""
        finished = [g for g in games if g.headline is not None]
        ids = self.bgg_ids()
        return {p.played.id: add_play_link(p, ids.get(p.played.game, 0))
                for p in plays(b, listed=finished)}

    def bgg_ids(self) -> dict[str, int]:
        """Each game's BGG id; the phone's Settings may set one over the config's."""
        return bgg_ids(self.site.config, state_dir=self.site.state_dir)

    async def history(self, request: Request, sid: str) -> Response:
        def read(b: Book) -> dict[str, Any]:
            people = b.players()
            games = b.games(limit=100)
            return {"games": games, "people": [
                (name, player_lines(b.player_record(name), TITLES)) for name, _ in people[:12]],
                "stats": [(stats.title or f"{spec.short}: {stats.heading}", stats.lines(b.read))
                          for spec in GAMES.values() if (stats := spec.records.stats) is not None],
                "links": self.log_links(b, games)}
        data = self.site.with_book(read, {"games": [], "people": [], "stats": [], "links": {}})
        return self.site.page("history.html", tab="history", **data)

    async def game(self, request: Request, sid: str) -> Response:
        wanted = request.path_params["id"]
        found = None
        if game_id(wanted):
            with contextlib.suppress(KeyError):
                found = self.site.with_book(lambda b: b.game(int(wanted)))
        if found is None:
            return self.site.page("missing.html", 404, tab="history", what=f"game {wanted}")
        played, seats, final = found
        link = self.site.with_book(lambda b: self.log_links(b, [played]), {}).get(played.id)
        return self.site.page("game.html", tab="history", played=played, seats=seats, link=link,
                              final=json.dumps(final, indent=1, ensure_ascii=False) if final else "")

    async def export(self, request: Request, sid: str) -> Response:
        name = request.path_params["name"]
        opened = self.site.book()
        if opened is None:
            return PlainTextResponse("no journal yet\n", status_code=404, headers=HEADERS)
        try:
            if name == "games.csv":
                body, kind = to_csv(opened, self.bgg_ids()), "text/csv; charset=utf-8"
            elif name in ("plays.bgsplay", "bgstats.json"):  # the second: the former name
                body, kind = play_file_text(opened, self.bgg_ids()), BGSPLAY_MIME
            elif name.startswith("game-") and name.endswith(".jsonl") and game_id(name[5:-6]):
                body, kind = to_jsonl(opened, int(name[5:-6])), "application/x-ndjson"
            else:
                return PlainTextResponse("no such export\n", status_code=404, headers=HEADERS)
        except KeyError:
            return PlainTextResponse("no such game\n", status_code=404, headers=HEADERS)
        finally:
            opened.close()
        return Response(body, media_type=kind, headers={
            **HEADERS, "Content-Disposition": f'attachment; filename="companion-{name}"'})
