"""Settings from the phone page: one source of truth (the journal's settings over config.toml),
checked by the config loader's own checks and messages, used by the box at once, listed alike
by doctor and About, and never reaching a game in progress."""

from __future__ import annotations

import pytest

from companion.contract.config import ConfigError
from companion.doctor.checks import check_settings
from companion.games import box_config
from companion.games.catalog import config_sections
from companion.records import roster, settings
from companion.screens.system import AboutScreen
from tests.test_box_told import told

FIELDS = settings.settable(config_sections())


def loader_message(section: str, name: str, value) -> str:
    """What `companion doctor` (the config loader) says of this value in config.toml."""
    where = section.split(".")
    raw: dict = {}
    node = raw
    for part in where[:-1]:
        node = node.setdefault(part, {})
    node[where[-1]] = {name: value}
    with pytest.raises(ConfigError) as caught:
        box_config.parse(raw, settings.WHERE)
    return str(caught.value)


def test_the_forms_offer_the_boxs_settings_and_each_games_house_rules_but_no_file_paths():
    assert {"volume", "contrast", "long_press_s", "games.cafe.round_seconds",
            "games.makan.coin_supply", "games.miams.difficulty"} <= set(FIELDS)
    assert not {"games.makan.trays", "games.miams.sheet", "games.miams.sheets_dir"} & set(FIELDS)


@pytest.mark.parametrize(("key", "typed", "value"), [
    ("games.cafe.round_seconds", "5", 5), ("volume", "9", 9), ("volume", "٣", "٣"),
    ("long_press_s", "10", 10), ("games.makan.push", "sometimes", "sometimes"),
    ("games.makan.coin_supply", "9" * 5000, "9" * 5000),
])
def test_a_wrong_value_gets_the_config_loaders_own_message(key, typed, value):
    setting = FIELDS[key]
    with pytest.raises(ConfigError) as caught:
        settings.from_text(setting, typed)
    assert str(caught.value) == loader_message(setting.section, setting.name, value)


def test_right_values_become_the_kind_their_field_wants():
    assert settings.from_text(FIELDS["volume"], " 1 ") == 1
    assert settings.from_text(FIELDS["long_press_s"], "1.5") == 1.5
    assert settings.from_text(FIELDS["games.cafe.standing_double"], "every") == "every"


def save(box, **values) -> None:
    """As the phone page saves them: the rows, then the mark the box watches for."""
    with roster.connect(box.app.table.state_dir) as conn:
        for key, value in values.items():
            settings.save(conn, key.replace("__", "."), value)
    assert settings.announce(box.app.table.state_dir)
    told(box)


def test_the_box_uses_what_the_phone_set_at_once_and_doctor_and_about_agree(box):
    save(box, volume=1, games__cafe__round_seconds=120)
    assert box.app.settings.values["volume"] == 1 and box.app.hardware.buzzer.volume == 1
    assert box.app.table.config.games["cafe"]["round_seconds"] == 120
    found = check_settings(box.app.table.state_dir)
    assert found.level == "ok" and "volume = 1" in found.detail
    assert "games.cafe.round_seconds = 120" in found.detail
    about = [line.strip() for line in AboutScreen(box.app.table).lines()]
    assert about[about.index("volume") + 1] == "= 1"
    assert about[about.index("cafe.round_seconds") + 1] == "= 120"


def test_a_bad_row_is_never_used_and_doctor_says_so(box):
    save(box, volume=7)
    assert box.app.settings.values["volume"] != 7
    found = check_settings(box.app.table.state_dir)
    assert found.level == "warn" and "buzzer.volume: 7 must be between 0 and 3" in found.detail


def test_a_game_in_progress_keeps_its_setups_round_length(box):
    from tests.test_history import example

    actions = example("cafe")
    assert box.app.table.games.start("cafe", actions[0])
    before = box.app.play.session.actions[0]["round_seconds"]
    save(box, games__cafe__round_seconds=60)
    assert box.app.table.dispatch(actions[1])
    assert box.app.play.session.actions[0]["round_seconds"] == before
    state = box.app.play.session.state
    assert state.deadline - actions[1]["at"] == pytest.approx(before)
