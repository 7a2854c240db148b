"""Paired phones and what each pairing offer was used for, kept in the journal's database.

The box's Phone screen shows one offer (a PIN and a QR token, :mod:`companion.records.pairing`); the
phone page records here each wrong PIN tried against it and the phone it paired, so that an
offer pairs one phone, is burnt after :data:`MAX_WRONG` wrong PINs, and a used token stays
used after the page restarts. Each paired phone is a row (a name from its browser, when it
paired, when it was last seen); a session whose row is gone no longer opens the page, so one
phone can be forgotten alone, on the page or on the box.

Only digests of tokens and session ids are stored: the database is not a key. The tables are
made when first needed (``CREATE TABLE IF NOT EXISTS``): an older box ignores them.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass

MAX_WRONG = 5                   # wrong PINs that burn an offer: a guess pairs with p ≤ 5e-6
MAX_WRONG_PER_ADDRESS = 3       # wrong PINs one address may try ...
ADDRESS_WINDOW_S = 600.0        # ... in this many seconds, whatever the offer
NAME_CHARS = 40

TABLES = (
    "CREATE TABLE IF NOT EXISTS phones (id TEXT PRIMARY KEY, name TEXT NOT NULL, "
    "paired_at REAL NOT NULL, last_seen REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pairing_uses (offer TEXT NOT NULL, kind TEXT NOT NULL, "
    "address TEXT NOT NULL, at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS pairing_uses_by_offer ON pairing_uses (offer, kind)",
)
WRONG, PAIRED = "wrong", "paired"


@dataclass(frozen=True)
class Phone:
    """A paired phone as the page and the box list it."""

    id: str
    name: str
    paired_at: float
    last_seen: float


def digest(text: str) -> str:
    """What the tables keep of a token or a session id."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def ensure(conn: sqlite3.Connection) -> None:
    for statement in TABLES:
        conn.execute(statement)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return bool(conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'phones'").fetchone())


# ----- offers -------------------------------------------------------------------------------
def offer_uses(conn: sqlite3.Connection, token: str) -> tuple[bool, int]:
    """(paired a phone already, wrong PINs tried) for the offer whose token is ``token``."""
    if not _has_tables(conn):
        return False, 0
    rows = dict(conn.execute("SELECT kind, COUNT(*) FROM pairing_uses WHERE offer = ? "
                             "GROUP BY kind", (digest(token),)).fetchall())
    return bool(rows.get(PAIRED)), int(rows.get(WRONG, 0))


def spent(conn: sqlite3.Connection, token: str) -> str:
    """Why the offer of ``token`` no longer pairs: "paired", "burnt", or "" while it does."""
    paired, wrong = offer_uses(conn, token)
    return "paired" if paired else "burnt" if wrong >= MAX_WRONG else ""


def wrong_from(conn: sqlite3.Connection, address: str, now: float) -> int:
    """Wrong PINs ``address`` tried in the last :data:`ADDRESS_WINDOW_S`."""
    return int(conn.execute("SELECT COUNT(*) FROM pairing_uses WHERE kind = ? AND address = ? "
                            "AND at > ?", (WRONG, address, now - ADDRESS_WINDOW_S)).fetchone()[0])


def record(conn: sqlite3.Connection, token: str, kind: str, address: str, now: float) -> None:
    conn.execute("INSERT INTO pairing_uses (offer, kind, address, at) VALUES (?, ?, ?, ?)",
                 (digest(token), kind, address, now))


# ----- phones -------------------------------------------------------------------------------
def browser_name(user_agent: str) -> str:
    """A phone's name from its browser's User-Agent: "Firefox on Android", "Safari on iPhone"."""
    ua = user_agent or ""
    browser = next((name for marker, name in (
        ("Firefox/", "Firefox"), ("FxiOS", "Firefox"), ("Edg", "Edge"), ("OPR/", "Opera"),
        ("SamsungBrowser", "Samsung Internet"), ("CriOS", "Chrome"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari")) if marker in ua), "A browser")
    system = next((name for marker, name in (
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Windows", "Windows"),
        ("Mac OS X", "Mac"), ("CrOS", "ChromeOS"), ("Linux", "Linux")) if marker in ua), "")
    name = f"{browser} on {system}" if system else browser
    return re.sub(r"[^ -~]", "", name)[:NAME_CHARS]


def add(conn: sqlite3.Connection, session_id: str, name: str, now: float) -> None:
    conn.execute("INSERT OR REPLACE INTO phones (id, name, paired_at, last_seen) "
                 "VALUES (?, ?, ?, ?)", (digest(session_id), name, now, now))


def known(conn: sqlite3.Connection, session_id: str) -> bool:
    return _has_tables(conn) and bool(conn.execute(
        "SELECT 1 FROM phones WHERE id = ?", (digest(session_id),)).fetchone())


def seen(conn: sqlite3.Connection, session_id: str, now: float) -> None:
    conn.execute("UPDATE phones SET last_seen = ? WHERE id = ?", (now, digest(session_id)))


def listing(conn: sqlite3.Connection) -> list[Phone]:
    """Every paired phone, the one seen last first."""
    if not _has_tables(conn):
        return []
    return [Phone(*row) for row in conn.execute(
        "SELECT id, name, paired_at, last_seen FROM phones ORDER BY last_seen DESC, id")]


def forget(conn: sqlite3.Connection, phone_id: str) -> bool:
    """Forget one phone (its session stops opening the page); False if there is no such one."""
    if not _has_tables(conn):
        return False
    return conn.execute("DELETE FROM phones WHERE id = ?", (phone_id,)).rowcount > 0


def forget_all(conn: sqlite3.Connection) -> None:
    if _has_tables(conn):
        conn.execute("DELETE FROM phones")


def ago(seconds: float) -> str:
    """A time since, as the box and the page say it: "now", "5 min", "3 h", "2 d"."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return "now"
    for unit, size in (("d", 86400), ("h", 3600)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds // 60)} min"
