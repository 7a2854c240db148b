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
  --web          also install the phone page (companion-web.service, the web extra),
                 enabled and started; off unless asked
  --dry-run      print what would be done, change nothing
  --root DIR     install files into a staging root DIR (no apt, useradd, venv or
                 systemctl there; for image builds and CI)
  --uninstall    stop and remove the service and /opt/companion; keeps the game
                 history (/var/lib/companion) and /etc/companion/config.toml
  --purge        with --uninstall: also delete the game history, config and user
  -h, --help     this text
EOF
}

PREFIX=/opt/companion
VENV=$PREFIX/venv
UNIT=companion.service
USER_NAME=companion
GROUPS_NEEDED=(gpio i2c spi dialout)
APT_PACKAGES=(python3-venv python3-lgpio i2c-tools)
I2C_LINE="dtparam=i2c_arm=on,i2c_arm_baudrate=400000"
SPI_LINE="dtparam=spi=on"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

ARGS=("$@")
ROOT=""
DRY_RUN=0
I2C=ask
SPI=no
WEB=no
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

create_user() {
    local group
    if [[ -n $ROOT ]]; then
        say "skip in staging root: user $USER_NAME in groups ${GROUPS_NEEDED[*]}"
        return
    fi
    for group in "${GROUPS_NEEDED[@]}"; do
        # The unit's SupplementaryGroups= refuses to start if a group is missing.
        if ! getent group "$group" >/dev/null; then
            act "create group $group" groupadd --system "$group"
        fi
    done
    if getent passwd "$USER_NAME" >/dev/null; then
        say "unchanged: user $USER_NAME"
    else
        act "create system user $USER_NAME" useradd --system --user-group \
            --home-dir /var/lib/companion --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
    fi
    for group in "${GROUPS_NEEDED[@]}"; do
        if ! id -nG "$USER_NAME" 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
            act "add $USER_NAME to group $group" usermod -aG "$group" "$USER_NAME"
        fi
    done
}

install_venv() {
    if [[ -n $ROOT ]]; then
        # A venv holds absolute paths: it is built on the box itself.
        say "skip in staging root: venv $VENV and pip install $SRC"
        return
    fi
    if [[ -x $VENV/bin/python ]]; then
        say "unchanged: venv $VENV"
    else
        # System site packages: python3-lgpio comes from apt, built for this kernel.
        act "create venv $VENV" python3 -m venv --system-site-packages "$VENV"
    fi
    act "install the companion package into $VENV" \
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade "$SRC"
}

# The service cannot write in its venv (read-only to it), so Python could never cache the
# bytecode it compiles at each start: compile it all once here (start to first frame about
# 0.37 s -> 0.24 s). A file that does not compile (a package's stray test file) runs as before.
compile_bytecode() {
    "$VENV/bin/python" -m compileall -q -j 0 "$VENV/lib" >/dev/null \
        || say "note: a few files in $VENV did not compile to .pyc; they still run"
}

install_bytecode() {
    [[ -z $ROOT ]] || return 0  # no venv in a staging root
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

install_unit() {
    install_file "$SRC/systemd/companion.service" "/etc/systemd/system/$UNIT" 0644
    install_file "$SRC/docs/service.md" "$PREFIX/docs/service.md" 0644
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
# A separate unit, off unless asked: with it, the box listens on the network (port 8080 by
# default, [web] in the config); without it, no socket is open at all.
WEB_UNIT=companion-web.service

install_web() {
    [[ $WEB == yes ]] || return 0
    if [[ -n $ROOT ]]; then
        say "skip in staging root: pip install $SRC[web]"
    else
        act "install the phone page's packages into $VENV" \
            "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade "$SRC[web]"
    fi
    install_file "$SRC/systemd/$WEB_UNIT" "/etc/systemd/system/$WEB_UNIT" 0644
    if [[ -n $ROOT ]]; then
        make_link "/etc/systemd/system/$WEB_UNIT" "/etc/systemd/system/multi-user.target.wants/$WEB_UNIT"
        return
    fi
    act "systemctl daemon-reload" systemctl daemon-reload
    act "enable $WEB_UNIT at boot" systemctl enable --quiet "$WEB_UNIT"
    if ! act "start $WEB_UNIT" systemctl restart "$WEB_UNIT"; then
        say "$WEB_UNIT did not start: see \`journalctl -u companion-web -b -e\`"
    fi
    say "phone page: on the box, Home → Phone shows its QR code and PIN"
}

uninstall_web() {
    if [[ -z $ROOT && -e /etc/systemd/system/$WEB_UNIT ]]; then
        act "stop and disable $WEB_UNIT" systemctl disable --now --quiet "$WEB_UNIT"
    fi
    remove "/etc/systemd/system/multi-user.target.wants/$WEB_UNIT" "/etc/systemd/system/$WEB_UNIT"
}

# ----- uninstall --------------------------------------------------------------------------

do_uninstall() {
    uninstall_web
    if [[ -z $ROOT && -e /etc/systemd/system/$UNIT ]]; then
        act "stop and disable $UNIT" systemctl disable --now --quiet "$UNIT"
    fi
    remove "/etc/systemd/system/multi-user.target.wants/$UNIT" "/etc/systemd/system/$UNIT"
    if [[ -z $ROOT ]]; then
        act "systemctl daemon-reload" systemctl daemon-reload
    fi
    if [[ -L $ROOT/usr/local/bin/companion ]]; then
        remove /usr/local/bin/companion
    fi
    remove "$PREFIX" /etc/modules-load.d/companion.conf
    say "kept: I2C and SPI in the boot config (other parts may use them)"
    if [[ $PURGE -eq 1 ]]; then
        remove /var/lib/companion /etc/companion
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
