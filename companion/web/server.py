"""The phone page: a Starlette application over the journal, read-only but for the roster.

Pages are rendered on the server with Jinja2. This module lays out the routes; what they share
(the templates, the gate of a paired session, the journal read per request) is :mod:`.site`,
the Live feed :mod:`.feed`, the History pages :mod:`.history`, the pages with forms
:mod:`.form_pages` and :mod:`.dice`, the card-data and update pages :mod:`.cards` and
:mod:`.update`. Every route but pairing, the bundled assets and the Wi-Fi page for a phone on
the box's own network (:mod:`.wifi`) answers 401 without a paired session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, FunctionLoader, select_autoescape
from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from companion.contract.config import Config
from companion.journal import health_file
from companion.records.export import when

from . import cards, update, wifi
from .auth import Pairing
from .dice import DicePage
from .feed import LiveFeed
from .form_pages import FormPages
from .forms import TITLES
from .history import HistoryPages
from .live import game_template
from .site import Site
from .watch import JournalWatch

HERE = Path(__file__).parent
BOTH = ["GET", "POST"]


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
    site = Site(state_dir, config, config_path,
                health_dir or health_file.runtime_dir() or health_file.RUNTIME_DIR,
                _environment(), Pairing(state_dir, start_token=start_token))
    watch = JournalWatch(state_dir)
    feed, history, forms = LiveFeed(site, watch), HistoryPages(site), FormPages(site)
    dice = DicePage(site)
    paired = site.paired

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
        Route("/", paired(feed.home)),
        Route("/pair", site.pair, methods=BOTH),
        Route("/table", paired(feed.table)),
        Route("/events", paired(feed.events)),
        Route("/history", paired(history.history)),
        Route("/history/{id}", paired(history.game)),
        Route("/export/{name}", paired(history.export)),
        Route("/roster", paired(forms.roster), methods=BOTH),
        Route("/phones", paired(forms.phones), methods=BOTH),
        Route("/settings", paired(forms.settings), methods=BOTH),
        Route("/dice", paired(dice.dice), methods=BOTH),
        Route("/cards/{game}/{file}", paired(cards.endpoint(
            state_dir, config_path, site.page, site.checked_form, site.pairing.csrf)), methods=BOTH),
        Route("/update", paired(update.endpoint(state_dir, site.page, site.pairing)), methods=BOTH),
        Route("/wifi", wifi.endpoint(site), methods=BOTH),  # paired, or on the box's own network
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ], lifespan=lifespan)
    app.state.pairing = site.pairing
    app.state.watch = watch
    return app
