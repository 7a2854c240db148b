"""What companion.txt asked and the box could not do, told where the owner looks: on the
OLED at start and by `companion doctor` (the phone page: tests/test_web_browser.py)."""

from __future__ import annotations

import json

from companion.doctor.checks import check_first_boot
from companion.simulator.simbox import SimBox

PROBLEMS = ["line 1: hostname = 'localhost' is refused: a hostname is 1 to 63 letters, digits "
            "and inner hyphens, not localhost, e.g. companion",
            "line 3: timezone = 'localtime' is refused: it is not in the time zone database"]


def write_report(state, problems, notices=()):
    (state / "firstboot.json").write_text(json.dumps(
        {"sha256": "0" * 64, "problems": problems, "notices": list(notices)}))


def test_the_box_opens_on_every_problem_and_ok_closes_them(tmp_path):
    write_report(tmp_path, PROBLEMS)
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "SetupProblemsScreen"
        rows = " ".join(line.strip("• ") for line in box.screen.rows)
        assert "Fix on the SD card (2):" in rows
        assert "hostname = 'localhost' is refused" in rows and "'localtime' is refused" in rows
        box.press("DOWN")
        assert box.screen.offset == 1
        box.press("OK")
        assert box.screen.name() == "HomeScreen"
    finally:
        box.close()


def test_a_box_without_problems_opens_on_its_menu(tmp_path):
    write_report(tmp_path, [], ["companion.txt is not UTF-8"])
    box = SimBox(tmp_path)
    try:
        assert box.screen.name() == "HomeScreen"
    finally:
        box.close()


def test_doctor_names_each_problem_with_its_fix_and_each_notice(tmp_path):
    write_report(tmp_path, PROBLEMS, ["companion.txt is not UTF-8"])
    found = check_first_boot(tmp_path)
    assert [(f.level, f.detail) for f in found] == [
        ("warn", f"companion.txt: {PROBLEMS[0]}"), ("warn", f"companion.txt: {PROBLEMS[1]}"),
        ("ok", "companion.txt: companion.txt is not UTF-8")]
    assert found[0].fix == "edit companion.txt on the SD card's boot partition, then restart the box"
    write_report(tmp_path, [])
    assert [(f.level, f.detail) for f in check_first_boot(tmp_path)] == [
        ("ok", "companion.txt applied without a problem")]
    (tmp_path / "firstboot.json").write_text("{not json")
    assert check_first_boot(tmp_path)[0].detail.startswith("no report of companion.txt in ")
