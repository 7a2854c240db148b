#!/usr/bin/env bash
# Add the benchmark's agent and guest scripts to a staged root filesystem (the test image).
#   image/test-agent/install.sh ROOT SRC
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$1 SRC=$2
LIB=$ROOT/usr/local/lib/companion-test
install -D -m 0644 -t "$LIB" "$HERE"/*.py "$SRC/bench/reliability.py" "$SRC/bench/reliability_faults.py"
install -D -m 0644 -t "$ROOT/etc/systemd/system" "$HERE/companion-test-agent.service" \
    "$HERE/companion-boot-clock.service"
install -D -m 0644 "$HERE/emulator.conf" "$ROOT/etc/systemd/system/companion.service.d/emulator.conf"
install -D -m 0644 "$HERE/splash-emulator.conf" \
    "$ROOT/etc/systemd/system/companion-splash.service.d/emulator.conf"
install -D -m 0644 "$HERE/firstboot-emulator.conf" \
    "$ROOT/etc/systemd/system/companion-firstboot.service.d/emulator.conf"
systemctl --root="$ROOT" enable --quiet companion-test-agent.service companion-boot-clock.service
