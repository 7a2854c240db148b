#!/usr/bin/env bash
# The base root filesystem of the image: Debian bookworm for arm64 with the packages of
# image/packages.txt, the small initramfs of image/initramfs-modules (its udev replaying only
# the disks: image/initramfs-udev), made once by mmdebstrap
# (under qemu-user-static when the builder is not arm64) and written as a tar file. The
# initramfs settings and module list are in place before the kernel's package is set up, so
# the initramfs is built once (under emulation that takes minutes).
# Called by image/build.sh, which caches the tar under a key of this file and its inputs.
#
#   image/base-rootfs.sh OUTPUT.tar
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTPUT=$1
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
COMPONENTS="main non-free-firmware"

mapfile -t PACKAGES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$HERE/packages.txt")

# Docs, man pages and translations are never read on the box: left out, the image is smaller
# and dpkg has fewer files to write under emulation.
exec mmdebstrap --arch=arm64 --mode=root --variant=minbase \
    --include="$(IFS=,; echo "${PACKAGES[*]}")" \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --setup-hook="install -D -m 0644 '$HERE/initramfs.conf' \"\$1/etc/initramfs-tools/conf.d/companion.conf\"" \
    --setup-hook="mkdir -p \"\$1/usr/share/initramfs-tools/modules.d\" && sed -e 's/#.*//' -e '/^[[:space:]]*\$/d' '$HERE/initramfs-modules' >\"\$1/usr/share/initramfs-tools/modules.d/companion\"" \
    --setup-hook="install -D -m 0755 '$HERE/initramfs-udev' \"\$1/etc/initramfs-tools/scripts/init-top/udev\"" \
    --customize-hook='mkdir -p "$1/usr/share/companion" && chroot "$1" dpkg-query -W -f="\${Package}=\${Version}\n" >"$1/usr/share/companion/packages.lock"' \
    --customize-hook='rm -f "$1/etc/machine-id" "$1/var/lib/dbus/machine-id" && : >"$1/etc/machine-id"' \
    bookworm "$OUTPUT" \
    "deb $MIRROR bookworm $COMPONENTS" \
    "deb $MIRROR bookworm-updates $COMPONENTS" \
    "deb $SECURITY bookworm-security $COMPONENTS"
