"""Config: every key optional; each mistake gives one message naming file, key and fix."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from companion.cli import main
from companion.games import box_config as config


def load_text(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config.load(path)


def test_missing_default_file_means_defaults(tmp_path):
    cfg = config.load(tmp_path / "absent.toml")
    assert cfg.button_pins() == {"UP": 5, "DOWN": 6, "OK": 13, "BACK": 19, "ACTION": 26}
    assert cfg.display.driver == "ssd1306" and cfg.display.i2c_address == 0x3C


def test_values_are_read(tmp_path):
    cfg = load_text(tmp_path, "[display]\ndriver = 'sh1106'\nrotate = 2\n[buttons]\nup = 17\n")
    assert (cfg.display.driver, cfg.display.rotate, cfg.buttons.up) == ("sh1106", 2, 17)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[buttons\nup = 5", "(syntax)", "TOML syntax"),
        ("[buttons]\nupp = 5", "buttons.upp", "remove it"),
        ("[buttons]\nup = 'five'", "buttons.up", "expected int"),
        ("[buttons]\nup = true", "buttons.up", "expected int"),
        ("[buttons]\nup = 6", "buttons.down", "used by buttons.up"),
        ("[buzzer]\npin = 2", "buzzer.pin", "own pin"),
        ("[display]\ndriver = 'ssd9999'", "display.driver", "valid"),
        ("[display]\ndim_after_min = 20", "display.blank_after_min", "dimmed"),
        ("[screen]\nx = 1", "screen", "remove it"),
        ("[games.chess]\nx = 1", "games.chess", "use one of"),
    ],
)
def test_each_mistake_names_file_key_and_fix(tmp_path, text, key, words):
    with pytest.raises(config.ConfigError) as caught:
        load_text(tmp_path, text)
    error = caught.value
    assert error.key == key
    assert str(tmp_path / "config.toml") in str(error)
    assert words in str(error)
    assert error.fix


def test_run_with_a_bad_config_exits_with_one_line(tmp_path, capsys):
    path = tmp_path / "config.toml"
    path.write_text("[buttons]\nok = 99\n")
    with pytest.raises(SystemExit) as caught:
        main(["run", "--sim", "--config", str(path), "--state-dir", str(tmp_path)])
    assert caught.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "buttons.ok" in err[0] and "Fix:" in err[0]


def test_a_file_that_is_not_utf8_is_said_so(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes("[display]\ndriver = 'sh1106' # café\n".encode("latin-1"))
    with pytest.raises(config.ConfigError, match="not UTF-8 text") as caught:
        config.load(path)
    assert caught.value.key == "(file)" and "too long" not in str(caught.value)


def test_a_named_config_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(config.ConfigError, match="no such file"):
        config.load(tmp_path / "nope.toml", required=True)


def test_example_lists_every_key():
    text = config.example_toml()
    for section, fields in config.SCHEMA.items():
        assert f"[{section}]" in text
        for key in fields:
            assert f"# {key} = " in text


def test_the_shipped_example_file_lists_exactly_what_example_toml_prints():
    """config.example.toml is generated; this keeps it true when a key is added."""
    from pathlib import Path

    root = Path(__file__).parent.parent
    shipped = (root / "config.example.toml").read_text()
    assert shipped.endswith(config.example_toml())
    # the command the file and the README give to regenerate it prints the same list
    said = re.findall(r'python -c "(.+?)"', shipped + (root / "README.md").read_text())
    assert len(said) == 2
    for command in said:
        printed = subprocess.run([sys.executable, "-c", command], capture_output=True,
                                 text=True, check=True, cwd=root).stdout
        assert shipped.endswith(own_sections(printed).removesuffix("\n"))


def own_sections(toml: str) -> str:
    """An example file without the sections of games installed from other packages (Pig's
    example, say): the shipped file lists the box's own."""
    from tests.conftest import OWN_GAMES

    blocks = re.split(r"(?m)^(?=\[)", toml)
    kept = [b for b in blocks if not (m := re.match(r"\[games\.(\w+)\]", b)) or m[1] in OWN_GAMES]
    return "".join(kept)


def test_on_the_device_a_bad_config_is_also_shown_on_the_panel(tmp_path, monkeypatch, capsys):
    """A box that exits with a blank screen looks dead: the panel says what to do."""
    from luma.core.device import dummy

    import hardware.device

    panel = dummy(width=128, height=64, mode="1")
    monkeypatch.setattr(hardware.device, "open_oled", lambda display: panel)
    path = tmp_path / "config.toml"
    path.write_text("[buttons]\nok = 'thirteen'\n")
    with pytest.raises(SystemExit):
        main(["run", "--config", str(path), "--state-dir", str(tmp_path)])
    assert panel.image is not None and panel.image.getbbox() is not None
    assert "buttons.ok" in capsys.readouterr().err
