"""The plays leave the box as a BG Stats play file and a spreadsheet, and come back: the
example games (and a renamed player) checked against a schema written from a file the app
itself exported and from two open-source readers of its files, never from this export."""

from __future__ import annotations

import copy
import csv
import io
import json
import sqlite3
import time
from pathlib import Path
from urllib.parse import unquote

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.files.jsonread import BOM
from companion.records.bgstats import add_play_link
from companion.records.export import ADD_PLAY_URL, bgg_ids, plays
from companion.records.history import open_book

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "history"
EXAMPLES = (("makan", "makan_4p.jsonl"), ("cafe", "cafe_game.jsonl"), ("miams", "miams_game.jsonl"))
SCHEMA = json.loads((FIXTURES / "bgsplay.schema.json").read_text(encoding="utf-8"))
SAMPLE = FIXTURES / "sample.bgsplay"
APP_EXPORT = FIXTURES / "app_export.json"  # written by the app: see tests/fixtures/history/README.md
# The fields each open reader of the app's files takes from every row (the sources are named in
# the schema): hermod-bot maps these into its play (the game's card, its images, designers,
# player counts and ages, it leaves empty when absent); my-bg-stats reads these.
READERS = {
    "hermod-bot PlayFile.cs": {
        "players": {"id", "uuid", "name", "isAnonymous", "modificationDate", "bggUsername"},
        "locations": {"id", "uuid", "name", "modificationDate"},
        "games": {"id", "uuid", "name", "modificationDate", "cooperative", "highestWins",
                  "noPoints", "usesTeams", "bggName", "bggYear", "bggId", "isBaseGame",
                  "isExpansion"},
        "plays": {"uuid", "modificationDate", "entryDate", "playDate", "usesTeams", "durationMin",
                  "ignored", "manualWinner", "rounds", "locationRefId", "gameRefId", "board",
                  "playerScores", "expansionPlays"},
        "playerScores": {"score", "winner", "newPlayer", "startPlayer", "playerRefId", "role",
                         "rank", "seatOrder"},
    },
    "my-bg-stats transform-game-data.js": {
        "file": {"userInfo", "players", "locations", "games", "plays", "tags"},
        "players": {"id", "name", "isAnonymous"},
        "locations": {"id", "name"},
        "games": {"id", "name", "bggId", "bggYear", "isBaseGame", "isExpansion"},
        "plays": {"gameRefId", "playDate", "durationMin", "playerScores", "locationRefId"},
        "playerScores": {"playerRefId"},
    },
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def history(capsys, where: Path, *argv: str) -> str:
    code, out, err = run(capsys, "history", "--state-dir", str(where), *argv)
    assert code == 0, err
    return out


def export(capsys, where: Path, fmt: str = "bgsplay") -> dict | str:
    text = history(capsys, where, "export", "--format", fmt, "--out", "-")
    return json.loads(text) if fmt == "bgsplay" else text


@pytest.fixture
def journal(tmp_path, capsys) -> Path:
    """The three example games, Dee and Ana in the roster, Dee marked as the box's user."""
    where = tmp_path / "box"
    for n, (key, name) in enumerate(EXAMPLES):
        history(capsys, where, "import", str(ROOT / "docs" / "examples" / name), "--game", key,
                "--date", f"2026-11-2{n} 19:30", "--minutes", "30")
    history(capsys, where, "roster", "add", "Dee")
    history(capsys, where, "roster", "add", "Ana")
    history(capsys, where, "roster", "me", "Dee")
    return where


def validate(data: dict) -> None:
    """The outside-written schema, and what a schema cannot say: every reference resolves."""
    jsonschema.validate(data, SCHEMA, format_checker=jsonschema.FormatChecker())
    for kind in ("players", "games", "locations"):
        ids = [row["id"] for row in data[kind]]
        assert len(ids) == len(set(ids)), f"{kind} ids repeat"
    players = {p["id"] for p in data["players"]}
    assert data["userInfo"]["meRefId"] in players | {0}
    for play in data["plays"]:
        assert play["gameRefId"] in {g["id"] for g in data["games"]}
        assert "locationRefId" not in play or play["locationRefId"] in {
            loc["id"] for loc in data["locations"]}
        assert {s["playerRefId"] for s in play["playerScores"]} <= players


def names(data: dict) -> dict[int, dict]:
    return {p["id"]: p for p in data["players"]}


def seats(data: dict, index: int) -> list[tuple[str, str, bool, int, int, bool]]:
    who = names(data)
    return [(who[s["playerRefId"]]["name"], s["score"], s["winner"], s["rank"], s["seatOrder"],
             s["startPlayer"]) for s in data["plays"][index]["playerScores"]]


def test_the_export_of_the_examples_and_a_rename_passes_the_outside_schema(journal, capsys):
    history(capsys, journal, "roster", "rename", "Dee", "Dora")
    data = export(capsys, journal)
    validate(data)
    assert data["about"] == "You can import this file using Board Game Stats."
    assert names(data)[data["userInfo"]["meRefId"]]["name"] == "Dora"
    assert seats(data, 0) == [("Ana", "35", False, 4, 1, True), ("Ben", "46", False, 2, 2, False),
                              ("Cai", "38", False, 3, 3, False), ("Dora", "55", True, 1, 4, False)]
    makan = data["plays"][0]
    assert (makan["rounds"], makan["board"], makan["durationMin"]) == (5, "", 30)


def _in_zone(monkeypatch, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()


def test_play_dates_are_the_boxs_local_time_as_the_app_writes_them(tmp_path, capsys,
                                                                    monkeypatch):
    """The app keeps the player's own clock: the same play exported in Singapore is 8 hours
    later than in UTC, and its CSV says the same local time."""
    try:
        _in_zone(monkeypatch, "UTC")
        history(capsys, tmp_path, "import", str(ROOT / "docs" / "examples" / "miams_game.jsonl"),
                "--game", "miams", "--date", "2026-11-20 19:30", "--minutes", "30")
        dates = ("playDate", "entryDate", "modificationDate")
        in_utc = [export(capsys, tmp_path)["plays"][0][k] for k in dates]
        _in_zone(monkeypatch, "Asia/Singapore")
        data = export(capsys, tmp_path)
        validate(data)
        assert in_utc == ["2026-11-20 19:30:00", "2026-11-20 20:00:00", "2026-11-20 20:00:00"]
        assert [data["plays"][0][k] for k in dates] == [
            "2026-11-21 03:30:00", "2026-11-21 04:00:00", "2026-11-21 04:00:00"]
        rows = list(csv.DictReader(io.StringIO(export(capsys, tmp_path, "csv").lstrip(BOM))))
        assert (rows[0]["date"], rows[0]["time"]) == ("2026-11-21", "03:30")
        assert {p["modificationDate"] for p in data["players"]} == {"2026-11-21 04:00:00"}
    finally:
        monkeypatch.undo()
        time.tzset()


def test_no_invented_players_and_arthur_is_a_bot(journal, capsys):
    data = export(capsys, journal)
    people = {p["name"]: p for p in data["players"]}
    assert set(people) == {"Ana", "Ben", "Cai", "Dee", "Arthur"}  # no "You", no "Table"
    # The app's own file marks a player's settings so: '{"isNpc":0}' (app_export.json).
    real = [p["metaData"] for p in json.loads(APP_EXPORT.read_text(encoding="utf-8"))["players"]
            if "isNpc" in p.get("metaData", "")]
    assert '{"isNpc":0}' in real and people["Dee"]["metaData"] == '{"isNpc":0}'
    assert people["Arthur"]["metaData"] == '{"isNpc":1}'
    assert not people["Arthur"]["isAnonymous"]
    assert all(json.loads(p["metaData"]) == {"isNpc": 0} for n, p in people.items() if n != "Arthur")
    # The unnamed Miams player is the roster's "me"; Arthur beat them, Lunch is in board.
    # "The AI plays first. Circle the 1 space of its sheet." (rules/miams.txt): Arthur starts.
    assert seats(data, 2) == [("Dee", "59", False, 2, 1, False), ("Arthur", "64", True, 1, 2, True)]
    arthur_seat = data["plays"][2]["playerScores"][1]
    assert arthur_seat["metaData"] == '{"isNpc":1}'  # where my-bg-stats looks for the mark
    assert "metaData" not in data["plays"][2]["playerScores"][0]
    assert (data["plays"][2]["board"], data["plays"][2]["rounds"]) == ("Lunch", 12)


def test_a_miams_player_named_at_setup_is_that_name_not_the_user(journal, capsys, tmp_path):
    """"the Miams player as the roster's 'me' (or the name typed at setup)": a name the setup
    gives wins over the box's user."""
    lines = (ROOT / "docs" / "examples" / "miams_game.jsonl").read_text(encoding="utf-8")
    named = tmp_path / "miams_zoe.jsonl"
    named.write_text(lines.replace('{"type": "setup", "game": "miams",',
                                   '{"type": "setup", "game": "miams", "name": "Zoe",', 1),
                     encoding="utf-8")
    history(capsys, journal, "import", str(named), "--game", "miams")
    data = export(capsys, journal)
    validate(data)
    assert seats(data, 3) == [("Zoe", "59", False, 2, 1, False), ("Arthur", "64", True, 1, 2, True)]
    assert seats(data, 2)[0][0] == "Dee"  # the unnamed one is still the user


def test_the_cafe_is_cooperative_with_its_bgg_id_and_the_shared_result(journal, capsys):
    data = export(capsys, journal)
    cafe = next(g for g in data["games"] if g["bggId"] == 394751)
    assert (cafe["name"], cafe["cooperative"], cafe["noPoints"]) == ("3 Minute Crazy Café", True,
                                                                      True)
    play = data["plays"][1]
    assert play["gameRefId"] == cafe["id"]
    assert (play["board"], play["rounds"]) == ("Double Trouble", 3)
    assert seats(data, 1) == [("Dee", "", False, 0, 1, True)]  # the table lost; no made-up seat
    # The app's own file: a cooperative scoreless game won has its winners marked by hand
    # (manualWinner true), one lost has none (false); a scored game's are its scores'.
    real = json.loads(APP_EXPORT.read_text(encoding="utf-8"))
    kinds = {g["id"]: (g["cooperative"], g["noPoints"]) for g in real["games"]}
    coop = {(any(s["winner"] for s in p["playerScores"]), p["manualWinner"])
            for p in real["plays"] if kinds[p["gameRefId"]] == (True, True)}
    assert coop == {(True, True), (False, False)}
    assert [p["manualWinner"] for p in data["plays"]] == [False, False, False]
    history(capsys, journal, "import", str(SAMPLE))  # a Café the table won
    won = export(capsys, journal)["plays"][3]
    assert (won["gameRefId"], won["manualWinner"]) == (cafe["id"], True)


def test_without_a_me_the_unnamed_seats_are_the_apps_anonymous_player(journal, capsys):
    history(capsys, journal, "roster", "me", "--nobody")
    data = export(capsys, journal)
    validate(data)
    assert data["userInfo"]["meRefId"] == 0
    anonymous = [p for p in data["players"] if p["isAnonymous"]]
    assert [p["name"] for p in anonymous] == ["Anonymous player"]
    assert seats(data, 2)[0][0] == "Anonymous player"


def test_ids_stay_across_a_rename_and_a_merge(journal, capsys):
    before = export(capsys, journal)
    dee = next(p for p in before["players"] if p["name"] == "Dee")
    history(capsys, journal, "roster", "rename", "Dee", "Dora")
    renamed = export(capsys, journal)
    dora = next(p for p in renamed["players"] if p["name"] == "Dora")
    assert (dora["id"], dora["uuid"]) == (dee["id"], dee["uuid"])  # no second Dora
    assert [p["uuid"] for p in renamed["plays"]] == [p["uuid"] for p in before["plays"]]
    # Ana entered twice as "An": merging An into Ana keeps Ana's id on both their seats.
    history(capsys, journal, "roster", "add", "An")
    history(capsys, journal, "roster", "merge", "Ana", "An")
    merged = export(capsys, journal)
    ana = next(p for p in before["players"] if p["name"] == "Ana")
    an = next(p for p in merged["players"] if p["name"] == "An")
    assert an["id"] != ana["id"] and seats(merged, 0)[0][0] == "An"
    assert merged["plays"][0]["playerScores"][0]["playerRefId"] == an["id"]
    assert len(merged["players"]) == len(before["players"])


def test_merging_the_user_moves_the_me_mark(journal, capsys):
    history(capsys, journal, "roster", "add", "Deedee")
    history(capsys, journal, "roster", "merge", "Dee", "Deedee")
    data = export(capsys, journal)
    assert names(data)[data["userInfo"]["meRefId"]]["name"] == "Deedee"
    assert "(me)" in next(line for line in history(capsys, journal, "roster", "list").splitlines()
                          if "Deedee" in line)


def test_the_apps_own_export_passes_the_schema_and_the_box_writes_its_fields_its_way(
        journal, capsys):
    """A file the app wrote passes the schema; every field the export writes is one the app
    writes, with the same JSON type (the seat's bot mark, which one reader looks for, aside)."""
    real = json.loads(APP_EXPORT.read_text(encoding="utf-8"))
    validate(real)
    data = export(capsys, journal)
    validate(data)

    def shape(rows: list[dict]) -> dict[str, set[str]]:
        return {k: {type(row[k]).__name__ for row in rows if k in row}
                for row in rows for k in row}

    for part in ("players", "locations", "games", "plays", "playerScores"):
        ours, theirs = shape(_rows(data, part)), shape(_rows(real, part))
        extra = set(ours) - set(theirs) - ({"metaData"} if part == "playerScores" else set())
        assert not extra, f"{part}: {extra} not in the app's file"
        assert all(ours[k] <= theirs.get(k, {"str"}) for k in ours), part
    assert set(data) - {"about"} <= set(real) and set(data["userInfo"]) == set(real["userInfo"])
    assert all(g["isBaseGame"] == 1 and g["isExpansion"] == 0 for g in data["games"])


def _rows(data: dict, part: str) -> list[dict]:
    if part == "playerScores":
        return [s for p in data["plays"] for s in p["playerScores"]]
    return data[part]


@pytest.mark.parametrize("reader", sorted(READERS))
def test_the_export_has_every_field_each_open_reader_takes(journal, capsys, reader):
    data = export(capsys, journal)
    for part, fields in READERS[reader].items():
        rows = [data] if part == "file" else _rows(data, part)
        assert rows, part
        for row in rows:
            assert fields <= set(row), f"{reader}: {part} lacks {fields - set(row)}"


def test_a_player_keeps_one_uuid_from_the_first_export_on(tmp_path, capsys):
    """Dee played before the roster held her: joining it, then a new name, keeps her uuid; a
    new Dee afterwards is someone else."""
    where = tmp_path / "box"
    history(capsys, where, "import", str(ROOT / "docs" / "examples" / "makan_4p.jsonl"),
            "--game", "makan")

    def uuid_of(name: str) -> str:
        return next(p["uuid"] for p in export(capsys, where)["players"] if p["name"] == name)

    first = uuid_of("Dee")
    history(capsys, where, "roster", "add", "Dee")
    assert uuid_of("Dee") == first
    history(capsys, where, "roster", "rename", "Dee", "Dora")
    assert uuid_of("Dora") == first
    history(capsys, where, "roster", "add", "Dee")
    history(capsys, where, "import", str(ROOT / "docs" / "examples" / "makan_4p.jsonl"),
            "--game", "makan")
    assert uuid_of("Dee") not in {first, uuid_of("Dora")} and uuid_of("Dora") == first
    history(capsys, where, "roster", "add", "Ben")
    history(capsys, where, "roster", "merge", "Ben", "Dora")  # Dora stays Dora
    assert uuid_of("Dora") == first


def test_the_csv_opens_with_the_right_characters(journal, capsys, tmp_path):
    history(capsys, journal, "roster", "rename", "Dee", "Dora")
    history(capsys, journal, "import", str(SAMPLE))  # a Café of three players who won
    out = tmp_path / "games.csv"
    history(capsys, journal, "export", "--format", "csv", "--out", str(out))
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # the byte-order mark Excel reads UTF-8 by
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert len(rows) == 4 + 1 + 2 + 3  # a row per player: Makan, Café, Miams, the sample's Café
    dora = next(r for r in rows if r["player"] == "Dora" and r["game"] == "Makan Mania")
    assert dora["result"] == "Dora 55 – Ben 46 – Cai 38 – Ana 35"
    assert (dora["date"], dora["time"], dora["minutes"], dora["score"], dora["winner"],
            dora["rank"]) == ("2026-11-20", "19:30", "30", "55", "1", "1")
    makan = {r["player"]: r["rank"] for r in rows if r["game"] == "Makan Mania"}
    assert makan == {"Dora": "1", "Ben": "2", "Cai": "3", "Ana": "4"}  # the others by score
    cafes = [r for r in rows if r["bgg_id"] == "394751"]
    assert {r["rank"] for r in cafes} == {""}  # one shared result: no ranks
    assert {r["game"] for r in cafes} == {"3 Minute Crazy Café"}
    shared = [r for r in cafes if r["date"] == "2026-02-11"]
    # Every seat has the table's result; the file's user (Mira) is the box's (Dora).
    assert [(r["player"], r["winner"]) for r in shared] == [("Dora", "1"), ("Tomas", "1"),
                                                           ("", "1")]
    arthur = next(r for r in rows if r["player"] == "Arthur")
    assert (arthur["bot"], arthur["variant"]) == ("1", "Lunch")
    assert not {"You", "Table"} & {r["player"] for r in rows}
    assert list(rows[0])[:3] == ["game_id", "game", "bgg_id"]


def comparable(data: dict) -> tuple[str | None, list[dict]]:
    """A play file with its ids resolved: what must survive a round trip. The ids and uuids of
    people are the roster's of each journal; everything said about them must be the same."""
    who, games = names(data), {g["id"]: g for g in data["games"]}
    out = []
    for play in data["plays"]:
        row = {k: v for k, v in play.items() if k not in ("gameRefId", "playerScores")}
        row["game"] = {k: v for k, v in games[play["gameRefId"]].items() if k != "id"}
        row["seats"] = [{**{k: v for k, v in s.items() if k != "playerRefId"},
                         "who": {k: v for k, v in who[s["playerRefId"]].items()
                                 if k not in ("id", "uuid")}} for s in play["playerScores"]]
        out.append(row)
    return who.get(data["userInfo"]["meRefId"], {}).get("name"), out


def test_the_import_round_trips_its_own_file(journal, capsys, tmp_path):
    history(capsys, journal, "roster", "rename", "Dee", "Dora")
    first = tmp_path / "plays.bgsplay"
    history(capsys, journal, "export", "--format", "bgsplay", "--out", str(first))
    elsewhere = tmp_path / "other"
    said = history(capsys, elsewhere, "import", str(first))
    assert said.splitlines() == ["game 1: Makan Mania, 2026-11-20 19:30:00",
                                 "game 2: 3 Minute Crazy Café, 2026-11-21 19:30:00",
                                 "game 3: Miams, 2026-11-22 19:30:00"]
    again = export(capsys, elsewhere)
    validate(again)
    assert comparable(again) == comparable(json.loads(first.read_text(encoding="utf-8")))
    # The same file twice records nothing twice; the plays join the stats.
    assert history(capsys, elsewhere, "import", str(first)) == "already recorded: 3 plays\n"
    book = open_book(elsewhere)
    from companion.games.catalog import GAMES

    try:
        assert dict(book.players())["Dora"] == 2
        cafe_stats = GAMES["cafe"].records.stats
        assert [line.value for line in cafe_stats.lines(book.read)][:2] == ["1 game", "0 of 1 (0%)"]
    finally:
        book.close()


def test_an_apps_file_imports_its_known_games_and_skips_the_others_in_a_line(tmp_path, capsys):
    said = history(capsys, tmp_path, "import", str(SAMPLE))
    assert said.splitlines() == ["skipped 1 play of Azul: a game this box does not know",
                                 "game 1: 3 Minute Crazy Café, 2026-02-11 20:05:10"]
    data = export(capsys, tmp_path)
    validate(data)
    assert seats(data, 0) == [("Mira", "", True, 0, 1, True), ("Tomas", "", True, 0, 2, False),
                              ("Anonymous player", "", True, 0, 3, False)]
    assert names(data)[data["userInfo"]["meRefId"]]["name"] == "Mira"  # the file's user
    assert data["plays"][0]["uuid"] == "5E1F2A3B-4C5D-4E6F-8A7B-9C0D1E2F3A4B"
    assert "Mira" in history(capsys, tmp_path, "roster", "list")


@pytest.mark.parametrize(("text", "said"), [
    ("not json", "not JSON"),
    ('{"plays": 3}', "no list of plays"),
    ('{"plays": [], "players": {}}', "'players' is not a list"),
])
def test_a_file_that_is_not_a_play_file_is_said_in_one_line(tmp_path, capsys, text, said):
    bad = tmp_path / "bad.bgsplay"
    bad.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "history", "--state-dir", str(tmp_path / "box"), "import",
                         str(bad))
    assert code == 2 and out == "" and said in err and len(err.splitlines()) == 1
    assert not (tmp_path / "box").exists()


def test_a_play_the_file_cannot_date_is_skipped_in_a_line(tmp_path, capsys):
    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    broken = copy.deepcopy(sample)
    broken["plays"][0]["playDate"] = "yesterday"
    path = tmp_path / "broken.bgsplay"
    path.write_text(json.dumps(broken), encoding="utf-8")
    said = history(capsys, tmp_path / "box", "import", str(path))
    assert "skipped play 1 (3 Minute Crazy Café): its date or players cannot be read" in said
    assert "game 1" not in said


def test_the_config_links_a_game_to_its_bgg_id(journal, capsys, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[games.makan]\nbgg_id = 123456\n", encoding="utf-8")
    text = history(capsys, journal, "--config", str(config), "export", "--format", "bgsplay",
                   "--out", "-")
    games = {g["name"]: g["bggId"] for g in json.loads(text)["games"]}
    assert games == {"Makan Mania": 123456, "3 Minute Crazy Café": 394751, "Miams": 0}
    config.write_text("[games.makan]\nbgg_id = -4\n", encoding="utf-8")
    code, _, err = run(capsys, "history", "--state-dir", str(journal), "--config", str(config),
                       "export", "--format", "csv", "--out", "-")
    assert code == 2 and "games.makan.bgg_id" in err


def test_the_add_play_link_carries_the_play(journal, capsys):
    book = open_book(journal)
    try:
        found = [p for p in plays(book) if p.finished]
    finally:
        book.close()
    ids = bgg_ids()
    links = [add_play_link(p, ids.get(p.played.game, 0)) for p in found]
    data = [json.loads(unquote(link.removeprefix(ADD_PLAY_URL))) for link in links]
    assert all(link.startswith(ADD_PLAY_URL) for link in links)
    makan, cafe, miams = data
    assert (cafe["game"]["bggId"], cafe["game"]["name"], cafe["board"]) == (
        394751, "3 Minute Crazy Café", "Double Trouble")
    assert "bggId" not in makan["game"]  # an unlinked game says none rather than 0
    assert [(p["name"], p.get("score"), p["winner"]) for p in miams["players"]] == [
        ("Dee", 59, False), ("Arthur", 64, True)]
    assert all({"startPlayer", "winner", "sourcePlayerId"} <= set(p) for d in data
               for p in d["players"])
    assert makan["sourceName"] == "Table Companion" and makan["sourcePlayId"]
    # Followed once the game has ended: the end (19:30 + 30 minutes, local), and where.
    assert [d["playDate"] for d in data] == ["2026-11-20 20:00:00", "2026-11-21 20:00:00",
                                             "2026-11-22 20:00:00"]
    assert {d["location"]["name"] for d in data} == {"Table Companion"}
    assert {d["location"]["sourceLocationId"] for d in data} == {
        export(capsys, journal)["locations"][0]["uuid"]}


def _nested(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.lists(inner, max_size=4),
                     st.dictionaries(st.text(max_size=8), inner, max_size=4))


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    _nested, max_leaves=12)
FIELDS = ("id", "name", "uuid", "bggId", "gameRefId", "playDate", "durationMin", "rounds",
          "board", "playerScores", "playerRefId", "score", "winner", "rank", "seatOrder",
          "startPlayer", "isAnonymous", "metaData", "meRefId")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.slow
def test_any_damage_to_a_play_file_is_refused_or_skipped_never_raised(data):
    """The sample file with values swapped for any JSON, at any depth: the reader gives plays,
    skips, or one PlayFileError, never another exception; what it gives summarises."""
    from companion.games.catalog import GAMES
    from companion.records.importing import PlayFileError, read_play_file, summarise_play

    sample = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for _ in range(data.draw(st.integers(1, 6))):
        node = sample
        while isinstance(node, dict | list) and node and data.draw(st.booleans()):
            key = (data.draw(st.sampled_from(sorted(node))) if isinstance(node, dict)
                   else data.draw(st.integers(0, len(node) - 1)))
            if not isinstance(node[key], dict | list):
                break
            node = node[key]
        if isinstance(node, dict):
            node[data.draw(st.sampled_from(FIELDS))] = data.draw(JSON)
        elif isinstance(node, list) and node:
            node[data.draw(st.integers(0, len(node) - 1))] = data.draw(JSON)
    try:
        found = read_play_file(json.dumps(sample), GAMES)
    except PlayFileError as exc:
        assert "\n" not in str(exc)
        return
    for play in found.plays:
        summarise_play(play)
    assert all("\n" not in line for line in found.unreadable)
    assert all("\n" not in name and len(name) <= 40 for name in found.skipped)


def test_actions_without_their_game_are_asked_for_it(tmp_path, capsys):
    code, out, err = run(capsys, "history", "--state-dir", str(tmp_path), "import",
                         str(ROOT / "docs" / "examples" / "cafe_game.jsonl"))
    assert code == 2 and out == ""
    assert err.strip() == (f"companion history: {ROOT / 'docs' / 'examples' / 'cafe_game.jsonl'}"
                           ": give --game for JSON-lines actions (a BG Stats play file ends in "
                           ".bgsplay)")
    assert not (tmp_path / "journal.db").exists()


def test_a_bgg_id_set_on_the_phone_is_the_one_exported(journal, capsys):
    """The phone's Settings keep a game's bgg_id in the journal over config.toml; the exports
    use it as the box does."""
    from companion.records import settings

    conn = sqlite3.connect(journal / "journal.db")
    try:
        settings.save(conn, "games.miams.bgg_id", 4321)
        conn.commit()
    finally:
        conn.close()
    games = {g["name"]: g["bggId"] for g in export(capsys, journal)["games"]}
    assert games["Miams"] == 4321
    rows = csv.DictReader(io.StringIO(export(capsys, journal, "csv").lstrip(BOM)))
    assert {r["bgg_id"] for r in rows if r["game"] == "Miams"} == {"4321"}
