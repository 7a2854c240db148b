#!/usr/bin/env bash
# Build the Table Companion SD-card image for the 64-bit Raspberry Pis (Zero 2 W, 3, 4) from
# Debian bookworm's packages and the project's pinned wheels from PyPI. Run as root on Debian
# (any architecture: an amd64 builder runs the arm64 parts under qemu-user-static):
#
#   sudo image/build.sh [--out DIR] [--cache DIR] [--test-agent DIR] [--release-url URL] [--no-release]
#                       [--update-key FILE.pub]...
#
# The result is DIR/companion.img (default: image/out/), written to a card with
# `dd if=companion.img of=/dev/sdX bs=4M conv=fsync` or any image writer, and the release
# artefacts beside it: companion.img.xz and its SHA-256 (companion.img.xz.sha256), and
# companion.rpi-imager-manifest, the image's entry for Raspberry Pi Imager (open it in Imager;
# --release-url URL: where companion.img.xz and companion.svg will be published, default this
# folder). --no-release leaves them out (the emulated box's runs: xz takes minutes).
# No loop mounts: the filesystems are made from directories (mkfs.ext4 -d, mkfs.vfat +
# mcopy) and written into the partitioned image file at their offsets.
#
# The base root filesystem (mmdebstrap, the slow stage) is cached in the cache directory
# (default /var/cache/table-companion) under a key of its inputs: image/packages.txt,
# image/base-rootfs.sh, image/initramfs.conf, image/initramfs-modules and image/initramfs-udev.
# The wheels are cached under a key of the lock file. With both cached a rebuild takes a few
# minutes.
#
# --update-key FILE.pub (repeatable): a public key the box trusts to sign its updates (made by
# `companion update --make-key DIR`; installed in /etc/companion/update-keys/). An image built
# without one refuses every update file until a key is given in companion.txt's update_keys
# (docs/update.md, 'Keys').
#
# --test-agent DIR also writes DIR/companion-test.img: the same image plus the benchmark's
# guest agent (bench/appliance.py boots it under QEMU; see image/test-agent/).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
OUT=$HERE/out
CACHE=${COMPANION_IMAGE_CACHE:-/var/cache/table-companion}
TEST_AGENT_OUT=""
RELEASE=yes
RELEASE_URL=""
LOCK=$SRC/requirements.lock
UPDATE_KEYS=()
PYTHON=${PYTHON:-python3}  # with the project importable (companion.appliance.release): the venv's
# Partition sizes in MiB; the data partition holds the game journal.
BOOT_MIB=256
DATA_MIB=768
ROOT_SPARE_MIB=300
ROOT_LABEL=companion-root
DATA_LABEL=companion-data
BOOT_LABEL=COMPANION
# Fixed identifiers and times: the same inputs give the same filesystems' metadata.
DISK_ID=0x7ab1e022
BOOT_VOLUME_ID=7AB1E001
ROOT_UUID=7ab1e022-0000-4000-8000-000000000002
DATA_UUID=7ab1e022-0000-4000-8000-000000000003
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || echo 1700000000)}

while [[ $# -gt 0 ]]; do
    case $1 in
        --out) OUT=$2; shift ;;
        --cache) CACHE=$2; shift ;;
        --test-agent) TEST_AGENT_OUT=$2; shift ;;
        --release-url) RELEASE_URL=$2; shift ;;
        --no-release) RELEASE=no ;;
        --update-key) UPDATE_KEYS+=("$2"); shift ;;
        -h|--help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

STAGES=8
STAGE=0
BEGAN=$SECONDS
stage() {
    STAGE=$((STAGE + 1))
    printf '[%d/%d] %s (%ds)\n' "$STAGE" "$STAGES" "$*" "$((SECONDS - BEGAN))"
}
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

key_of() {  # FILE...: a short key that changes when any of the files does
    cat "$@" | sha256sum | cut -c1-16
}

# ----- 1. the builder's tools -------------------------------------------------------------
stage "checking the builder's tools"
[[ $EUID -eq 0 ]] || die "run as root (mmdebstrap --mode=root, and the files' owners): sudo $0"
for tool in mmdebstrap mkfs.ext4 mkfs.vfat mcopy sfdisk fdtput "$PYTHON"; do
    command -v "$tool" >/dev/null || die "$tool is missing: apt-get install mmdebstrap qemu-user-static arch-test binfmt-support dosfstools mtools e2fsprogs fdisk device-tree-compiler python3-pip"
done
if [[ $(dpkg --print-architecture) != arm64 ]]; then
    if [[ ! -e /proc/sys/fs/binfmt_misc/status ]]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || update-binfmts --enable qemu-aarch64
    arch-test arm64 >/dev/null || die "this machine cannot run arm64 programs (qemu-user-static and binfmt_misc)"
fi
mkdir -p "$OUT" "$CACHE"
WORK=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=image/cache.sh
source "$HERE/cache.sh"

# ----- 2. the base root filesystem (cached) -----------------------------------------------
BASE_KEY=$(key_of "$HERE/base-rootfs.sh" "$HERE/packages.txt" "$HERE/initramfs.conf" "$HERE/initramfs-modules" \
    "$HERE/initramfs-udev")
BASE=$CACHE/base-$BASE_KEY.tar
if [[ -d $BASE ]]; then
    # a folder under the tar's name, left when the cache gave mmdebstrap a name without
    # .tar (it then writes a folder): no tar to unpack, so it is made again
    cache_lock "$CACHE" && rm -rf "$BASE" && cache_unlock
fi
if [[ -f $BASE ]]; then
    stage "base root filesystem: cached ($BASE)"
else
    stage "base root filesystem: mmdebstrap of Debian bookworm arm64 (first build: about 10-25 min)"
fi
base_rootfs() {  # TAR
    "$HERE/base-rootfs.sh" "$1" >"$WORK/mmdebstrap.log" 2>&1 \
        || { tail -30 "$WORK/mmdebstrap.log" >&2; die "mmdebstrap failed (log above)"; }
}
cache_fill "$BASE" base_rootfs

# ----- 3. the wheels (cached) -------------------------------------------------------------
# Every dependency pinned (with its hash) by requirements.lock, as wheels for the Pi's
# aarch64 and the image's Python 3.11, cached under a key of the lock; the project's own
# wheel is built from this checkout each time.
WHEELS=$CACHE/wheels-$(key_of "$LOCK")
if [[ -d $WHEELS ]]; then
    stage "wheels: cached ($WHEELS)"
else
    stage "wheels: downloading the locked dependencies for aarch64 from PyPI"
fi
# PyPI has lgpio's wheel for the Pi's Python (manylinux_2_34 aarch64, cp311) beside its
# source: with it in the directory the image needs no compiler to install lgpio.
LGPIO=$(cd "$SRC" && "$PYTHON" -m companion.appliance.lockfile version "$LOCK" lgpio)
lgpio_wheel() {  # DIR
    "$PYTHON" -m pip download --quiet --isolated --no-deps --only-binary=:all: --dest "$1" \
        --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_34_aarch64 \
        "lgpio==$LGPIO"
}
locked_wheels() {  # DIR (each step chained: set -e does not reach inside cache_fill's command)
    (cd "$SRC" && "$PYTHON" -m companion.appliance.release wheels "$1" --machine aarch64 >/dev/null) \
        && rm -f "$1"/table_companion-*.whl && lgpio_wheel "$1"
}
cache_fill "$WHEELS" locked_wheels
if ! ls "$WHEELS"/lgpio-*-cp311-*aarch64.whl >/dev/null 2>&1; then
    # an entry made before lgpio's wheel was kept: the wheel goes in by its own rename
    mkdir "$WORK/lgpio" && lgpio_wheel "$WORK/lgpio"
    cache_lock "$CACHE"
    mv -n "$WORK"/lgpio/lgpio-*.whl "$WHEELS/"
    cache_unlock
fi
cp -r "$WHEELS" "$WORK/wheels"
"$PYTHON" -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --wheel-dir "$WORK/wheels" "$SRC" 2>&1 | grep -v "^WARNING: Location" || true
ls "$WORK"/wheels/table_companion-*.whl >/dev/null || die "the project's wheel was not built"

# ----- 4. the product in the root filesystem ----------------------------------------------
# systemd/install.sh --root puts the product in (the same installer as on a running Pi, so
# the two cannot drift apart): the user and groups, the units, the venv built inside the
# root from the wheels. That root (its venv is built under emulation: minutes) is kept too,
# under a key of the base, the lock and the product's sources; only the last one.
ROOT=$WORK/root
mkdir "$ROOT"
PRODUCT_KEY=$(cd "$SRC" && git ls-files -z pyproject.toml requirements.lock companion hardware \
    firmware_bridge systemd docs/service.md | xargs -0 cat | sha256sum | cut -c1-16)
STAGED=$CACHE/staged-$BASE_KEY-$PRODUCT_KEY.tar
if [[ -f $STAGED ]]; then
    stage "root filesystem: the product staged already ($STAGED), and the system's settings"
else
    stage "root filesystem: the base and the product (systemd/install.sh --root), the system's settings"
fi
staged_root() {  # TAR (each step chained, as above)
    tar -C "$ROOT" --numeric-owner -xpf "$BASE" || return
    "$SRC/systemd/install.sh" --root "$ROOT" --wheels "$WORK/wheels" --appliance --no-i2c \
        >"$WORK/install.log" 2>&1 || { tail -30 "$WORK/install.log" >&2; die "install.sh --root failed"; }
    find "$CACHE" -maxdepth 1 -name 'staged-*.tar' -delete && tar -C "$ROOT" --numeric-owner -cpf "$1" .
}
cache_fill "$STAGED" staged_root
if [[ -z $(ls -A "$ROOT") ]]; then
    tar -C "$ROOT" --numeric-owner -xpf "$STAGED"
fi
"$HERE/stage-system.sh" "$ROOT"
for key in "${UPDATE_KEYS[@]}"; do
    read -r tag kind _ <"$key" || true
    [[ $tag == table-companion-update-key && $kind == ed25519 ]] \
        || die "$key is not a public key made by companion update --make-key"
    install -D -m 0644 "$key" "$ROOT/etc/companion/update-keys/$(basename "$key")"
done
[[ ${#UPDATE_KEYS[@]} -gt 0 ]] \
    || echo "build.sh: no --update-key given: the box will refuse every update file" >&2
# The shipped companion.txt applied here, as the box's first boot would (the same program, in
# its staged mode): its report and digests go onto the data partition, so a card whose file
# nobody edited starts no Python for it at its first boot either.
(cd "$SRC" && "$PYTHON" -m companion.appliance.firstboot /boot/firmware/companion.txt \
    --root "$ROOT" --applied /var/lib/companion/firstboot.json) >"$WORK/firstboot.log" 2>&1 \
    || { cat "$WORK/firstboot.log" >&2; die "first boot's settings could not be applied"; }
KERNEL=$(basename "$(ls "$ROOT"/boot/vmlinuz-* | sort -V | tail -1)")
KVER=${KERNEL#vmlinuz-}

# ----- 5. the boot partition's files ------------------------------------------------------
stage "boot partition: the Pi firmware, kernel $KVER, device trees, config.txt"
BOOT=$WORK/boot
mkdir "$BOOT"
cp "$ROOT"/usr/lib/raspi-firmware/* "$BOOT/"
cp "$ROOT/boot/vmlinuz-$KVER" "$BOOT/vmlinuz"
cp "$ROOT/boot/initrd.img-$KVER" "$BOOT/initrd.img"
cp "$ROOT/usr/lib/linux-image-$KVER"/broadcom/bcm2{711,837}-*.dtb "$BOOT/"
# Debian's device trees are the kernel's own (upstream_kernel=1), which the firmware's
# dtparam= does not reach: the OLED's bus (i2c1, GPIO 2 and 3 on the header) gets its
# 400 kHz in the tree itself (the kernel's trees enable it at 100 kHz).
for dtb in "$BOOT"/*.dtb; do
    fdtput -t u "$dtb" /soc/i2c@7e804000 clock-frequency 400000
done
install -m 0644 "$HERE/config.txt" "$BOOT/config.txt"
sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$HERE/cmdline.txt" | tr '\n' ' ' | sed 's/ $/\n/' >"$BOOT/cmdline.txt"
cp "$ROOT/boot/firmware/companion.txt" "$BOOT/"  # from install.sh --appliance
cp "$ROOT/usr/share/companion/packages.lock" "$OUT/packages.lock"

# ----- 6. the filesystems -----------------------------------------------------------------
stage "filesystems: FAT boot, ext4 root (read-only on the box), ext4 data"
fat_image() {  # DIR FILE
    rm -f "$2"
    mkfs.vfat -F 32 -n "$BOOT_LABEL" -i "$BOOT_VOLUME_ID" -C "$2" $((BOOT_MIB * 1024)) >/dev/null
    mcopy -s -p -m -i "$2" "$1"/* ::
}
ext4_image() {  # DIR FILE LABEL UUID MIB
    rm -f "$2" && : >"$2"
    mkfs.ext4 -q -F -d "$1" -L "$3" -U "$4" -E "hash_seed=$4,root_owner=0:0" \
        -T default -m 1 "$2" "${5}M"
}
root_mib() {  # DIR: its size with room for the filesystem's own metadata and spare
    echo $(( $(du -s --block-size=1M "$1" | cut -f1) * 115 / 100 + ROOT_SPARE_MIB ))
}
fat_image "$BOOT" "$WORK/boot.vfat"
# The data partition: the program (/opt/companion, where an update builds its venv beside
# the two kept) and the journal's directory (/var/lib/companion), bound to their places by
# the fstab.
DATA=$WORK/data
mkdir -p "$DATA/state"
mv "$ROOT"/var/lib/companion/firstboot.{json,sha256} "$DATA/state/"
# And the state's folders systemd-tmpfiles made in the root (the updater's spool, handed/, the
# cards): at boot it runs before the data partition's nofail binds are mounted.
cp -a "$ROOT/var/lib/companion/." "$DATA/state/"
mv "$ROOT/opt/companion" "$DATA/opt"
mkdir "$ROOT/opt/companion"
# systemd's own state (the clock's last time, for a Pi without a clock chip; logind's) too.
mv "$ROOT/var/lib/systemd" "$DATA/system"
mkdir "$ROOT/var/lib/systemd"
# BlueZ's too (bluetooth.service's StateDirectory, root's alone): on the read-only root it
# could keep neither the adapter's settings nor what it learnt of the dice.
mkdir -p -m 0700 "$ROOT/var/lib/bluetooth"
mv "$ROOT/var/lib/bluetooth" "$DATA/bluetooth"
mkdir -m 0700 "$ROOT/var/lib/bluetooth"
chown "$(awk -F: '$1 == "companion" { print $3 ":" $4 }' "$ROOT/etc/passwd")" "$DATA/state"
chmod 0750 "$DATA/state"
ext4_image "$DATA" "$WORK/data.ext4" "$DATA_LABEL" "$DATA_UUID" "$DATA_MIB"

# ----- 7. the image -----------------------------------------------------------------------
stage "image: partition table and partitions"
# assemble OUTPUT ROOT_EXT4: an MBR (the Pi's firmware reads MBR) with boot, root and data.
assemble() {
    local output=$1 root_fs=$2 root_mib start=4 boot_start root_start data_start
    root_mib=$(( $(stat -c %s "$root_fs") / 1048576 ))
    boot_start=$start
    root_start=$((boot_start + BOOT_MIB))
    data_start=$((root_start + root_mib))
    rm -f "$output"
    truncate -s $(( (data_start + DATA_MIB) * 1048576 )) "$output"
    sfdisk --quiet "$output" <<EOF
label: dos
label-id: $DISK_ID
unit: sectors
start=$((boot_start * 2048)), size=$((BOOT_MIB * 2048)), type=c, bootable
start=$((root_start * 2048)), size=$((root_mib * 2048)), type=83
start=$((data_start * 2048)), size=$((DATA_MIB * 2048)), type=83
EOF
    dd if="$WORK/boot.vfat" of="$output" bs=1M seek="$boot_start" conv=notrunc,sparse status=none
    dd if="$root_fs" of="$output" bs=1M seek="$root_start" conv=notrunc,sparse status=none
    dd if="$WORK/data.ext4" of="$output" bs=1M seek="$data_start" conv=notrunc,sparse status=none
}
ext4_image "$ROOT" "$WORK/root.ext4" "$ROOT_LABEL" "$ROOT_UUID" "$(root_mib "$ROOT")"
assemble "$OUT/companion.img" "$WORK/root.ext4"
if [[ -n $TEST_AGENT_OUT ]]; then
    mkdir -p "$TEST_AGENT_OUT"
    "$HERE/test-agent/install.sh" "$ROOT" "$SRC"
    ext4_image "$ROOT" "$WORK/root.ext4" "$ROOT_LABEL" "$ROOT_UUID" "$(root_mib "$ROOT")"
    assemble "$TEST_AGENT_OUT/companion-test.img" "$WORK/root.ext4"
    cp "$BOOT/vmlinuz" "$BOOT/initrd.img" "$BOOT"/bcm2837-rpi-3-b.dtb "$BOOT/cmdline.txt" "$TEST_AGENT_OUT/"
    rm -rf "$TEST_AGENT_OUT/wheels" && cp -r "$WORK/wheels" "$TEST_AGENT_OUT/wheels"  # for test releases
fi
(cd "$OUT" && sha256sum companion.img >companion.img.sha256)

# ----- 8. the release: compressed, its checksum, Imager's entry ----------------------------
if [[ $RELEASE == yes ]]; then
    stage "release: companion.img.xz, its SHA-256, Raspberry Pi Imager's entry"
    rm -f "$OUT/companion.img.xz"
    xz --threads=0 --stdout "$OUT/companion.img" >"$OUT/companion.img.xz.part"
    mv "$OUT/companion.img.xz.part" "$OUT/companion.img.xz"
    (cd "$OUT" && sha256sum companion.img.xz >companion.img.xz.sha256)
    (cd "$SRC" && "$PYTHON" -m companion.appliance.imager_list "$OUT/companion.img" \
        "$OUT/companion.img.xz" --out "$OUT/companion.rpi-imager-manifest" \
        --url "$RELEASE_URL" --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)")
else
    stage "release: left out (--no-release)"
fi
printf 'done (%ds): %s (%s MiB), kernel %s; packages in %s\n' "$((SECONDS - BEGAN))" \
    "$OUT/companion.img" "$(( $(stat -c %s "$OUT/companion.img") / 1048576 ))" "$KVER" "$OUT/packages.lock"
