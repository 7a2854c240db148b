"""Run a command as companion.service runs the box: the same user, groups and hardening (the
unit file's [Service] settings, as a transient unit through systemd-run), output piped back.

    python unit_run.py COMMAND [ARG...]
"""

from __future__ import annotations

import subprocess
import sys

UNIT = "/etc/systemd/system/companion.service"
# How the unit starts and restarts the box is not the box's sandbox: left out of the copy.
NOT_SANDBOX = {"Type", "NotifyAccess", "ExecStart", "WatchdogSec", "Restart", "RestartSec",
               "TimeoutStartSec", "TimeoutStopSec", "RestartPreventExitStatus",
               "StandardOutput", "StandardError", "SyslogIdentifier"}


def sandbox(path: str = UNIT) -> list[str]:
    properties, section = [], ""
    with open(path) as unit:
        for raw in unit:
            line = raw.strip()
            if line.startswith("["):
                section = line
            elif section == "[Service]" and "=" in line and not line.startswith("#"):
                key = line.split("=", 1)[0]
                if key not in NOT_SANDBOX:
                    properties += ["-p", line]
    return properties


def main() -> int:
    cmd = ["systemd-run", "--quiet", "--wait", "--pipe", "--collect", *sandbox(), *sys.argv[1:]]
    return subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(main())
