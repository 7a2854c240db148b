#!/usr/bin/env bash
# Put the product into the image's root filesystem: systemd/install.sh --root writes the unit,
# the config and the command's link; the venv is made inside the root (its Python runs under
# qemu-user-static on a non-arm64 builder) from the pinned wheels, offline.
#
#   image/stage-product.sh ROOT WHEELS_DIR PROJECT_WHEEL_DIR
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
ROOT=$1 WHEELS=$2 PROJECT=$3
VENV=/opt/companion/venv

"$SRC/systemd/install.sh" --root "$ROOT" --no-i2c >/dev/null
install -m 0644 "$SRC/systemd/companion-web.service" "$ROOT/etc/systemd/system/companion-web.service"

# The user and groups are part of the image (nothing at first boot can fail to make them).
for group in gpio i2c spi dialout; do
    chroot "$ROOT" getent group "$group" >/dev/null || chroot "$ROOT" groupadd --system "$group"
done
chroot "$ROOT" getent passwd companion >/dev/null || chroot "$ROOT" useradd --system --user-group \
    --home-dir /var/lib/companion --no-create-home --shell /usr/sbin/nologin \
    --groups gpio,i2c,spi,dialout companion

mkdir -p "$ROOT/tmp/wheels"
cp "$WHEELS"/*.whl "$PROJECT"/*.whl "$ROOT/tmp/wheels/"
chroot "$ROOT" /usr/bin/python3 -m venv "$VENV"
chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$VENV/bin/pip" install --quiet --no-compile --disable-pip-version-check --no-cache-dir --no-index \
    --find-links /tmp/wheels "table-companion[web]"
chroot "$ROOT" "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib" >/dev/null || true
rm -rf "$ROOT/tmp/wheels"
