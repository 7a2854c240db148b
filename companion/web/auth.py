"""Who may see the phone page: phones paired with the box's PIN or QR token.

A paired phone holds a session cookie ``<id>.<signature>`` signed with the box's pairing
secret (:mod:`companion.records.pairing`) and listed in the journal's ``phones`` table
(:mod:`companion.phones`): a new secret ("Forget phones") ends every session, removing the row
ends one. Pairing is decided under a lock, in one write transaction, after the request's body
has been read: each offer the box shows pairs one phone and is burnt after
:data:`~companion.phones.MAX_WRONG` wrong PINs, whatever the number of connections trying.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from companion.records import pairing, phones, roster

COOKIE = "companion_session"
SESSION_S = 30 * 24 * 3600      # a paired phone stays paired for a month
START_TOKEN_S = 15 * 60         # the token `companion web` shows at start on a terminal
SEEN_EVERY_S = 60.0             # a phone's "last seen" is written at most this often
PIN_CHARS = frozenset("0123456789")


def same(a: str, b: str) -> bool:
    """Constant-time equality of two texts, any characters (compare_digest refuses non-ASCII str)."""
    return hmac.compare_digest(a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Outcome:
    """What a pairing attempt gave: a cookie value when it paired, else the page's message."""

    cookie: str = ""
    message: str = ""
    status: int = 401
    checked: bool = False       # the PIN was compared with the box's (a guess was spent)


class Pairing:
    """The pairing state of one ``companion web`` process."""

    def __init__(self, state_dir: Path, clock=time.time, start_token: bool = False) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self._spare = secrets.token_hex(32)   # signs sessions until the box writes a secret
        self._lock = threading.Lock()
        self._seen_written: dict[str, float] = {}
        self.start_token = secrets.token_urlsafe(16) if start_token else ""
        self._start_until = clock() + START_TOKEN_S

    def _offer(self) -> pairing.Offer:
        return pairing.read(self.state_dir) or pairing.Offer(self._spare)

    @contextlib.contextmanager
    def _journal(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The journal, in one transaction that commits only if the block ends normally."""
        with roster.connect(self.state_dir) as conn:
            if write:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    phones.ensure(conn)
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            else:
                yield conn

    # ----- sessions -----------------------------------------------------------------------
    def _cookie(self, secret: str) -> tuple[str, str]:
        sid = secrets.token_urlsafe(18)
        return sid, f"{sid}.{pairing.sign(secret, 'session:' + sid)}"

    def session_id(self, cookie: str | None) -> str | None:
        """The session id when ``cookie`` is signed with the box's secret now and its phone is
        still paired, else None."""
        if not cookie or "." not in cookie:
            return None
        sid, _, signature = cookie.partition(".")
        if not same(pairing.sign(self._offer().secret, "session:" + sid), signature):
            return None
        try:
            with self._journal() as conn:
                if not phones.known(conn, sid):
                    return None
            now = self.clock()
            if now - self._seen_written.get(sid, 0.0) >= SEEN_EVERY_S:
                with self._journal(write=True) as conn:
                    phones.seen(conn, sid, now)
                self._seen_written[sid] = now
        except (roster.RosterError, sqlite3.Error):
            return None
        return sid

    def csrf(self, sid: str) -> str:
        """The forms' token for session ``sid``."""
        return pairing.sign(self._offer().secret, "csrf:" + sid)

    def csrf_ok(self, sid: str, token: object) -> bool:
        return isinstance(token, str) and bool(token) and same(self.csrf(sid), token)

    def phones(self) -> list[phones.Phone]:
        try:
            with self._journal() as conn:
                return phones.listing(conn)
        except (roster.RosterError, sqlite3.Error):
            return []

    def forget(self, phone_id: str) -> bool:
        with self._journal(write=True) as conn:
            return phones.forget(conn, phone_id)

    # ----- pairing ------------------------------------------------------------------------
    def _paired(self, conn: sqlite3.Connection, offer: pairing.Offer, used: str, address: str,
                user_agent: str, now: float) -> Outcome:
        phones.record(conn, used, phones.PAIRED, address, now)
        sid, cookie = self._cookie(offer.secret)
        phones.add(conn, sid, phones.browser_name(user_agent), now)
        self._seen_written[sid] = now
        return Outcome(cookie, status=303)

    def take_token(self, token: str, address: str, user_agent: str = "") -> Outcome:
        """Pair with the QR code's token (or the one shown at start): each pairs one phone."""
        now = self.clock()
        try:
            with self._lock, self._journal(write=True) as conn:
                offer = self._offer()
                if offer.open(now) and same(offer.token, token) and not phones.spent(conn, token):
                    return self._paired(conn, offer, token, address, user_agent, now)
                printed = (self.start_token and now < self._start_until
                           and same(self.start_token, token))
                if printed and not phones.offer_uses(conn, token)[0]:
                    return self._paired(conn, offer, token, address, user_agent, now)
        except (roster.RosterError, sqlite3.Error) as exc:
            return Outcome(message=f"The page cannot pair now: {exc}.")
        return Outcome(message="That code was used or has expired: the box shows a new one "
                       "on Home → Phone.")

    def try_pin(self, pin: str, address: str, user_agent: str = "") -> Outcome:
        """Pair with the PIN the box shows: decided under the lock, so at most
        :data:`~companion.phones.MAX_WRONG` guesses are compared per PIN shown."""
        pin = pin.strip()
        if len(pin) != pairing.PIN_DIGITS or not set(pin) <= PIN_CHARS:
            return Outcome(message=f"A PIN is {pairing.PIN_DIGITS} digits, 0 to 9.")
        now = self.clock()
        try:
            with self._lock, self._journal(write=True) as conn:
                offer = self._offer()
                if not offer.open(now):
                    return Outcome(message="The box's Phone screen is closed: open Home → Phone "
                                   "→ Pair a phone.")
                if phones.wrong_from(conn, address, now) >= phones.MAX_WRONG_PER_ADDRESS:
                    return Outcome(message="Too many wrong PINs from this device: scan the QR "
                                   "code, or try again in 10 minutes.", status=429)
                why = phones.spent(conn, offer.token)
                if why:
                    return Outcome(message=f"That PIN {'paired a phone' if why == 'paired' else 'is used up'}"
                                   ": the box now shows a new one.")
                if same(offer.pin, pin):
                    return self._paired(conn, offer, offer.token, address, user_agent, now)
                phones.record(conn, offer.token, phones.WRONG, address, now)
                burnt = phones.spent(conn, offer.token) == "burnt"
        except (roster.RosterError, sqlite3.Error) as exc:
            return Outcome(message=f"The page cannot pair now: {exc}.")
        return Outcome(message="Wrong PIN." + (" The box now shows a new one." if burnt else ""),
                       checked=True)
