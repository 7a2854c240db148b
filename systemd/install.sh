#!/usr/bin/env bash
# Install Table Companion as a service on Raspberry Pi OS Bookworm. Safe to run again:
# every step checks first and only changes what differs.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: sudo systemd/install.sh [options]

Installs the box: apt packages, a venv in /opt/companion, the `companion` user,
/etc/companion/config.toml (only if absent), I2C at 400 kHz (asks first), SPI (with
--spi), and the companion.service unit, enabled and started.

Options:
  --i2c          enable I2C at 400 kHz without asking
  --no-i2c       leave I2C in the boot config alone
  --spi          enable SPI and install python3-spidev and python3-rpi-lgpio, for an
                 OLED wired to SPI ([display] interface = "spi")
  --web          also install the phone page (companion-web.service and its ports 80
                 and 8080, companion-web.socket; the web extra), enabled and started;
                 off unless asked
  --dry-run      print what would be done, change nothing
  --root DIR     install into the root filesystem DIR (image builds, CI): no apt or
                 systemctl there; the user comes from systemd-sysusers --root, the venv
                 is built inside DIR (through chroot, so DIR may be another
                 architecture under qemu-user-static) when --wheels is given
  --wheels DIR   install the program and its pinned dependencies offline from DIR
                 (python -m companion.appliance.release wheels DIR makes one); without it pip
                 installs requirements.lock from PyPI
  --appliance    also the SD-card image's parts: journald in RAM, the first-boot
                 settings from /boot/firmware/companion.txt, avahi, the updater's units,
                 the OLED's stop screen (companion-stopped.service, and
                 companion-stopped-at-boot.service)
  --uninstall    stop and remove the service and /opt/companion; keeps the game
                 history (/var/lib/companion) and /etc/companion/config.toml
  --purge        with --uninstall: also delete the game history, config and user
  -h, --help     this text
EOF
}

PREFIX=/opt/companion
# Two venvs, A and B (companion update installs into the one not running): VENV is a link to
# the running one, so the units' paths never change.
SLOTS=$PREFIX/slots
VENV=$PREFIX/venv
UNIT=companion.service
USER_NAME=companion
GROUPS_NEEDED=(gpio i2c spi dialout bluetooth)
SYSUSERS=/usr/lib/sysusers.d/companion.conf
TMPFILES=/usr/lib/tmpfiles.d/companion.conf
# python3-cryptography: root's updater checks signatures with the system's Python (PRIVILEGED).
APT_PACKAGES=(python3-venv python3-lgpio i2c-tools python3-cryptography)
I2C_LINE="dtparam=i2c_arm=on,i2c_arm_baudrate=400000"
SPI_LINE="dtparam=spi=on"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

ARGS=("$@")
ROOT=""
DRY_RUN=0
I2C=ask
SPI=no
WEB=no
WHEELS=""
APPLIANCE=no
MODE=install
PURGE=0
REBOOT_NEEDED=0

while [[ $# -gt 0 ]]; do
    case $1 in
        --i2c) I2C=yes ;;
        --no-i2c) I2C=no ;;
        --spi) SPI=yes ;;
        --web) WEB=yes ;;
        --dry-run) DRY_RUN=1 ;;
        --root)
            [[ $# -ge 2 ]] || { echo "install.sh: --root needs a directory" >&2; exit 2; }
            ROOT=${2%/}
            shift ;;
        --root=*) ROOT=${1#--root=}; ROOT=${ROOT%/} ;;
        --wheels)
            [[ $# -ge 2 ]] || { echo "install.sh: --wheels needs a directory" >&2; exit 2; }
            WHEELS=$2
            shift ;;
        --wheels=*) WHEELS=${1#--wheels=} ;;
        --appliance) APPLIANCE=yes; WEB=yes ;;
        --uninstall) MODE=uninstall ;;
        --purge) MODE=uninstall; PURGE=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# act DESCRIPTION COMMAND...: do it, or only say it under --dry-run.
act() {
    local description=$1
    shift
    if [[ $DRY_RUN -eq 1 ]]; then
        say "would: $description"
    else
        say "$description"
        "$@"
    fi
}

# system_act: like act, for steps that change the running system, not files in a root.
system_act() {
    if [[ -n $ROOT ]]; then
        say "skip in staging root: $1"
    else
        act "$@"
    fi
}

install_file() {  # SOURCE DEST MODE
    local source=$1 dest=$ROOT$2 mode=$3
    if [[ -f $dest ]] && cmp -s "$source" "$dest"; then
        say "unchanged: $2"
        return
    fi
    act "install $2" install -D -m "$mode" "$source" "$dest"
}

make_link() {  # TARGET LINK
    local target=$1 link=$ROOT$2
    if [[ -L $link && $(readlink "$link") == "$target" ]]; then
        say "unchanged: $2 -> $target"
        return
    fi
    act "link $2 -> $target" bash -c 'mkdir -p "$(dirname "$2")" && ln -sfn "$1" "$2"' _ "$target" "$link"
}

remove() {  # PATH...
    local path
    for path in "$@"; do
        if [[ -e $ROOT$path || -L $ROOT$path ]]; then
            act "remove $path" rm -rf -- "$ROOT$path"
        fi
    done
}

boot_config() {
    local candidate
    for candidate in /boot/firmware/config.txt /boot/config.txt; do
        if [[ -f $ROOT$candidate ]]; then
            say "$candidate"
            return
        fi
    done
}

# ----- install steps ----------------------------------------------------------------------

install_packages() {
    local missing=() package
    if [[ -n $ROOT ]]; then
        say "skip in staging root: apt-get install ${APT_PACKAGES[*]}"
        return
    fi
    for package in "${APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        say "unchanged: apt packages ${APT_PACKAGES[*]}"
        return
    fi
    act "apt-get update" apt-get update -q
    act "apt-get install ${missing[*]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The user and groups come from a sysusers.d file: in a staging root they exist in its
# /etc/passwd from the image build on, not from a first-boot script that could fail.
create_user() {
    local group
    install_file "$SRC/systemd/companion.sysusers" "$SYSUSERS" 0644
    install_file "$SRC/systemd/companion.tmpfiles" "$TMPFILES" 0644
    install_file "$SRC/systemd/60-companion.rules" /etc/udev/rules.d/60-companion.rules 0644
    if [[ -n $ROOT ]]; then
        act "create user $USER_NAME and groups ${GROUPS_NEEDED[*]} (systemd-sysusers)" \
            systemd-sysusers --root "$ROOT" "$ROOT$SYSUSERS"
        act "create the state directories (systemd-tmpfiles)" \
            systemd-tmpfiles --root "$ROOT" --create "$ROOT$TMPFILES"
        return
    fi
    act "create user $USER_NAME and groups ${GROUPS_NEEDED[*]} (systemd-sysusers)" \
        systemd-sysusers "$SYSUSERS"
    # sysusers leaves a user made by an older installer as it was: give it the groups.
    for group in "${GROUPS_NEEDED[@]}"; do
        if ! id -nG "$USER_NAME" 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
            act "add $USER_NAME to group $group" usermod -aG "$group" "$USER_NAME"
        fi
    done
    act "create the state directories (systemd-tmpfiles)" systemd-tmpfiles --create "$TMPFILES"
}

# in_target COMMAND...: run it on the box being installed (in a staging root: chrooted, so
# its own python3 runs, under qemu-user-static for another architecture).
in_target() {
    if [[ -n $ROOT ]]; then
        # A clean environment: nothing of this machine's Python or pip settings leaks in.
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 chroot "$ROOT" "$@"
    else
        "$@"
    fi
}

# The slot VENV points to (a, b or c: docs/update.md), "a" on a first install.
running_slot() {
    local target
    target=$(readlink "$ROOT$VENV" 2>/dev/null || true)
    case $target in
        slots/a|slots/b|slots/c) say "${target#slots/}" ;;
        *) say a ;;
    esac
}

# from_source MODULE ARGS...: one of the program's own tools, run by this machine's python3
# from the source tree before any venv exists (they need nothing but Python's standard library).
from_source() {
    local module=$1
    shift
    PYTHONPATH=$SRC python3 -m "companion.appliance.$module" "$@"
}

# lgpio drives gpiozero's pins through /dev/gpiochip*. PyPI has only its source (C and
# swig): Raspberry Pi OS has it from apt (python3-lgpio); on Debian's own (the SD-card
# image) it is installed from the wheel directory (a wheel built for the Pi, or the locked
# source, which then needs gcc, swig and python3-dev in DIR) into the system's
# site-packages, where every slot's venv sees it, so no update has to build it again.
install_gpio_library() {  # SLOT SOURCE
    local version site
    [[ $(in_target uname -m) == aarch64 ]] || return 0
    if in_target python3 -c 'import lgpio' 2>/dev/null; then
        say "unchanged: lgpio in the system's Python"
        return
    fi
    version=$(from_source lockfile version "$SRC/requirements.lock" lgpio)
    site=$(in_target python3 -c 'import site; print(site.getsitepackages()[0])')
    # Built with the venv's locked setuptools and wheel (offline: no build isolation).
    in_target "$SLOTS/$1/bin/pip" install --quiet --disable-pip-version-check --isolated \
        --no-index --find-links "$2" --no-deps --no-build-isolation --target "$site" "lgpio==$version"
}

# pip_install SLOT: the slot's venv made again with the locked dependencies, each checked
# against its hash, then the program and the game plugins kept on the box
# (companion.appliance.slotbuild: companion update builds its slots with it too); the slot's
# release.json names the version (for doctor, About and companion update).
pip_install() {
    local slot=$SLOTS/$1 source
    if [[ -n $WHEELS ]]; then
        [[ -d $WHEELS ]] || die "--wheels $WHEELS is not a directory"
        source=$WHEELS
        if [[ -n $ROOT ]]; then
            # The chroot sees only its own files: the wheels are copied in for the install.
            source=/var/tmp/companion-wheels
            rm -rf "$ROOT$source" && mkdir -p "$ROOT$source" && cp -r "$WHEELS"/. "$ROOT$source"
        fi
        from_source slotbuild "$slot" --lock "$SRC/requirements.lock" --wheels "$source" \
            --plugins "$PREFIX/plugins" ${ROOT:+--root "$ROOT"}
        install_gpio_library "$1" "$source"
        [[ -z $ROOT ]] || rm -rf "$ROOT$source"
    else
        from_source slotbuild "$slot" --lock "$SRC/requirements.lock" --program "$SRC" \
            --plugins "$PREFIX/plugins"
    fi
    in_target "$slot/bin/python" -c 'import json, companion
print(json.dumps({"version": companion.__version__}))' >"$ROOT$slot/release.json"
}

install_venv() {
    local slot
    if [[ -n $ROOT && -z $WHEELS ]]; then
        say "skip in staging root: venv $VENV (no --wheels DIR to install from)"
        return
    fi
    slot=$(running_slot)
    if [[ -d $ROOT$VENV && ! -L $ROOT$VENV ]]; then
        # A venv from before the A/B slots: it is built again as slot a.
        remove "$VENV"
    fi
    make_link "slots/$slot" "$VENV"
    make_link "slots/$slot" "$PREFIX/safe"  # started fine last: what an update falls back on
    # With the system's site packages: python3-lgpio comes from apt on Raspberry Pi OS.
    act "install the companion package and its locked dependencies into $SLOTS/$slot" \
        pip_install "$slot"
}

# The service cannot write in its venv (read-only to it), so Python could never cache the
# bytecode it compiles at each start: compile it all once here (start to first frame about
# 0.37 s -> 0.24 s). A file that does not compile (a package's stray test file) runs as before.
compile_bytecode() {
    in_target "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib" >/dev/null \
        || say "note: a few files in $VENV did not compile to .pyc; they still run"
}

install_bytecode() {
    [[ -z $ROOT || -n $WHEELS ]] || return 0  # no venv in this staging root
    act "compile the .pyc files in $VENV" compile_bytecode
}

install_config() {
    local dest=/etc/companion/config.toml
    if [[ -e $ROOT$dest ]]; then
        say "kept: $dest (your settings; compare with $SRC/config.example.toml)"
    else
        act "install $dest" install -D -m 0644 "$SRC/config.example.toml" "$ROOT$dest"
    fi
}

want_i2c() {
    case $I2C in
        yes) return 0 ;;
        no) return 1 ;;
    esac
    if [[ $DRY_RUN -eq 1 ]]; then
        say "would: ask whether to enable I2C at 400 kHz (--i2c or --no-i2c to decide now)"
        return 1
    fi
    if [[ ! -t 0 ]]; then
        say "I2C not changed: no terminal to ask (rerun with --i2c or --no-i2c)"
        return 1
    fi
    local answer
    read -r -p "Enable I2C at 400 kHz for the OLED (edits the boot config)? [Y/n] " answer
    [[ -z $answer || $answer == [yY]* ]]
}

# set_boot_line NAME PATTERN LINE: in the boot config, replace every (even commented) line
# matching the awk PATTERN by LINE, once, or append LINE under [all] if none matches. Backs the
# file up once; a change takes effect at the next boot.
set_boot_line() {
    local name=$1 pattern=$2 line=$3 config edited
    config=$(boot_config)
    if [[ -z $config ]]; then
        say "$name not changed: no /boot/firmware/config.txt (is this Raspberry Pi OS?)"
        return 0
    fi
    edited=$(mktemp)
    awk -v pattern="$pattern" -v line="$line" -v name="$name" '
        $0 ~ pattern { if (!done) print line; done = 1; next }
        { print }
        END { if (!done) { print ""; print "# Table Companion: " name " for the OLED"; print "[all]"; print line } }
    ' "$ROOT$config" >"$edited"
    if cmp -s "$edited" "$ROOT$config"; then
        say "unchanged: $config ($line)"
    else
        if [[ ! -e $ROOT$config.companion-backup ]]; then
            act "back up $config" cp -p "$ROOT$config" "$ROOT$config.companion-backup"
        fi
        act "set $line in $config" bash -c 'cat "$1" >"$2"' _ "$edited" "$ROOT$config"
        REBOOT_NEEDED=1
    fi
    rm -f "$edited"
}

enable_i2c() {
    want_i2c || return 0
    # Also replaces the i2c / i2c_baudrate aliases of i2c_arm / i2c_arm_baudrate.
    set_boot_line I2C '^[[:space:]]*#?[[:space:]]*dtparam=i2c(_arm)?(_baudrate)?=' "$I2C_LINE"
    local modules
    modules=$(mktemp)
    printf 'i2c-dev\n' >"$modules"
    install_file "$modules" /etc/modules-load.d/companion.conf 0644
    rm -f "$modules"
}

enable_spi() {
    [[ $SPI == yes ]] || return 0
    # spidev loads by itself once the dtparam is on: no modules-load entry needed.
    set_boot_line SPI '^[[:space:]]*#?[[:space:]]*dtparam=spi=' "$SPI_LINE"
}

# enable_unit UNIT TARGET: what `systemctl enable` does, in a staging root or on the box.
enable_unit() {
    if [[ -n $ROOT ]]; then
        make_link "/etc/systemd/system/$1" "/etc/systemd/system/$2.wants/$1"
    else
        act "enable $1" systemctl enable --now --quiet "$1"
    fi
}

# What root runs (the updater, the first boot's settings) is never a release's code: a copy
# of those modules on the root filesystem, run by the system's python3 -I, which no update
# changes (companion/appliance/privileged.py, docs/update.md). Its list is MODULES there.
PRIVILEGED=/usr/lib/companion/privileged
install_privileged_copy() {
    local modules module
    modules=$(sed -n '/^MODULES = (/,/^)/ s/^ *"\(companion\/[a-z_/]*\.py\)",$/\1/p' \
        "$SRC/companion/appliance/privileged.py")
    [[ -n $modules ]] || die "no MODULES list in companion/appliance/privileged.py"
    for module in $modules; do
        install_file "$SRC/$module" "$PRIVILEGED/$module" 0644
    done
    install_file "$SRC/companion/appliance/privileged.py" "$PRIVILEGED/__main__.py" 0644
    install_file "$SRC/systemd/companion-update" /usr/local/sbin/companion-update 0755
}

# The boot-time check that rolls back an update cut off mid-trial (docs/update.md).
install_update_units() {
    install_privileged_copy
    install_file "$SRC/systemd/companion-update-check.service" \
        /etc/systemd/system/companion-update-check.service 0644
    enable_unit companion-update-check.service multi-user.target
    install_file "$SRC/docs/update.md" "$PREFIX/docs/update.md" 0644
    [[ $WEB == yes ]] || return 0
    # A release file uploaded on the phone page (unprivileged) is installed by root.
    local unit
    for unit in companion-update.path companion-update.service; do
        install_file "$SRC/systemd/$unit" "/etc/systemd/system/$unit" 0644
    done
    enable_unit companion-update.path multi-user.target
}

# The SD-card image's own parts: logs in RAM, settings from the boot partition.
install_appliance() {
    [[ $APPLIANCE == yes ]] || return 0
    install_file "$SRC/systemd/journald-companion.conf" /etc/systemd/journald.conf.d/companion.conf 0644
    install_file "$SRC/systemd/companion-firstboot.service" \
        /etc/systemd/system/companion-firstboot.service 0644
    enable_unit companion-firstboot.service sysinit.target
    install_file "$SRC/systemd/companion-hotspot.service" /etc/systemd/system/companion-hotspot.service 0644
    enable_unit companion-hotspot.service multi-user.target
    install_stopped_screen
    install_first_frame
    if [[ -e $ROOT/boot/firmware/companion.txt ]]; then
        say "kept: /boot/firmware/companion.txt"
    else
        act "install /boot/firmware/companion.txt" \
            install -D -m 0644 "$SRC/systemd/companion.txt" "$ROOT/boot/firmware/companion.txt"
    fi
}

# The OLED says why the box is not running (companion-stopped.service): when systemd gives up
# on it (OnFailure=, the drop-in), and at boot when the data partition is missing
# (companion-stopped-at-boot.service starts it then). The program is on that partition, so the
# display's code is copied onto the root filesystem for it.
STOPPED_COPY=/usr/lib/companion/stopped
install_stopped_screen() {
    install_file "$SRC/systemd/companion-stopped.service" /etc/systemd/system/companion-stopped.service 0644
    install_file "$SRC/systemd/companion-stopped-at-boot.service" \
        /etc/systemd/system/companion-stopped-at-boot.service 0644
    install_file "$SRC/systemd/companion-onfailure.conf" /etc/systemd/system/companion.service.d/onfailure.conf 0644
    enable_unit companion-stopped-at-boot.service multi-user.target
    local package found site sites=("$ROOT$VENV"/lib/python3*/site-packages)
    site=${sites[0]}
    if [[ ! -d $site ]]; then
        say "skip: $STOPPED_COPY (no venv to copy the display's code from)"
        return
    fi
    remove "$STOPPED_COPY"
    act "copy the display's code to $STOPPED_COPY" mkdir -p "$ROOT$STOPPED_COPY"
    for package in companion hardware luma PIL pillow.libs cbor2 _cbor2 smbus2; do
        for found in "$site/$package" "$site/$package".*.so; do
            [[ -e $found ]] || continue
            act "  $(basename "$found")" cp -r "$found" "$ROOT$STOPPED_COPY/"
        done
    done
}

# The box's first frame from the boot's first seconds (companion-splash.service): a bare
# python3 writes it to the panel long before the data partition, with the program, is mounted,
# so its file and the frame are copied onto the root filesystem.
FIRST_FRAME_COPY=/usr/lib/companion/first-frame
install_first_frame() {
    install_file "$SRC/systemd/companion-splash.service" /etc/systemd/system/companion-splash.service 0644
    install_file "$SRC/companion/box/first_frame.py" "$FIRST_FRAME_COPY/first_frame.py" 0644
    install_file "$SRC/companion/box/splash.bin" "$FIRST_FRAME_COPY/splash.bin" 0644
    if [[ -n $ROOT ]]; then
        enable_unit companion-splash.service sysinit.target
    else  # at the next boot only: started now, it would write to the panel the box is using
        act "enable companion-splash.service" systemctl enable --quiet companion-splash.service
    fi
}

install_unit() {
    install_file "$SRC/systemd/companion.service" "/etc/systemd/system/$UNIT" 0644
    install_file "$SRC/docs/service.md" "$PREFIX/docs/service.md" 0644
    install_update_units
    install_appliance
    make_link "$VENV/bin/companion" /usr/local/bin/companion
    if [[ -n $ROOT ]]; then
        # What `systemctl enable` does, without a running systemd.
        make_link "/etc/systemd/system/$UNIT" "/etc/systemd/system/multi-user.target.wants/$UNIT"
        say "skip in staging root: systemctl start $UNIT"
        return
    fi
    act "systemctl daemon-reload" systemctl daemon-reload
    act "enable $UNIT at boot" systemctl enable --quiet "$UNIT"
    if [[ $REBOOT_NEEDED -eq 1 ]]; then
        say "the boot config changed (I2C or SPI): the box starts after a reboot (sudo reboot)"
        return
    fi
    # restart, so that an upgrade runs the new code; blocks until READY=1 (Type=notify).
    if ! act "start $UNIT" systemctl restart "$UNIT"; then
        say "$UNIT did not start: see \`journalctl -u companion -b -e\` and run \`companion doctor\`"
    fi
}

do_install() {
    install_packages
    create_user
    install_venv
    install_bytecode
    install_config
    enable_i2c
    enable_spi
    install_unit
    install_web
    if [[ -z $ROOT && $DRY_RUN -eq 0 && -x $VENV/bin/companion ]]; then
        say "--- companion doctor"
        "$VENV/bin/companion" doctor || true
    fi
    if [[ $DRY_RUN -eq 1 ]]; then
        say "dry run: nothing was changed"
    else
        say "done: the box starts at power-on; \`companion doctor\` checks it, \`journalctl -u companion\` shows its log"
    fi
}

# ----- the phone page (--web) -------------------------------------------------------------
# Separate units, off unless asked: with them, the box listens on the network (ports 80 and
# 8080, opened by companion-web.socket); without them, no socket is open at all.
WEB_UNIT=companion-web.service
WEB_SOCKET=companion-web.socket

install_web() {
    [[ $WEB == yes ]] || return 0
    # Its packages are in requirements.lock, installed with the box's.
    install_file "$SRC/systemd/$WEB_UNIT" "/etc/systemd/system/$WEB_UNIT" 0644
    install_file "$SRC/systemd/$WEB_SOCKET" "/etc/systemd/system/$WEB_SOCKET" 0644
    if [[ $APPLIANCE == yes ]]; then
        say "the phone page is switched on or off by phone_page in /boot/firmware/companion.txt"
        return
    fi
    if [[ -n $ROOT ]]; then
        make_link "/etc/systemd/system/$WEB_UNIT" "/etc/systemd/system/multi-user.target.wants/$WEB_UNIT"
        make_link "/etc/systemd/system/$WEB_SOCKET" "/etc/systemd/system/sockets.target.wants/$WEB_SOCKET"
        return
    fi
    act "systemctl daemon-reload" systemctl daemon-reload
    act "enable $WEB_SOCKET and $WEB_UNIT at boot" systemctl enable --quiet "$WEB_SOCKET" "$WEB_UNIT"
    # The service is stopped first: a running one holds 8080 itself (before the socket unit).
    act "stop $WEB_UNIT" systemctl stop "$WEB_UNIT"
    if ! act "start $WEB_SOCKET and $WEB_UNIT" systemctl restart "$WEB_SOCKET" "$WEB_UNIT"; then
        say "$WEB_UNIT did not start: see \`journalctl -u companion-web -b -e\`"
    fi
    say "phone page: on the box, Home → Phone shows its QR code and PIN"
}

uninstall_web() {
    if [[ -z $ROOT && -e /etc/systemd/system/$WEB_UNIT ]]; then
        act "stop and disable $WEB_UNIT" systemctl disable --now --quiet "$WEB_UNIT" "$WEB_SOCKET"
    fi
    remove "/etc/systemd/system/multi-user.target.wants/$WEB_UNIT" "/etc/systemd/system/$WEB_UNIT" \
        "/etc/systemd/system/sockets.target.wants/$WEB_SOCKET" "/etc/systemd/system/$WEB_SOCKET"
}

# ----- uninstall --------------------------------------------------------------------------

do_uninstall() {
    uninstall_web
    if [[ -z $ROOT && -e /etc/systemd/system/$UNIT ]]; then
        act "stop and disable $UNIT" systemctl disable --now --quiet "$UNIT"
    fi
    remove "/etc/systemd/system/multi-user.target.wants/$UNIT" "/etc/systemd/system/$UNIT"
    local unit
    for unit in companion-update-check.service companion-update.path; do
        [[ -n $ROOT || ! -e /etc/systemd/system/$unit ]] || act "disable $unit" systemctl disable --quiet "$unit"
        remove "/etc/systemd/system/multi-user.target.wants/$unit" "/etc/systemd/system/$unit"
    done
    remove /etc/systemd/system/sysinit.target.wants/companion-firstboot.service \
        /etc/systemd/system/companion-firstboot.service /etc/systemd/system/companion-update.service \
        /etc/systemd/journald.conf.d/companion.conf \
        /etc/systemd/system/multi-user.target.wants/companion-stopped.service \
        /etc/systemd/system/multi-user.target.wants/companion-hotspot.service \
        /etc/systemd/system/companion-hotspot.service \
        /etc/systemd/system/multi-user.target.wants/companion-stopped-at-boot.service \
        /etc/systemd/system/companion-stopped.service /etc/systemd/system/companion-stopped-at-boot.service \
        /etc/systemd/system/companion.service.d/onfailure.conf \
        "$STOPPED_COPY" "$PRIVILEGED" /usr/local/sbin/companion-update \
        /etc/systemd/system/sysinit.target.wants/companion-splash.service \
        /etc/systemd/system/companion-splash.service "$FIRST_FRAME_COPY"
    if [[ -z $ROOT ]]; then
        act "systemctl daemon-reload" systemctl daemon-reload
    fi
    if [[ -L $ROOT/usr/local/bin/companion ]]; then
        remove /usr/local/bin/companion
    fi
    remove "$PREFIX" /etc/modules-load.d/companion.conf /etc/udev/rules.d/60-companion.rules
    say "kept: I2C and SPI in the boot config (other parts may use them)"
    if [[ $PURGE -eq 1 ]]; then
        remove /var/lib/companion /etc/companion "$SYSUSERS" "$TMPFILES"
        if [[ -n $ROOT ]] || getent passwd "$USER_NAME" >/dev/null; then
            system_act "delete user $USER_NAME" userdel "$USER_NAME"
        fi
    else
        say "kept: game history in /var/lib/companion and /etc/companion/config.toml (--purge deletes them)"
    fi
}

if [[ $SPI == yes ]]; then
    # luma drives an SPI panel's D/C and RES pins through RPi.GPIO (lgpio's shim on Bookworm).
    APT_PACKAGES+=(python3-spidev python3-rpi-lgpio)
fi

if [[ -n $ROOT ]]; then
    [[ -d $ROOT ]] || die "--root $ROOT is not a directory"
    ROOT=$(cd "$ROOT" && pwd)
    say "staging root: $ROOT"
elif [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    die "run as root: sudo $0 ${ARGS[*]}"
fi

if [[ $MODE == install ]]; then
    do_install
else
    do_uninstall
fi
