"""Home → Phone: pair a phone with the phone page (a QR code and a PIN), list the paired
phones and forget one, or forget every phone.

The QR code holds the page's address with a one-time token; the PIN is for a phone that types
the address. Both come from :mod:`companion.records.pairing`, written into the state directory where
``companion web`` reads them, and stop pairing when this screen closes or after five minutes.
They pair one phone: once the page has paired one with them, or after five wrong PINs, the
screen shows a new pair (it reads the page's record in the journal, :mod:`companion.phones`,
every :data:`WATCH_S`).
"""

from __future__ import annotations

import logging
import sqlite3
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import segno
from PIL import Image, ImageDraw

from companion.frame.canvas import HEIGHT, WIDTH, Canvas
from companion.frame.font import MEDIUM, SMALL
from companion.records import pairing, phones, roster
from companion.ui.widgets import ConfirmScreen, MenuItem, MenuScreen, Screen, is_press

if TYPE_CHECKING:
    from companion.contract.input import ButtonEvent
    from companion.contract.spec import BoxTable

log = logging.getLogger(__name__)

MODULE_PX = 2           # one QR module is 2×2 pixels: the finest a phone camera reads off the OLED
QUIET = 1               # light modules around the code (the panel's edge is dark)
MAX_VERSION = 3         # 29 modules: with its quiet zone, 62 px of the 64 px panel
WATCH_S = 1.0           # how often the screen looks whether its PIN was used or burnt


def qr_modules(text: str) -> list[list[bool]] | None:
    """The QR code of ``text`` as rows of dark (True) modules, or None if it is too long to fit."""
    try:
        code = segno.make_qr(text, error="L", boost_error=False)
    except segno.DataOverflowError:
        return None
    if not isinstance(code.version, int) or code.version > MAX_VERSION:  # a str: a Micro QR
        return None
    return [[bool(m) for m in row] for row in code.matrix]


def draw_qr(image: Image.Image, modules: list[list[bool]]) -> int:
    """The code at the panel's top left, dark on light with its quiet zone (the whole panel is
    the screen's: no title bar or hint over it); the first free column right of it."""
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), fill=0)
    size = (len(modules) + 2 * QUIET) * MODULE_PX
    draw.rectangle((0, 0, size - 1, size - 1), fill=255)
    for y, row in enumerate(modules):
        for x, dark in enumerate(row):
            if dark:
                px, py = (x + QUIET) * MODULE_PX, (y + QUIET) * MODULE_PX
                draw.rectangle((px, py, px + MODULE_PX - 1, py + MODULE_PX - 1), fill=0)
    return size + 2


class AddressScreen(Screen):
    """The phone page's address for everyone on the box's network, ``http://HOSTNAME.local/``
    (port 80, avahi's name): its QR code and the address written beside it; BACK closes."""

    title = ""
    hint = ""

    def __init__(self, app: BoxTable, address: str) -> None:
        super().__init__(app)
        self.address = address
        self.modules = qr_modules(address)

    def draw(self, canvas: Canvas) -> None:
        left = draw_qr(canvas.image, self.modules) if self.modules else 0
        width = WIDTH - left
        # Broken where a person reads it: the scheme, the box's name, its ".local/".
        scheme, _, rest = self.address.partition("//")
        host, dot, domain = rest.partition(".")
        lines = ["Phone page", f"{scheme}//", *SMALL.wrap(host, width - 2)[:3], f"{dot}{domain}",
                 "BACK close"]
        for row, line in enumerate(lines[:7]):
            text = SMALL.fit(line, width)
            SMALL.draw(canvas.image, (left + (width - SMALL.width(text)) // 2, 1 + row * 9), text)
        if not self.modules:   # a name too long for a code the panel can show
            SMALL.draw(canvas.image, (1, 55), "No QR: type it")

    def on_button(self, event: ButtonEvent) -> bool:
        if is_press(event, "BACK") or is_press(event, "OK"):
            self.app.pop()
            return True
        return False


class PhoneMenu(MenuScreen):
    """Pair a phone, or forget every paired phone."""

    app: BoxTable

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Phone", [])
        self.on_enter()

    def on_enter(self) -> None:
        app = self.app
        count = len(paired_phones(app))
        self.items = [
            MenuItem("Pair a phone", lambda: app.push(PairScreen(app))),
            MenuItem("Paired phones", lambda: app.push(PhonesScreen(app)), str(count)),
            MenuItem("Forget phones", self._forget),
        ]

    def _forget(self) -> None:
        app = self.app

        def forget() -> None:
            app.pop()
            try:
                pairing.forget_phones(state_dir_of(app))
                with roster.connect(app.state_dir) as conn:
                    phones.forget_all(conn)
            except (OSError, roster.RosterError, sqlite3.Error) as exc:
                log.warning("could not forget phones: %s", exc)
                app.toast("Cannot forget:", "state dir refuses", error=True)
                return
            app.toast("Phones forgotten:", "pair them again")

        app.push(ConfirmScreen(app, "Forget phones", "Every paired phone must pair again.", forget))


def state_dir_of(app: BoxTable) -> Path:
    """Where pairing keeps its file; OSError for a box that keeps no state (the journal off)."""
    if app.state_dir is None:
        raise OSError("this box keeps no state directory")
    return app.state_dir


def paired_phones(app: BoxTable) -> list[phones.Phone]:
    """The phones the page lists as paired (none without a journal)."""
    if app.state_dir is None:
        return []
    try:
        with roster.connect(app.state_dir) as conn:
            return phones.listing(conn)
    except (roster.RosterError, sqlite3.Error) as exc:
        log.info("no paired phones to list: %s", exc)
        return []


class PhonesScreen(MenuScreen):
    """Each paired phone (its browser, last seen); OK on one forgets it, after a yes."""

    app: BoxTable

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app, "Paired phones", [])
        self.on_enter()

    def on_enter(self) -> None:
        now = time.time()
        listed = paired_phones(self.app)
        self.items = [MenuItem(p.name, partial(self._forget, p), phones.ago(now - p.last_seen))
                      for p in listed] or [MenuItem("No phone paired", self.app.pop)]
        self.selected = min(self.selected, len(self.items) - 1)

    def _forget(self, phone: phones.Phone) -> None:
        app = self.app

        def forget() -> None:
            app.pop()
            try:
                with roster.connect(app.state_dir) as conn:
                    phones.forget(conn, phone.id)
            except (roster.RosterError, sqlite3.Error) as exc:
                log.warning("could not forget a phone: %s", exc)
                app.toast("Cannot forget:", "journal refuses", error=True)
                return
            app.toast("Phone forgotten:", phone.name)

        app.push(ConfirmScreen(app, "Forget phone", f"{phone.name} must pair again.", forget))


class PairScreen(Screen):
    """The QR code on the left, the PIN on the right; OK makes a new pair, BACK closes."""

    app: BoxTable

    title = ""
    hint = ""

    def __init__(self, app: BoxTable) -> None:
        super().__init__(app)
        self.offer: pairing.Offer | None = None
        self.modules: list[list[bool]] | None = None
        self.problem = ""
        self.address = ""
        self.typing = False  # ▼: the address to type with the PIN, for a phone without a camera
        self._make()
        self._watch = app.clock.at(app.clock.now() + WATCH_S, self._check)

    def _check(self) -> None:
        """A new PIN and code once the page paired a phone with these or burnt them."""
        if self not in self.app.stack:
            return
        self._watch = self.app.clock.at(self.app.clock.now() + WATCH_S, self._check)
        if self.offer is None:
            return
        try:
            with roster.connect(self.app.state_dir) as conn:
                why = phones.spent(conn, self.offer.token)
        except (roster.RosterError, sqlite3.Error):
            why = ""
        if why or not self.offer.open(time.time()):
            self._make()
            if why == "paired":
                self.app.toast("Phone paired", "New code for the next")
            elif why:
                self.app.toast("Wrong PINs:", "new PIN shown", error=True)

    def _make(self) -> None:
        web = self.app.config.web
        try:
            self.offer = pairing.offer(state_dir_of(self.app))
        except OSError as exc:   # no state directory, or it refuses
            log.warning("cannot offer pairing: %s", exc)
            self.offer, self.modules, self.problem = None, None, "No state dir"
            return
        address = pairing.page_address(web.port, web.listen)
        self.address = f"{address}pair"
        self.modules = qr_modules(f"{address}pair?t={self.offer.token}")
        self.problem = "" if self.modules else "Type the address"

    def draw(self, canvas: Canvas) -> None:
        image = canvas.image
        draw = ImageDraw.Draw(image)
        draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), fill=0)   # the whole panel, title bar too
        if self.typing and self.offer is not None:
            self._draw_typing(image, self.offer)
            return
        left = draw_qr(image, self.modules) if self.modules else 0
        width = WIDTH - left

        def centre(y: int, text: str, font=SMALL) -> None:
            text = font.fit(text, width)
            font.draw(image, (left + (width - font.width(text)) // 2, y), text)

        centre(1, "Phone page")
        if self.offer is None:
            centre(20, self.problem)
            centre(55, "BACK close")
            return
        centre(14, "PIN")
        centre(24, self.offer.pin[:3], MEDIUM)
        centre(40, self.offer.pin[3:], MEDIUM)
        centre(56, "▼ address")

    def _draw_typing(self, image: Image.Image, offer: pairing.Offer) -> None:
        """The page's address as the phone's browser takes it, then ``offer``'s PIN."""
        lines = ["On the phone, open:", *SMALL.wrap(self.address.split("://")[-1], WIDTH - 2)[:3],
                 f"PIN {offer.pin}", "▲ QR code  OK new"]
        for row, line in enumerate(lines):
            SMALL.draw(image, (1, 1 + row * 9), SMALL.fit(line, WIDTH - 2))

    def on_button(self, event: ButtonEvent) -> bool:
        if event.button in ("UP", "DOWN") and event.kind == "short":
            self.typing = event.button == "DOWN"
            return True
        if is_press(event, "OK"):
            self._make()
            return True
        if is_press(event, "BACK"):
            self._watch.cancel()
            if self.offer is not None and self.app.state_dir is not None:
                pairing.withdraw(self.app.state_dir)
            self.app.pop()
            return True
        return False
