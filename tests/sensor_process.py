"""``companion sensor-sim`` in a subprocess, on a real pseudo-terminal, for the sensor tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


class SimProcess:
    """``companion sensor-sim --script -`` in a subprocess: commands in, "ok ..." acks out."""

    def __init__(self, link: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "sensor-sim", "--link", str(link),
             "--heartbeat", "0.05", "--script", "-", *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
        )
        self.banner = self.process.stdout.readline().strip()

    def do(self, command: str) -> None:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline().strip()
        assert reply == f"ok {command}", reply

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(60)  # generous: a loaded machine can stall the exit
