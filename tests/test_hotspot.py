"""Issue 37: "a hotspot when no Wi-Fi works". When no network is configured, or the configured
one is not joined within a minute or two, the box opens its own access point; a phone on it
names a network, the box joins it and closes the access point. The decision, the checks of
what a phone may ask, and the service's loop with a radio that records what it is told."""

from __future__ import annotations

import json

import pytest

from companion.appliance import hotspot, hotspot_service, settings_file
from companion.appliance.hotspot import JOIN_WAIT_S, RETRY_AFTER_S, Seen, Step
from companion.appliance.hotspot_state import Mode, State, read_state


def seen(**changed) -> Seen:
    fields = {"radio": True, "configured": True, "joined": False, "trying_s": 0.0,
              "open": False, "request": False}
    return Seen(**{**fields, **changed})


def test_no_network_configured_opens_the_access_point_at_once():
    assert hotspot.next_step(seen(configured=False)) is Step.OPEN


def test_a_configured_network_joined_keeps_the_access_point_closed():
    assert hotspot.next_step(seen(joined=True, trying_s=10 * JOIN_WAIT_S)) is Step.WAIT


def test_a_configured_network_not_joined_in_time_opens_the_access_point():
    assert hotspot.next_step(seen(trying_s=JOIN_WAIT_S - 1)) is Step.WAIT
    assert hotspot.next_step(seen(trying_s=JOIN_WAIT_S)) is Step.OPEN


def test_a_submitted_network_is_joined_and_an_open_access_point_waits_for_one():
    assert hotspot.next_step(seen(open=True, configured=False)) is Step.WAIT
    assert hotspot.next_step(seen(open=True, request=True)) is Step.JOIN


def test_an_access_point_opened_for_a_network_not_found_tries_it_again_while_no_phone_is_on():
    """After a power cut the router may start later than the box: the box's own network is
    tried again, but never under a phone that is on the access point."""
    assert hotspot.next_step(seen(open=True, open_s=RETRY_AFTER_S - 1)) is Step.WAIT
    assert hotspot.next_step(seen(open=True, open_s=RETRY_AFTER_S)) is Step.RETRY
    assert hotspot.next_step(seen(open=True, open_s=RETRY_AFTER_S, phones=True)) is Step.WAIT
    assert hotspot.next_step(seen(open=True, open_s=RETRY_AFTER_S, configured=False)) is Step.WAIT


def test_a_board_without_wifi_opens_nothing():
    assert hotspot.next_step(seen(radio=False, configured=False)) is Step.WAIT


def test_the_name_carries_the_serial_and_the_passphrase_is_fresh_and_readable():
    assert hotspot.hotspot_name("10000000a3f29c1e\n") == "Companion-9C1E"
    assert hotspot.hotspot_name("").startswith("Companion-") and len(hotspot.hotspot_name("")) == 14
    first, second = hotspot.new_passphrase(), hotspot.new_passphrase()
    assert first != second and len(first) == 10 and not set(first) & set("0O1lI5S2Z")
    assert settings_file.check("wifi_password", first)[1] is None  # WPA2 takes it


@pytest.mark.parametrize("ssid, passphrase, reason", [
    ("", "long enough", "name the network"),
    ("x" * 33, "long enough", "at most 32 bytes"),
    ("é" * 17, "long enough", "at most 32 bytes"),  # 34 bytes in UTF-8
    ("Home\nnetwork", "long enough", r"network name has a control character \(U\+000A\)"),
    ("Home\x00", "long enough", "NUL"),
    ("Home\u2028", "long enough", "line separator"),
    ("Home", "short", "8 to 63"),
    ("Home", "x" * 64, "8 to 63"),
    ("Home", "pass\tword!", "8 to 63"),
    ("Home", "pässwörter", "8 to 63"),
    ("Home", "line\rbreak!", r"passphrase has a control character \(U\+000D\)"),
])
def test_hostile_or_impossible_requests_are_refused_with_a_reason(ssid, passphrase, reason):
    with pytest.raises(ValueError, match=reason):
        hotspot.checked(ssid, passphrase)


@pytest.mark.parametrize("data, reason", [
    (b"x" * 2000, "over 1024 bytes"),
    (b"\xff\xfe{}", "not readable"),
    (b"[1, 2]", "name a network"),
    (b'{"ssid": "Home"}', "name a network"),
    (b'{"ssid": 7, "passphrase": "long enough"}', "name a network"),
    (b"not json", "not readable"),
])
def test_a_request_file_that_is_not_one_is_refused(data, reason):
    with pytest.raises(ValueError, match=reason):
        hotspot.read_request(data)


def test_a_request_keeps_every_character_of_a_valid_network():
    asked = hotspot.read_request(json.dumps({"ssid": " Café #2 ", "passphrase": ' "quoted" pass '}).encode())
    assert asked == hotspot.WifiRequest(" Café #2 ", ' "quoted" pass ')
    # Written into companion.txt, read back as first boot reads it: the same values.
    text = settings_file.set_values("hostname = box\n", {
        "wifi_ssid": [hotspot.quoted(asked.ssid)], "wifi_password": [hotspot.quoted(asked.passphrase)]})
    parsed = settings_file.parse(text)
    assert (parsed.wifi_ssid, parsed.wifi_password) == (asked.ssid, asked.passphrase)
    assert parsed.problems == []


def test_the_state_says_the_name_passphrase_and_address_and_reads_back(tmp_path):
    state = State(Mode.OPEN, "Companion-9C1E", "abcdefghjk", networks=["Home", "Café"])
    (tmp_path / "hotspot").mkdir()
    (tmp_path / "hotspot" / "hotspot.json").write_text(state.as_text())
    assert read_state(tmp_path) == state
    assert state.lines()[:4] == ["Wi-Fi: box's own", " Companion-9C1E", " key abcdefghjk",
                                 " http://10.42.0.1/wifi"]
    assert state.told() == (True, ("Wi-Fi Companion-9C1E", "key abcdefghjk"))
    assert State(Mode.OFF).told() is None  # nothing said at each start on the box's network
    (tmp_path / "hotspot" / "hotspot.json").write_text('{"mode": "sideways"}')
    assert read_state(tmp_path) is None


def test_only_the_box_own_network_is_on_the_hotspot():
    assert hotspot.on_hotspot("10.42.0.23") and hotspot.on_hotspot("::ffff:10.42.0.23")
    assert not hotspot.on_hotspot("::ffff:192.168.1.23") and not hotspot.on_hotspot("fe80::1")
    assert not hotspot.on_hotspot("10.42.1.23") and not hotspot.on_hotspot("127.0.0.1")
    assert not hotspot.on_hotspot("testclient")


# ----- the service's loop, with a radio that records what it is told ----------------------
class FakeRadio:
    def __init__(self) -> None:
        self.present, self.joined, self.phones, self.said = True, False, False, []

    def scan(self) -> list[str]:
        return ["Home"]

    def open(self, name: str, passphrase: str) -> str:
        self.said.append("open")
        return ""

    def close(self) -> None:
        self.said.append("close")

    def join(self) -> None:
        self.said.append("join")


@pytest.fixture
def service(tmp_path, monkeypatch):
    state = tmp_path / "state"
    (state / "handed").mkdir(parents=True)
    wpa = tmp_path / "wpa.conf"
    monkeypatch.setattr(hotspot_service, "WPA_CONF", wpa)
    taken = []

    def take(request, settings):
        taken.append(request)
        wpa.write_text(f"network={{\n    ssid={request.ssid.encode().hex()}\n    psk={'0' * 64}\n}}\n")
        return ""

    monkeypatch.setattr(hotspot_service, "take", take)
    made = hotspot_service.Service(state, tmp_path / "companion.txt", FakeRadio())
    made.taken = taken
    return made


def test_no_network_the_access_point_opens_then_a_submitted_one_is_joined(service):
    radio = service.radio
    service.once()
    opened = read_state(service.state_file.parent.parent)
    assert radio.said == ["open"] and opened.mode is Mode.OPEN and opened.networks == ["Home"]
    assert opened.name.startswith("Companion-") and len(opened.passphrase) == 10
    service.once()
    assert radio.said == ["open"], "the access point stays open until a network is named"
    service.request_file.write_text(json.dumps({"ssid": "Home", "passphrase": "long enough"}))
    service.once()
    assert radio.said == ["open", "close", "join"] and service.taken[0].ssid == "Home"
    assert not service.request_file.exists()
    assert service.state.mode is Mode.JOINING
    radio.joined = True
    service.once()
    assert read_state(service.state_file.parent.parent) == State(Mode.JOINED, network="Home")


def test_a_refused_request_keeps_the_access_point_and_says_why(service):
    service.once()
    service.request_file.write_text(json.dumps({"ssid": "Home", "passphrase": "short"}))
    service.once()
    assert service.radio.said == ["open"] and service.taken == []
    assert "8 to 63" in service.state.problem and service.state.mode is Mode.OPEN


def test_a_submitted_network_not_joined_in_time_opens_the_access_point_again(service, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(hotspot_service.time, "monotonic", lambda: clock[0])
    service.once()
    service.request_file.write_text(json.dumps({"ssid": "Home", "passphrase": "wrong pass"}))
    service.once()
    clock[0] += JOIN_WAIT_S + 1
    service.once()
    assert service.radio.said == ["open", "close", "join", "open"]
    assert service.state.mode is Mode.OPEN and "Home was not joined" in service.state.problem


def test_the_box_own_network_found_late_is_joined_on_a_retry(service, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(hotspot_service.time, "monotonic", lambda: clock[0])
    hotspot_service.WPA_CONF.write_text(f"network={{\n    ssid=486f6d65\n    psk={'0' * 64}\n}}\n")
    service.trying_since = clock[0]
    clock[0] += JOIN_WAIT_S
    service.once()  # the router is not up yet: the access point opens
    first = service.state.passphrase
    assert service.radio.said == ["open"] and service.state.mode is Mode.OPEN
    service.radio.phones = True
    clock[0] += RETRY_AFTER_S
    service.once()
    assert service.radio.said == ["open"], "a phone on the access point keeps it open"
    service.radio.phones = False
    service.once()
    assert service.radio.said == ["open", "close", "join"]
    assert service.state == State(Mode.JOINING, network="Home")
    clock[0] += JOIN_WAIT_S
    service.once()  # still not there: the access point again, with the passphrase shown before
    assert service.radio.said[-1] == "open" and service.state.passphrase == first
    assert "Home not found: tried again every 5 min" in service.state.problem
    clock[0] += RETRY_AFTER_S
    service.once()
    service.radio.joined = True
    service.once()
    assert service.state == State(Mode.JOINED, network="Home")


def test_a_configured_network_joined_opens_nothing(service):
    hotspot_service.WPA_CONF.write_text(f"network={{\n    ssid=486f6d65\n    psk={'0' * 64}\n}}\n")
    service.radio.joined = True
    service.once()
    assert service.radio.said == [] and service.state.mode is Mode.OFF


def test_the_wifi_page_asks_a_phone_off_the_box_own_network_to_pair(tmp_path):
    """Without pairing, only a phone on the box's own network (which read its passphrase on
    the OLED) may name a network: one on any other network gets the pairing page and hands
    nothing over."""
    from companion.journal.journal import Journal
    from tests.web_process import WebProcess

    Journal.open(tmp_path)[0].close()  # the journal that lists paired phones
    (tmp_path / "hotspot").mkdir()
    (tmp_path / "hotspot" / "hotspot.json").write_text(
        State(Mode.OPEN, "Companion-9C1E", "abcdefghjk").as_text())
    (tmp_path / "handed").mkdir()
    web = WebProcess(tmp_path)
    try:
        status, _, body = web.get("/wifi")
        assert status == 401 and b"Pair this phone" in body
        status, _, _ = web.post("/wifi", {"ssid": "Home", "passphrase": "long enough"})
        assert status == 401 and not (tmp_path / "handed" / "wifi-request.json").exists()
        status, _, body = web.get("/wifi", cookie=web.session())
        assert status == 200 and b'id="wifi"' in body
    finally:
        web.close()
