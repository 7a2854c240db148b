"""Every bench/*.py answers --help with exit status 0: a benchmark with its usage (argparse
formats each help string with %, so a stray % there ends in a traceback); a section that
another benchmark imports, with nothing (it still imports cleanly)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = sorted(path.name for path in BENCH.glob("*.py"))


def test_the_benchmarks_are_found():
    assert {"pi_clock.py", "appliance.py", "reliability.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_answers_help(script):
    done = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1500:]
    assert "Traceback" not in done.stderr
    if 'if __name__ == "__main__":' in (BENCH / script).read_text():
        assert "usage:" in done.stdout
