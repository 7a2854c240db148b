"""Who may see the phone page: phones paired with the box's PIN or one-time token.

A paired phone holds a session cookie ``<id>.<signature>`` signed with the box's pairing
secret (:mod:`companion.pairing`); a new secret ("Forget phones") makes every cookie fail. The
web process keeps in memory only what it may not write: the tokens already used, the token it
printed at start, and the recent wrong PINs it counts to slow a guesser down.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from pathlib import Path

from companion import pairing

COOKIE = "companion_session"
SESSION_S = 30 * 24 * 3600      # a paired phone stays paired for a month
START_TOKEN_S = 15 * 60         # the token `companion web` prints at start
MAX_WRONG = 5                   # wrong PINs allowed ...
WRONG_WINDOW_S = 60.0           # ... in this many seconds, from all phones together


class Pairing:
    """The pairing state of one ``companion web`` process."""

    def __init__(self, state_dir: Path, clock=time.time) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self._spare = secrets.token_hex(32)   # signs sessions until the box writes a secret
        self._used: set[str] = set()
        self._wrong: deque[float] = deque()
        self.start_token = secrets.token_urlsafe(16)
        self._start_until = clock() + START_TOKEN_S

    def _offer(self) -> pairing.Offer:
        return pairing.read(self.state_dir) or pairing.Offer(self._spare)

    # ----- sessions -----------------------------------------------------------------------
    def new_session(self) -> str:
        """A cookie value for a phone that just paired."""
        sid = secrets.token_urlsafe(18)
        return f"{sid}.{pairing.sign(self._offer().secret, 'session:' + sid)}"

    def session_id(self, cookie: str | None) -> str | None:
        """The session id when ``cookie`` is signed with the box's secret now, else None."""
        if not cookie or "." not in cookie:
            return None
        sid, _, signature = cookie.partition(".")
        good = pairing.sign(self._offer().secret, "session:" + sid)
        return sid if hmac.compare_digest(good, signature) else None

    def csrf(self, sid: str) -> str:
        """The roster form's token for session ``sid``."""
        return pairing.sign(self._offer().secret, "csrf:" + sid)

    def csrf_ok(self, sid: str, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(self.csrf(sid), str(token))

    # ----- pairing ------------------------------------------------------------------------
    def take_token(self, token: str | None) -> bool:
        """Whether ``token`` pairs (the QR code's or the printed one); it then never pairs again."""
        if not token or token in self._used:
            return False
        now = self.clock()
        offer = self._offer()
        box_token = offer.open(now) and hmac.compare_digest(offer.token, token)
        printed = now < self._start_until and hmac.compare_digest(self.start_token, token)
        if box_token or printed:
            self._used.add(token)
            return True
        return False

    def wait_s(self) -> float:
        """Seconds before another PIN may be tried (0 when it may now)."""
        now = self.clock()
        while self._wrong and now - self._wrong[0] > WRONG_WINDOW_S:
            self._wrong.popleft()
        if len(self._wrong) < MAX_WRONG:
            return 0.0
        return WRONG_WINDOW_S - (now - self._wrong[0])

    def try_pin(self, pin: str) -> bool:
        """Whether ``pin`` is the one the box shows now; call only when :meth:`wait_s` is 0."""
        now = self.clock()
        offer = self._offer()
        if offer.open(now) and hmac.compare_digest(offer.pin, str(pin).strip()):
            return True
        self._wrong.append(now)
        return False
