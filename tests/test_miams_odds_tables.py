"""The coach's shipped values (odds_tables.bin) are the search's own, and a bad file only
costs time."""

from __future__ import annotations

import logging

import pytest

from companion.games.miams import odds, odds_search, odds_tables
from firmware_bridge.faces import WHITE

F1, F2, F3 = WHITE[:3]


@pytest.fixture
def fresh_solvers():
    odds._solver.cache_clear()
    odds_tables._chunks.cache_clear()
    odds_tables.values.cache_clear()
    yield
    odds._solver.cache_clear()
    odds_tables._chunks.cache_clear()
    odds_tables.values.cache_clear()


def test_the_shipped_file_is_what_the_search_works_out():
    assert odds_tables.PATH.read_bytes() == odds.shipped_tables()


@pytest.mark.parametrize(("with_red", "rerolls", "keeps"), [(False, 1, 462), (True, 2, 462 * 7)])
def test_a_cold_solver_with_no_sheet_starts_from_the_shipped_keeps(fresh_solvers, with_red, rerolls,
                                                                   keeps):
    solver = odds._solver(None, with_red, rerolls)
    assert len(solver.keeps) == keeps
    computed = odds_search.Solver(None, with_red, rerolls)
    assert all(computed.kept(*key) == value for key, value in list(solver.keeps.items())[::41])


def test_a_solver_with_a_sheet_works_its_keeps_out(fresh_solvers):
    assert not odds._solver(odds.Weights((1, 2, 3, 4, 5, 6)), True, 2).keeps


@pytest.mark.parametrize("damage", [b"", b"not json\n", b'{"format": 3}\n', None])
def test_a_damaged_file_is_said_once_and_the_odds_are_worked_out(fresh_solvers, tmp_path, monkeypatch,
                                                                 caplog, damage):
    expected = odds.table([F1, F1, F2, F3, "cross"], "marshmallow", 2)
    odds._solver.cache_clear()
    bad = tmp_path / "odds_tables.bin"
    if damage is not None:
        bad.write_bytes(damage)
    monkeypatch.setattr(odds_tables, "PATH", bad)
    odds_tables._chunks.cache_clear()
    odds_tables.values.cache_clear()
    with caplog.at_level(logging.WARNING):
        assert odds.table([F1, F1, F2, F3, "cross"], "marshmallow", 2) == expected
    assert len([r for r in caplog.records if "odds_tables.bin" in r.getMessage()]) == 1
