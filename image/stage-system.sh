#!/usr/bin/env bash
# The appliance's system settings in the image's root filesystem: image/rootfs/ copied over
# (fstab with the read-only root and the data partition, the network, device permissions,
# logs in RAM), and the services a box runs enabled.
#
#   image/stage-system.sh ROOT
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$1

cp -r --no-preserve=ownership "$HERE/rootfs/." "$ROOT/"
mkdir -p "$ROOT/boot/firmware" "$ROOT/var/lib/companion" "$ROOT/data"
# Wi-Fi is off until companion.txt gives a network (its applier enables wpa_supplicant@wlan0).
systemctl --root="$ROOT" enable --quiet systemd-networkd.service systemd-timesyncd.service \
    avahi-daemon.service
# A read-only root: no unit may wait to write there at boot.
systemctl --root="$ROOT" mask --quiet apt-daily.timer apt-daily-upgrade.timer \
    man-db.timer e2scrub_all.timer e2scrub_reap.service 2>/dev/null || true
# SSH is off until first boot is given a key (it enables the server then). The host keys
# Debian's package made while the base was built would be the same on every card: each box
# makes its own when SSH is first enabled.
systemctl --root="$ROOT" disable --quiet ssh.service ssh.socket 2>/dev/null || true
rm -f "$ROOT"/etc/ssh/ssh_host_*
# What an appliance has no use for and the boot paid for: foreign binaries' formats
# (binfmt_misc, 0.46 s of the boot on the instruction clock), network settings from the
# kernel's command line, crash records from pstore, a daily copy of dpkg's database (onto the
# read-only root). systemd-networkd-wait-online stays: the phone page waits for the network.
systemctl --root="$ROOT" mask --quiet systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
    proc-sys-fs-binfmt_misc.mount systemd-network-generator.service systemd-pstore.service \
    dpkg-db-backup.timer 2>/dev/null || true
# Kernel modules loaded early for what the box never uses, on the core while udev looks for the
# disks (blame: 0.4 to 0.9 s each on the instruction clock): the graphics core (drm) for a
# desktop's seats (the login manager's; a Pi's own GPU driver still loads it when udev finds
# the GPU), loop and device-mapper for systemd-repart (its partitions are made when the image
# is built), fuse and configfs for their mounts (no FUSE filesystem, no USB gadget).
systemctl --root="$ROOT" mask --quiet modprobe@drm.service systemd-repart.service \
    sys-fs-fuse-connections.mount sys-kernel-config.mount
systemctl --root="$ROOT" set-default --quiet multi-user.target
