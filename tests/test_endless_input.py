"""Input that never ends (issue 27): every reader is bounded by size and line length
(companion/files/textfiles.py), so ``/dev/zero`` or an endless stream is refused in one line that
names it, in little memory, never with a MemoryError traceback. Each command runs in its own
process under a memory cap (1 GiB of address space), which the unbounded readers passed."""

from __future__ import annotations

import contextlib
import resource
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from companion.contract.config import ConfigError
from companion.files import textfiles

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
CAP_BYTES = 1 << 30  # address space, which threads reserve generously: far above what is used


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def companion(*args: str, stdin=None, feed: bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``companion ARGS`` under the memory cap; ``feed`` is written to it until it stops
    reading (an endless stream)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "companion", *args], cwd=ROOT,
                                stdin=subprocess.PIPE if feed else stdin, stdout=out,
                                stderr=err, preexec_fn=_capped)
        if feed:
            def pour() -> None:
                with contextlib.suppress(OSError, ValueError):  # it stopped reading
                    while True:
                        proc.stdin.write(feed * 4096)

            threading.Thread(target=pour, daemon=True).start()
        code = proc.wait(timeout=60)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(proc.args, code, out.read().decode(),
                                           err.read().decode())


def one_line(ran: subprocess.CompletedProcess, *names: str) -> str:
    err = ran.stderr.strip()
    assert ran.returncode == 2, ran.stderr[-2000:]
    assert len(err.splitlines()) == 1 and "Traceback" not in err and "Error" not in err, err
    for name in names:
        assert name in err
    return err


def test_replay_of_dev_zero_is_one_line_naming_it():
    """"`companion replay makan /dev/zero` reached 4.1 GB in 6 s"."""
    err = one_line(companion("replay", "makan", "/dev/zero"), "/dev/zero")
    assert err == "companion replay: /dev/zero:1: a line longer than 64 KiB; not read"


def test_replay_of_an_endless_stream_on_standard_input_stops_at_the_bound():
    """Endless short lines (comments, which are skipped) stop at the line count."""
    err = one_line(companion("replay", "cafe", "-", feed=b"# more\n"))
    assert err == f"companion replay: -: more than {textfiles.MAX_GAME_LINES:,} lines; not read"
    with open("/dev/zero", "rb") as zero:
        one_line(companion("replay", "cafe", "-", stdin=zero), "-:1: a line longer")


def test_history_import_of_dev_zero_is_one_line_naming_it(tmp_path):
    err = one_line(companion("history", "import", "--game", "makan", "/dev/zero", "--state-dir",
                             str(tmp_path)), "/dev/zero")
    assert "line longer than 64 KiB" in err


def test_a_config_or_data_file_path_set_to_dev_zero_is_a_config_error(tmp_path):
    """The config file itself, or a data file it names, at /dev/zero: doctor says which."""
    config = tmp_path / "config.toml"
    config.write_text('[games.makan]\ntrays = "/dev/zero"\n')
    for args, check in ((("doctor", "--config", "/dev/zero"), "config"),
                        (("doctor", "--config", str(config)), "makan")):
        ran = companion(*args)
        said = ran.stdout + ran.stderr
        assert "Traceback" not in said and "MemoryError" not in said, said[-2000:]
        assert any(line.startswith(f"FAIL  {check}") and "/dev/zero:1: (file): a line longer"
                   in line for line in said.splitlines()), said


def test_the_toml_reader_names_the_file_and_the_bound(tmp_path):
    from companion.contract.config import read_toml

    big = tmp_path / "drinks.toml"
    big.write_bytes(b"# x\n" * (textfiles.MAX_DATA_BYTES // 4 + 1))
    with pytest.raises(ConfigError, match=r"drinks\.toml: \(file\): larger than 1 MiB"):
        read_toml(big)


def test_lines_hold_one_line_at_a_time_and_keep_the_last_without_a_line_feed():
    import io

    assert list(textfiles.lines(io.BytesIO(b"a\n\nb"), "f")) == [b"a", b"", b"b"]
    with pytest.raises(textfiles.TooLarge, match="f:2: a line longer than 64 KiB"):
        list(textfiles.lines(io.BytesIO(b"a\n" + b"x" * (65 << 10)), "f"))
