"""companion.txt as every editor saves it: encodings, line ends, control characters, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.appliance import settings_file
from companion.appliance.firstboot import Box, known_countries, known_zones, read_settings
from companion.appliance.settings_file import Unreadable, blank_secret, decode, parse, validate

TEXT = "hostname = tavolo\nwifi_ssid = Café\nwifi_password = patisserie-9\ntimezone = Europe/Paris\n"
# How editors save TEXT: (bytes, the encoding it is read as).
SAVED = {
    "UTF-8": (TEXT.encode(), "utf-8"),
    "UTF-8 with BOM": (b"\xef\xbb\xbf" + TEXT.encode(), "utf-8"),
    "UTF-16 LE (Notepad's Unicode)": (b"\xff\xfe" + TEXT.encode("utf-16-le"), "utf-16-le"),
    "UTF-16 BE": (b"\xfe\xff" + TEXT.encode("utf-16-be"), "utf-16-be"),
    "Windows-1252": (TEXT.encode("cp1252"), "cp1252"),
}


@pytest.mark.parametrize("name", SAVED)
def test_every_encoding_reads_the_same_settings_and_blanks_back_to_the_same_encoding(name):
    data, encoding = SAVED[name]
    decoded = decode(data)
    assert decoded.encoding == encoding and decoded.text == TEXT
    settings = parse(decoded.text)
    assert (settings.hostname, settings.wifi_ssid, settings.timezone) == (
        "tavolo", "Café", "Europe/Paris")
    assert settings.problems == []
    blanked = decoded.encode(blank_secret(decoded.text))
    assert blanked == data.replace("wifi_password = patisserie-9".encode(encoding),
                                   "wifi_password =".encode(encoding))
    assert "patisserie" not in decode(blanked).text and blanked[:3] == data[:3]  # the BOM kept


def test_a_cp1252_file_is_read_with_a_notice_and_its_bytes_survive_the_rewrite():
    data = "wifi_ssid = Café\r\nwifi_password = 12345678\r\nnote = \x81\r\n".encode("latin-1")
    settings, decoded = read_settings(data)
    assert decoded is not None and settings.wifi_ssid == "Café"
    assert settings.notices == ["companion.txt is not UTF-8: it was read as Windows-1252 "
                                "(Western European); save it as UTF-8 to be sure of accents"]
    # 0x81 means nothing in Windows-1252: refused by name, and written back as the same byte.
    assert settings.problems == ["line 3: a control character (U+0081) at character 8 is not "
                                 "plain text: delete it and type the line again"]
    assert decoded.encode(blank_secret(decoded.text)) == (
        b"wifi_ssid = Caf\xe9\r\nwifi_password =\r\nnote = \x81\r\n")


def test_broken_utf16_is_refused_with_a_reason():
    with pytest.raises(Unreadable, match="starts as UTF-16 but byte 5 breaks it"):
        decode(b"\xff\xfeh\x00\x00\xd8")  # a lone high surrogate
    settings, decoded = read_settings(b"\xff\xfeh\x00\x00\xd8")
    assert decoded is None and settings.problems[0].startswith("companion.txt cannot be read")


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_every_line_end_reads_and_blanks(end):
    text = end.join(TEXT.splitlines()) + end
    settings = parse(text)
    assert settings.problems == [] and settings.wifi_password == "patisserie-9"
    assert blank_secret(text) == text.replace("wifi_password = patisserie-9", "wifi_password =")


@pytest.mark.parametrize("char, name", [
    ("\x0c", "form feed (U+000C)"), ("\u2028", "line separator (U+2028)"),
    ("\x85", "next-line mark (NEL) (U+0085)"), ("\x0b", "vertical tab (U+000B)"),
    ("\x00", "NUL (U+0000)")])
def test_a_control_character_refuses_its_line_and_the_passphrase_is_still_blanked(char, name):
    text = f"wifi_ssid = Home\nwifi_password = abc{char}defghij\nhostname = box{char}2\n"
    settings = parse(text)
    assert settings.wifi_password is None and settings.hostname is None
    assert settings.problems == [
        f"line 2: a {name} at character 20 is not plain text: delete it and type the line again",
        f"line 3: a {name} at character 15 is not plain text: delete it and type the line again"]
    assert blank_secret(text) == f"wifi_ssid = Home\nwifi_password =\nhostname = box{char}2\n"


def test_a_tab_is_plain_text():
    assert parse("hostname\t=\ttavolo\n").hostname == "tavolo"


@pytest.mark.parametrize("line", ["wifi_pasword = secret99", "WIFI_PASSWORD=secret99",
                                  "  wifi_pw = secret99", "psk = secret99"])
def test_a_misspelt_passphrase_line_is_blanked_too(line):
    assert "secret99" not in blank_secret(f"wifi_ssid = Home\n{line}\n")


@pytest.mark.parametrize("name", ["localhost", "LocalHost", "\u212aompanion", "cafè"])
def test_hostnames_that_are_not_the_box_are_refused(name):
    settings = parse(f"hostname = {name}\n")
    assert settings.hostname is None and settings.problems[0].startswith(
        f"line 1: hostname = {name!r} is refused")
    if not name.isascii():
        assert "only look like a-z" in settings.problems[0]


def test_emptying_a_setting_clears_it_and_leaving_it_out_keeps_it():
    settings = parse("wifi_ssid =\nhostname = tavolo\n")
    assert settings.cleared == {"wifi_ssid"} and settings.wifi_ssid is None


def test_the_problems_are_bounded_and_counted():
    settings = parse("x = y\n" * 1000)
    problems = settings.all_problems()
    assert len(problems) == settings_file.MAX_PROBLEMS + 1
    assert problems[-1] == f"... and {1000 - settings_file.MAX_PROBLEMS} more problems"
    long_value = parse("hostname = " + "a" * 500 + "!\n").problems[0]
    assert len(long_value) < 200 and "aaaa…'" in long_value


def test_an_oversized_file_applies_nothing_and_says_so():
    data = b"hostname = tavolo\n" + b"x = y\n" * 20000
    settings, decoded = read_settings(data)
    assert decoded is not None and settings.hostname is None
    assert settings.problems == [f"companion.txt is {len(data) // 1024} KiB; the box reads at "
                                 "most 64 KiB: nothing in it was applied. Write it again from "
                                 "the template (about 1 KiB)"]


ZONEINFO = Path("/usr/share/zoneinfo")


@pytest.mark.skipif(not (ZONEINFO / "tzdata.zi").exists(), reason="no zoneinfo database here")
@pytest.mark.parametrize("zone, ok", [("Europe/Paris", True), ("UTC", True), ("GB", True),
                                      ("localtime", False), ("Factory", False),
                                      ("leapseconds", False), ("posixrules", False),
                                      ("Europe/Atlantis", False)])
def test_time_zones_are_checked_against_the_zoneinfo_database(zone, ok):
    settings = parse(f"timezone = {zone}\n")
    validate(settings, known_zones(Box(Path("/"))), {"FR"})
    assert (settings.timezone == zone) is ok
    if not ok:
        assert settings.problems == [f"line 1: timezone = {zone!r} is refused: it is not in the "
                                     "time zone database: write a name like Europe/Paris, "
                                     "America/New_York or UTC"]


@pytest.mark.skipif(not (ZONEINFO / "iso3166.tab").exists(), reason="no zoneinfo database here")
@pytest.mark.parametrize("country, ok", [("fr", True), ("GB", True), ("XX", False),
                                         ("QQ", False), ("UK", False)])
def test_countries_are_checked_against_iso_3166(country, ok):
    settings = parse(f"wifi_country = {country}\n")
    validate(settings, {"UTC"}, known_countries(Box(Path("/"))))
    assert (settings.wifi_country == country.upper()) is ok
    if not ok:
        assert "is not a country's ISO 3166 code" in settings.problems[0]
