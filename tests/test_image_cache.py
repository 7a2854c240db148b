"""image/cache.sh, the image build's cache: two builds filling the same entries at once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CACHE_SH = Path(__file__).resolve().parent.parent / "image" / "cache.sh"

# A build's cache step, as build.sh runs it: a folder of wheels made slowly (so the other
# build comes while it is being made), and a file entry.
BUILD = """
set -euo pipefail
source "$1"
cache=$2 who=$3
wheels() { mkdir "$1" && sleep 0.5 && echo "$who" > "$1/made-by" && touch "$1/a.whl"; }
tarball() { sleep 0.2 && echo "$who" > "$1"; }
cache_fill "$cache/wheels-key" wheels
cache_fill "$cache/base-key.tar" tarball
echo "$who: done"
"""


def build(cache: Path, who: str) -> subprocess.Popen:
    return subprocess.Popen(["bash", "-c", BUILD, "build", str(CACHE_SH), str(cache), who],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_two_builds_at_once_leave_each_entry_whole_and_made_once(tmp_path):
    """The fault it prevents: the second build's wheels folder moved inside the first's."""
    builds = [build(tmp_path, who) for who in ("first", "second")]
    said = [process.communicate(timeout=60)[0] for process in builds]
    assert [process.returncode for process in builds] == [0, 0], said
    wheels = tmp_path / "wheels-key"
    assert sorted(path.name for path in wheels.iterdir()) == ["a.whl", "made-by"]
    maker = (wheels / "made-by").read_text().strip()
    assert maker in ("first", "second")
    assert (tmp_path / "base-key.tar").read_text().strip() in ("first", "second")
    # nothing half-made is left beside the entries
    assert sorted(path.name for path in tmp_path.iterdir()) == [".lock", "base-key.tar", "wheels-key"]


def test_a_failed_step_leaves_no_entry_and_says_so(tmp_path):
    script = f"""source {CACHE_SH}
broken() {{ mkdir "$1" && touch "$1/half.whl" && return 3; }}
cache_fill {tmp_path}/wheels-key broken; echo "status $?"
"""
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "status 3"
    assert not (tmp_path / "wheels-key").exists()
    assert [path.name for path in tmp_path.iterdir()] == [".lock"]


def test_an_entry_already_there_is_used_as_it_is(tmp_path):
    (tmp_path / "wheels-key").mkdir()
    (tmp_path / "wheels-key" / "old.whl").touch()
    script = f"""source {CACHE_SH}
again() {{ mkdir "$1" && touch "$1/new.whl"; }}
cache_fill {tmp_path}/wheels-key again
"""
    subprocess.run(["bash", "-c", script], check=True, timeout=60)
    assert [path.name for path in (tmp_path / "wheels-key").iterdir()] == ["old.whl"]


def test_the_maker_is_given_a_path_with_the_entrys_name(tmp_path):
    """mmdebstrap reads the format from the name: given no .tar ending it wrote a folder
    where the base root filesystem's tar belongs, and the image build failed on it."""
    script = f"""source {CACHE_SH}
named() {{ basename "$1" > "$1"; }}
cache_fill {tmp_path}/base-key.tar named
"""
    subprocess.run(["bash", "-c", script], check=True, timeout=60)
    assert (tmp_path / "base-key.tar").read_text().strip() == "base-key.tar"
