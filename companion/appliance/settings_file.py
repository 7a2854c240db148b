"""Reading ``companion.txt`` as any editor saves it, and blanking its passphrase.

People write this file with Windows Notepad (UTF-8 with a byte-order mark, or "Unicode",
which is UTF-16), with old Mac editors (CR line ends), or with an editor still set to
Windows-1252. Every one of them is read as meant; the text is written back in the same
encoding, byte for byte apart from the blanked passphrase. Pure: no file, clock or system.
"""

from __future__ import annotations

import base64
import difflib
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field

MAX_BYTES = 64 * 1024
MAX_PROBLEMS = 40
SHOWN_VALUE = 40  # characters of a refused value quoted back
KEYS = ("hostname", "wifi_country", "wifi_ssid", "wifi_password", "timezone", "phone_page",
        "ssh_key", "update_keys")
REPEATABLE = ("ssh_key", "update_keys")  # each line one more key
SECRET = "wifi_password"
SWITCH = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
HOSTNAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
TIMEZONE = re.compile(r"[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+){0,2}")
# An OpenSSH public key line (what a .pub file holds): its type, the key in base64, a comment.
SSH_KEY = re.compile(r"(?P<type>ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)"
                     r"|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)"
                     r" (?P<key>[A-Za-z0-9+/]+={0,2})(?: [ -~]*)?")
# An update-signing public key (the line of the .pub file `companion update --make-key` makes).
UPDATE_KEY = re.compile(r"table-companion-update-key ed25519 (?P<key>[A-Za-z0-9+/]{43}=)"
                        r"(?: [A-Za-z0-9_.-]{1,64})?")
# The bytes Windows-1252 leaves undefined: read as the Latin-1 control characters they
# are there, so they are refused by name and written back unchanged.
CP1252_HOLES = b"\x81\x8d\x8f\x90\x9d"
_HOLE_BYTES = re.compile(b"([" + re.escape(CP1252_HOLES) + b"])")
_HOLE_CHARS = re.compile("([" + CP1252_HOLES.decode("latin-1") + "])")
LINE_END = re.compile(r"(\r\n|\r|\n)")
CONTROL_NAMES = {"\x00": "NUL", "\x0b": "vertical tab", "\x0c": "form feed",
                 "\x1a": "end-of-file mark (Ctrl-Z)", "\x85": "next-line mark (NEL)"}


class Unreadable(ValueError):
    """The bytes are not text in any encoding the box reads."""


@dataclass(frozen=True)
class Decoded:
    """The file's text and how to write it back as it came."""

    text: str
    encoding: str  # "utf-8", "utf-16-le", "utf-16-be" or "cp1252"
    bom: bytes = b""

    def encode(self, text: str) -> bytes:
        if self.encoding == "cp1252":
            parts = _HOLE_CHARS.split(text)
            return self.bom + b"".join(
                part.encode("latin-1" if index % 2 else "cp1252") for index, part in enumerate(parts))
        return self.bom + text.encode(self.encoding)


def decode(data: bytes) -> Decoded:
    """UTF-8 with or without its BOM, UTF-16 with its BOM, else Windows-1252."""
    for bom, encoding in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            try:
                return Decoded(data[len(bom):].decode(encoding), encoding, bom)
            except UnicodeDecodeError as exc:
                raise Unreadable(f"it starts as UTF-16 but byte {exc.start + len(bom) + 1} breaks it: "
                                 "save it again as UTF-8") from None
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    body = data[len(bom):]
    try:
        return Decoded(body.decode("utf-8"), "utf-8", bom)
    except UnicodeDecodeError:
        parts = _HOLE_BYTES.split(body)
        text = "".join(part.decode("latin-1" if index % 2 else "cp1252")
                       for index, part in enumerate(parts))
        return Decoded(text, "cp1252", bom)


def split_lines(text: str) -> list[str]:
    """Lines and their ends alternately (LF, CRLF or CR), so joining them gives the text back."""
    return LINE_END.split(text)


@dataclass
class Settings:
    """What the file asks for. A key left out changes nothing; a key present with an empty
    value is in ``cleared`` (the Wi-Fi network is then removed)."""

    hostname: str | None = None
    ssh_key: str | None = None  # one or more public keys, a line each
    update_keys: str | None = None  # update-signing public keys, a line each (first boot only)
    wifi_psk: str | None = None  # WPA's key in hex, as Raspberry Pi Imager gives it (not a key here)
    wifi_country: str | None = None
    wifi_ssid: str | None = None
    wifi_password: str | None = None
    timezone: str | None = None
    phone_page: bool | None = None
    cleared: set[str] = field(default_factory=set)
    lines: dict[str, int] = field(default_factory=dict)  # the line each key was read from
    sources: dict[str, str] = field(default_factory=dict)  # a key read from another file: its name
    problems: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    unlisted: int = 0  # problems beyond MAX_PROBLEMS, counted only

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(text)
        else:
            self.unlisted += 1

    def refuse(self, key: str, why: str) -> None:
        """Drop a value read from the file, naming its line."""
        value = getattr(self, key)
        setattr(self, key, None)
        where = f"line {self.lines[key]}" if key in self.lines else self.sources.get(key, key)
        self.problem(f"{where}: {key} = {shown(key, str(value))} is refused: {why}")

    def all_problems(self) -> list[str]:
        more = [f"... and {self.unlisted} more problems"] if self.unlisted else []
        return self.problems + more


def shown(key: str, value: str) -> str:
    if key == SECRET:
        return "(hidden)"
    return repr(value if len(value) <= SHOWN_VALUE else value[:SHOWN_VALUE] + "…")


def control_character(line: str) -> str | None:
    """Why the line cannot be read as plain text, or None."""
    for column, char in enumerate(line, 1):
        if char != "\t" and (unicodedata.category(char) in ("Cc", "Zl", "Zp", "Cs")
                             or char in "\ufffe\uffff"):
            name = CONTROL_NAMES.get(char) or unicodedata.name(char, "control character").lower()
            return (f"a {name} (U+{ord(char):04X}) at character {column} is not plain text: "
                    "delete it and type the line again")
    return None


def check(key: str, value: str) -> tuple[object, str | None]:
    """The parsed value, or None and why it is refused."""
    if key == "hostname":
        if not value.isascii():
            return None, ("it has letters that only look like a-z (e.g. a Kelvin sign for K): "
                          "type it with plain letters a-z, digits and hyphens")
        name = value.lower()
        if name == "localhost" or not HOSTNAME.fullmatch(name):
            return None, "a hostname is 1 to 63 letters, digits and inner hyphens, not localhost, " \
                         "e.g. companion"
        return name, None
    if key == "wifi_country":
        if re.fullmatch(r"[A-Za-z]{2}", value):
            return value.upper(), None
        return None, "a Wi-Fi country is a two-letter code (ISO 3166), e.g. FR, GB, US, DE"
    if key == "wifi_ssid":
        if len(value.encode()) <= 32:
            return value, None
        return None, "a network name (SSID) is at most 32 bytes"
    if key == SECRET:
        if 8 <= len(value) <= 63 and value.isascii() and value.isprintable():
            return value, None
        return None, "a WPA passphrase is 8 to 63 plain characters (letters, digits, signs)"
    if key == "ssh_key":
        return ssh_key(value)
    if key == "update_keys":
        if UPDATE_KEY.fullmatch(value) and len(base64.b64decode(value.split()[2])) == 32:
            return value, None
        return None, ("an update key is the line of the .pub file companion update --make-key "
                      "made: 'table-companion-update-key ed25519 … NAME'")
    if key == "timezone":
        if TIMEZONE.fullmatch(value) and ".." not in value:
            return value, None
        return None, "a time zone is a name like Europe/Paris or America/New_York"
    if value.lower() in SWITCH:
        return SWITCH[value.lower()], None
    return None, "phone_page is on or off"


def ssh_key(value: str) -> tuple[str | None, str | None]:
    """An OpenSSH public key line, checked (its base64 names the same type), or why not."""
    if "PRIVATE KEY" in value or value.startswith("-----"):
        return None, ("this is a private key, which must never leave your computer: give the "
                      "public one (the line of the .pub file, e.g. id_ed25519.pub)")
    found = SSH_KEY.fullmatch(value)
    if found is None:
        return None, ("an SSH public key is one line like 'ssh-ed25519 AAAA... you@laptop' "
                      "(the .pub file)")
    try:
        blob = base64.b64decode(found["key"], validate=True)
    except ValueError:
        blob = b""
    named = blob[4:4 + int.from_bytes(blob[:4], "big")] if len(blob) > 4 else b""
    if named != found["type"].encode():
        return None, "the key's text is damaged (copy the whole line of the .pub file again)"
    return value, None


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _key_of(line: str) -> str | None:
    key, equals, _ = line.partition("=")
    return key.strip().lower() if equals else None


def _unknown(key: str) -> str:
    close = difflib.get_close_matches(key, KEYS, n=1)
    return f" (did you mean {close[0]}?)" if close else f"; the settings are {', '.join(KEYS)}"


def parse(text: str) -> Settings:
    """Read ``key = value`` lines; ``#`` starts a comment line (values may hold a ``#``)."""
    settings = Settings()
    for number, raw in enumerate(split_lines(text.removeprefix("\ufeff"))[::2], 1):
        line = raw.strip(" \t")
        if not line or line.startswith("#"):
            continue
        bad = control_character(line)
        if bad:
            settings.problem(f"line {number}: {bad}")
            continue
        key = _key_of(line)
        if key is None:
            settings.problem(f"line {number}: {shown('', line)} is not a setting: write name = value")
        elif key not in KEYS:
            settings.problem(f"line {number}: unknown setting {shown('', key)}{_unknown(key)}")
        elif key in REPEATABLE and key in settings.lines:
            _more_keys(settings, key, number, _unquote(line.partition("=")[2].strip(" \t")))
        elif key in settings.lines:
            settings.problem(f"line {number}: {key} is set again (first on line "
                             f"{settings.lines[key]}); the first is used")
        else:
            settings.lines[key] = number
            _read_value(settings, key, _unquote(line.partition("=")[2].strip(" \t")))
    if settings.wifi_password and not settings.wifi_ssid:
        settings.problem("wifi_password is set but wifi_ssid is empty: name the network")
    return settings


def _more_keys(settings: Settings, key: str, number: int, value: str) -> None:
    """Another ``ssh_key`` or ``update_keys`` line: each line one more key."""
    if not value:
        return
    parsed, why = check(key, value)
    earlier = getattr(settings, key)
    if why:
        settings.problem(f"line {number}: {key} = {shown(key, value)} is refused: {why}")
    elif earlier and isinstance(parsed, str):
        setattr(settings, key, earlier + "\n" + parsed)
    else:
        setattr(settings, key, parsed)


def set_values(text: str, values: dict[str, list[str]]) -> str:
    """The text with each key's line saying ``values`` (its first line takes them, a line
    each; later lines of it go; a key absent gets lines at the end), every other line and line
    end kept."""
    parts = split_lines(text)
    ending = parts[1] if len(parts) > 1 else "\n"
    done: set[str] = set()
    for index in range(0, len(parts), 2):
        key = _key_of(parts[index].strip(" \t"))
        if key is None or key not in values:
            continue
        if key in done:  # a later line of a key written above
            parts[index] = ""
            if index + 1 < len(parts):
                parts[index + 1] = ""
            continue
        done.add(key)
        parts[index] = ending.join(f"{key} = {value}" for value in values[key])
    body = "".join(parts)
    tail = [f"{key} = {value}{ending}" for key in values if key not in done for value in values[key]]
    if tail and body and not body.endswith(("\n", "\r")):
        body += ending
    return body + "".join(tail)


def _read_value(settings: Settings, key: str, value: str) -> None:
    if not value:
        settings.cleared.add(key)
        return
    parsed, why = check(key, value)
    setattr(settings, key, value)
    if why:
        settings.refuse(key, why)
    else:
        setattr(settings, key, parsed)


def validate(settings: Settings, zones: Collection[str], countries: Collection[str]) -> None:
    """Refuse a time zone or country the box's own lists do not hold (``zones``: the zoneinfo
    database's names; ``countries``: ISO 3166 alpha-2 codes)."""
    if settings.timezone and settings.timezone not in zones:
        settings.refuse("timezone", "it is not in the time zone database: write a name like "
                        "Europe/Paris, America/New_York or UTC")
    if settings.wifi_country and settings.wifi_country not in countries:
        settings.refuse("wifi_country", "it is not a country's ISO 3166 code: e.g. FR, GB, US, DE")


def is_secret_line(line: str) -> bool:
    """The passphrase's line, also under a misspelt name (``wifi_pasword``, ``wifi_pw``,
    ``psk``): it is blanked all the same."""
    key = _key_of(line.strip(" \t"))
    return key is not None and any(part in key for part in ("pas", "pw", "psk"))


def blank_secret(text: str) -> str:
    """The text with every passphrase line's value removed and every other character kept."""
    parts = split_lines(text)
    for index in range(0, len(parts), 2):
        if is_secret_line(parts[index]):
            parts[index] = parts[index].partition("=")[0] + "="
    return "".join(parts)
