"""Pi-class figures on an instruction clock: the box's own benchmarks inside an emulated
Cortex-A53 whose clock advances one nanosecond per guest instruction. Prints one JSON object.

QEMU's system emulation (TCG) with ``-icount shift=0,sleep=off`` gives the guest a clock that
counts the instructions it executes: every time measured inside is an instruction count, which
the host's load cannot move. An A53 retires somewhat under one instruction a cycle, so
the figures read as a 1 GHz A53 at best: a floor for the real board (a Pi Zero 2 W, 3 or 4),
not its exact times. ``bench/pi_clock_guest.py`` does the measuring; docs/benchmarks.md names
what each figure includes.

The guest is Debian bookworm's arm64 Python and kernel, unpacked from the packages (no
emulated install step) and booted from RAM: the whole root filesystem is the initramfs, the
journal is on ext4 on a RAM disk inside the guest (so its fsync runs ext4's and jbd2's code),
the console is the only device that talks to the host. With nothing arriving from outside,
every file dated alike and each section started from a collected heap, two runs of the same
code give the same figures to the instruction, on any host (docs/benchmarks.md). The root
filesystem and the aarch64 wheels (the versions of requirements.lock) are cached outside the
clone (``$PI_CLOCK_CACHE``, default ``~/.cache/table-companion-pi-clock``) under keys of their
inputs; the project is packed afresh each run.

The ``boot`` section (in every run, or alone: ``--only boot``) boots the box's own SD-card image
(image/build.sh with the test agent, as bench/appliance.py builds it) on the same clock from an
emulated SD card, and reads the boot's figures from the guest's clocks (the first frame, READY,
the home screen taking a press: image/test-agent/boot_clock.py).

    python bench/pi_clock.py [--json] [--quick] [--check] [--only SECTION…] [--profile SECTION]

``--check`` (CI, with ``--quick``): exits 1 when a figure grew by more than 10 % over
``bench/pi_clock_baseline.json``; ``--write-baseline`` writes that file from this run.
Needs, on a Debian host: qemu-system-arm, mmdebstrap, python3.11, root (mmdebstrap, and the
image's build for the boot section), and the image builder's tools (image/build.sh).
"""

from __future__ import annotations

import argparse
import ast
import compileall
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from inspect import getsource
from pathlib import Path
from typing import Any, BinaryIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.appliance.lockfile import read_lock  # noqa: E402  (the lock's one reader)

BASELINE = ROOT / "bench" / "pi_clock_baseline.json"
LOCK = ROOT / "requirements.lock"
CACHE = Path(os.environ.get("PI_CLOCK_CACHE", Path.home() / ".cache" / "table-companion-pi-clock"))
MIRROR = os.environ.get("DEBIAN_MIRROR", "http://deb.debian.org/debian")
SUITE = "bookworm"
# Extracted only (mmdebstrap's extract variant): nothing runs under emulation to build it.
PACKAGES = ("python3", "dash", "kmod", "e2fsprogs", "mount", "linux-image-arm64")
GUEST_PYTHON = "3.11"
WHEEL_PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64",
                   "manylinux_2_17_aarch64", "linux_aarch64")
# Left out of the guest: documentation, the kernel's other modules, Python's own tests.
SKIPPED = ("boot/", "usr/share/doc/", "usr/share/man/", "usr/share/info/", "usr/share/locale/",
           "usr/share/lintian/", "var/cache/", "var/lib/apt/", "var/lib/dpkg/",
           "usr/lib/python3.11/test/", "usr/lib/python3.11/idlelib/", "usr/lib/python3.11/lib2to3/",
           "usr/lib/python3.11/tkinter/", "usr/lib/python3.11/ensurepip/")
MODULES = ("brd", "ext4", "crc32c_generic")  # the RAM disk, the journal's filesystem and its checksums
PROJECT = ("companion", "hardware", "firmware_bridge", "docs/examples")   # and guest_bench()
GUEST = "pi_clock_guest"
PROJECT_DATE = 1767225600      # 2026-01-01: every file's date in the guest
GROWTH = 0.10
TIMEOUT_S = 3600
# The guest's machine: one A53 core, the instruction clock, a fixed seed and a fixed date.
QEMU = ("qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a53", "-smp", "1", "-m", "2048",
        "-icount", "shift=0,sleep=off", "-seed", "1", "-rtc", "base=2026-01-01T12:00:00,clock=vm",
        "-display", "none", "-monitor", "none", "-serial", "stdio", "-no-reboot", "-nodefaults")
KERNEL_ARGS = "console=ttyAMA0 quiet loglevel=1 nokaslr norandmaps panic=-1 rdinit=/init"
# The box's own image: the same machine with a Pi 3's memory, booted from an SD card (QEMU's
# SD card reads and writes while the guest's instructions wait, so the clock sees no disk
# time); nothing else talks to the host: no network, no agent.
IMAGE_QEMU = tuple("1024" if part == "2048" else part for part in QEMU)
IMAGE_ARGS = ("console=ttyAMA0", "nokaslr", "norandmaps", "companion_test.boot_clock",
              "systemd.mask=companion-test-agent.service")
SD_MODULES = ("sdhci_pci",)
BOOT = "boot"  # the section that boots the image, beside the guest's sections

INIT = """#!/bin/sh
# The guest's only process before the benchmark: mounts, the journal's ext4 on a RAM disk.
set -e
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for module in $(cat /etc/pi-clock-modules); do
    case $module in */brd.ko*) insmod "$module" rd_nr=1 rd_size=262144 ;; *) insmod "$module" ;; esac
done
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/ram0
mount -t ext4 /dev/ram0 /var/lib/bench
export HOME=/root TMPDIR=/var/lib/bench LANG=C.UTF-8 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH=/opt/companion:/opt/companion/bench:/opt/site
cd /opt/companion
python3 bench/pi_clock_guest.py $(cat /etc/pi-clock-args) || echo "PI-CLOCK-FAILED $?"
sync
echo o >/proc/sysrq-trigger
sleep 60
"""


def log(message: str) -> None:
    print(f"pi_clock: {message}", file=sys.stderr, flush=True)


def key_of(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def cached(name: str, build: Any) -> Path:
    """``CACHE/name``, made by ``build(tmp_path)`` once; a half-made one is never used."""
    path = CACHE / name
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=CACHE))
        try:
            build(work / name)
            (work / name).rename(path)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return path


def compile_tree(folder: Path, inside: str) -> None:
    """Bytecode for the guest's Python (3.11 reads the host's 3.11 bytecode), named by its path
    inside the guest; the guest never compiles and never writes a cache. The sources are dated
    PROJECT_DATE first: the bytecode records its source's date, and the guest sees that date."""
    if sys.version_info[:2] != tuple(int(n) for n in GUEST_PYTHON.split(".")):
        raise SystemExit(f"pi_clock: the host's Python must be {GUEST_PYTHON}, as the guest's "
                         "(it compiles the guest's bytecode)")
    for path in walk(folder):
        os.utime(path, (PROJECT_DATE, PROJECT_DATE), follow_symlinks=False)
    compileall.compile_dir(folder, quiet=2, stripdir=str(folder), prependdir=inside, workers=0)


# ----- the guest's parts, cached ---------------------------------------------------------------

def build_root(path: Path) -> None:
    log(f"unpacking Debian {SUITE} arm64 ({', '.join(PACKAGES)}) with mmdebstrap…")
    subprocess.run(["mmdebstrap", "--arch=arm64", "--variant=extract", "--quiet",
                    f"--include={','.join(PACKAGES)}", "--aptopt=Acquire::Languages \"none\"",
                    SUITE, str(path), f"deb {MIRROR} {SUITE} main",
                    f"deb {MIRROR}-security {SUITE}-security main"], check=True)
    compile_tree(path / "usr/lib/python3.11", "/usr/lib/python3.11")


def kernel_release(root: Path) -> str:
    return max(p.name for p in (root / "lib/modules").iterdir())


def build_site(path: Path) -> None:
    log("downloading the box's dependencies as aarch64 wheels…")
    pins = path.with_name("locked.txt")
    pins.write_text("\n".join(locked()) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--target", str(path), "--only-binary=:all:", "--implementation", "cp",
                    "--python-version", GUEST_PYTHON, "--abi", "cp311",
                    *(f"--platform={p}" for p in WHEEL_PLATFORMS), "--constraint", str(pins),
                    *dependencies()], check=True)
    compile_tree(path, "/opt/site")


def dependencies() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]


def locked() -> list[str]:
    """The versions the box installs (requirements.lock), which the guest's wheels keep to."""
    return [f"{pin.name}=={pin.version}" for pin in read_lock(LOCK)]


# ----- the initramfs: newc cpio archives, concatenated (the kernel unpacks them in turn) -------

class Cpio:
    def __init__(self, out: BinaryIO) -> None:
        self.out, self.inode = out, 1

    def entry(self, name: str, mode: int, data: bytes = b"") -> None:
        """One file, dated PROJECT_DATE whatever its date on this disk (the guest's files are the
        same bytes on every run and every host; a folder's date alone, read by the import
        system, moved the figures by a few instructions)."""
        fields = (self.inode, mode, 0, 0, 1, PROJECT_DATE, len(data), 0, 0, 0, 0, len(name) + 1, 0)
        self.inode += 1
        self.out.write(b"070701" + "".join(f"{v:08X}" for v in fields).encode())
        self.pad(self.out.write(name.encode() + b"\0") + 110)
        self.pad(self.out.write(data))

    def pad(self, written: int) -> None:
        self.out.write(b"\0" * (-written % 4))

    def tree(self, source: Path, inside: str, skip: tuple[str, ...] = ()) -> None:
        """Every file, folder and link under ``source`` as ``inside/…``, in sorted order."""
        for path in walk(source):
            relative = path.relative_to(source).as_posix()
            if relative != "." and (relative + "/" * path.is_dir()).startswith(skip):
                continue
            self.path(path, f"{inside}/{relative}".replace("/.", "").lstrip("/") or ".")

    def path(self, path: Path, name: str) -> None:
        info = path.lstat()
        mode = stat.S_IFMT(info.st_mode) | stat.S_IMODE(info.st_mode)
        if stat.S_ISLNK(info.st_mode):
            self.entry(name, mode, os.readlink(path).encode())
        elif stat.S_ISREG(info.st_mode):
            self.entry(name, mode, path.read_bytes())
        elif stat.S_ISDIR(info.st_mode):
            self.entry(name, mode)

    def file(self, name: str, text: str, mode: int = 0o644) -> None:
        self.entry(name, stat.S_IFREG | mode, text.encode())

    def folder(self, name: str) -> None:
        self.entry(name, stat.S_IFDIR | 0o755)

    def close(self) -> None:
        self.entry("TRAILER!!!", 0)


def module_order(modules: Path, names: tuple[str, ...]) -> list[Path]:
    """The kernel modules ``names`` need, each after the ones it depends on (from each
    module's own ``depends=`` field: no depmod on the host)."""
    files = {path.name.split(".")[0].replace("-", "_"): path for path in modules.rglob("*.ko*")}
    order: list[Path] = []

    def add(name: str) -> None:
        path = files[name]
        if path in order:
            return
        found = re.search(rb"\0depends=([^\0]*)\0", path.read_bytes())
        for needed in filter(None, (found[1].decode() if found else "").split(",")):
            add(needed.replace("-", "_"))
        order.append(path)

    for name in names:
        add(name)
    return order


def walk(folder: Path) -> Iterator[Path]:
    yield folder
    for path in sorted(folder.iterdir()):
        if path.is_dir() and not path.is_symlink():
            yield from walk(path)
        else:
            yield path


def build_base(root: Path, site: Path) -> Any:
    def build(path: Path) -> None:
        log("packing the guest's root filesystem…")
        release = kernel_release(root)
        modules = root / "lib/modules" / release
        order = module_order(modules, MODULES)
        with path.open("wb") as out:
            cpio = Cpio(out)
            cpio.tree(root, "", (*SKIPPED, f"lib/modules/{release}/"))
            for module in order:
                for parent in reversed(module.relative_to(root).parents[:-1]):
                    cpio.folder(parent.as_posix())
                cpio.path(module, module.relative_to(root).as_posix())
            for folder in ("proc", "sys", "dev", "tmp", "root", "var/lib/bench", "opt", "opt/companion"):
                cpio.folder(folder)
            cpio.tree(site, "opt/site")
            cpio.file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
            cpio.file("etc/group", "root:x:0:\n")
            cpio.file("etc/pi-clock-modules", "".join(
                f"/{m.relative_to(root).as_posix()}\n" for m in order))
            cpio.file("init", INIT, 0o755)
            cpio.close()
    return build


def distribution_info() -> dict[str, str]:
    """The installed package's metadata files for the guest, which runs the project from its
    folder, not from a pip install: the games are found by their entry points."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points = "".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items()) + "\n"
        for group, entries in project.get("entry-points", {}).items())
    return {"METADATA": f"Metadata-Version: 2.1\nName: {project['name']}\n"
                        f"Version: {project['version']}\n",
            "entry_points.txt": entry_points}


def project_archive(path: Path, guest_args: list[str]) -> None:
    """The project as it is in this clone, compiled, at /opt/companion; the guest's arguments."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "companion"
        for part in PROJECT:
            shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "*.png"))
        (copy / "bench").mkdir()
        for name in guest_bench():
            shutil.copy2(ROOT / "bench" / name, copy / "bench" / name)
        compile_tree(copy, "/opt/companion")
        with path.open("wb") as out:
            cpio = Cpio(out)
            cpio.tree(copy, "opt/companion")
            cpio.folder("opt/companion/table_companion.dist-info")
            for name, text in distribution_info().items():
                cpio.file(f"opt/companion/table_companion.dist-info/{name}", text)
            cpio.file("etc/pi-clock-args", " ".join(guest_args) + "\n")
            cpio.close()


def guest_bench() -> list[str]:
    """The benchmark files the guest runs: its own half and the bench modules it imports, in
    turn. No other file of bench/ goes in: any byte more in the guest moves the figures a
    little, so this harness, its baseline and the other benchmarks must not."""
    found, waiting = [], [GUEST]
    while waiting:
        name = waiting.pop()
        if f"{name}.py" in found:
            continue
        found.append(f"{name}.py")
        tree = ast.parse((ROOT / "bench" / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            waiting += [n for n in names if (ROOT / "bench" / f"{n}.py").is_file()]
    return sorted(found)


def guest_image() -> tuple[Path, Path]:
    """The kernel and the cached part of the initramfs (built on first use)."""
    root = cached(f"root-{key_of(SUITE, PACKAGES, MIRROR, PROJECT_DATE)}", build_root)
    site = cached(f"site-{key_of(dependencies(), locked(), WHEEL_PLATFORMS, GUEST_PYTHON, PROJECT_DATE)}",
                  build_site)
    base = cached(f"base-{key_of(root.name, site.name, INIT, SKIPPED, MODULES, getsource(Cpio))}.cpio",
                  build_base(root, site))
    return root / "boot" / f"vmlinuz-{kernel_release(root)}", base


# ----- the run ---------------------------------------------------------------------------------

def boot(guest_args: list[str], verbose: bool) -> dict[str, Any]:
    kernel, base = guest_image()
    with tempfile.TemporaryDirectory() as tmp:
        initrd = Path(tmp) / "initrd.cpio"
        project_archive(Path(tmp) / "project.cpio", guest_args)
        with initrd.open("wb") as out:
            for part in (base, Path(tmp) / "project.cpio"):
                with part.open("rb") as source:
                    shutil.copyfileobj(source, out)
        log(f"booting the emulated Cortex-A53 ({' '.join(guest_args) or 'full run'})…")
        result = run_guest([*QEMU, "-kernel", str(kernel), "-initrd", str(initrd),
                            "-append", KERNEL_ARGS], "PI-CLOCK ", verbose)
    result["host_seconds"] = result.pop("seconds")
    return result


def run_guest(command: list[str], prefix: str, verbose: bool) -> dict[str, Any]:
    """QEMU until the guest's console prints ``prefix`` and its JSON (``seconds``: host time)."""
    began = time.monotonic()
    qemu = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            errors="replace")
    result, lines = None, []
    try:
        for line in qemu.stdout:
            line = line.rstrip("\r\n")
            if prefix in line:  # the guest's login prompt may share its line
                result = json.loads(line.split(prefix, 1)[1])
                break
            lines.append(line)
            if "Dropping to a shell" in line:  # the initramfs found no root: nothing will come
                break
            if verbose or line.startswith("pi-clock guest:"):
                log(f"guest: {line.removeprefix('pi-clock guest: ')}")
            if time.monotonic() - began > TIMEOUT_S:
                break
    finally:
        qemu.kill()
        qemu.wait()
    if result is None:
        tail = "\n".join(lines[-30:])
        raise SystemExit(f"pi_clock: the guest gave no figures; its console's last lines:\n{tail}")
    result["seconds"] = round(time.monotonic() - began, 1)
    return result


# ----- the boot: the box's own SD-card image on the same clock --------------------------------

def boot_image(out: Path | None, verbose: bool, build: bool = True) -> dict[str, Any]:
    """image/build.sh's image with the test agent (as bench/appliance.py builds it, into
    ``out``, by default the image cache's ``pi-clock``; ``build`` False: the one built there
    last) booted from an emulated SD card; the guest's companion-boot-clock.service presses OK
    once the box is READY and prints the figures (image/test-agent/boot_clock.py)."""
    import appliance  # the image's build and its disk helpers (bench/ is on the path)

    out = out or appliance.CACHE / "pi-clock"
    if build:
        log(f"building the SD-card image ({appliance.build_image(out):.0f} s)…")
    test = out / "test"
    with tempfile.TemporaryDirectory(prefix="pi-clock-", dir=appliance.CACHE) as tmp:
        work = Path(tmp)
        image = test / "companion-test.img"
        disk = appliance.copy_disk(image, work / "sd.img", size=sd_card_size(image.stat().st_size))
        initrd = work / "initrd.img"
        with initrd.open("wb") as joined:
            first = (test / "initrd.img").read_bytes()
            # The kernel reads the next archive's header on a 4-byte boundary; zeros between
            # archives are skipped.
            joined.write(first + b"\0" * (-len(first) % 4))
            sd_driver_archive(appliance.extract(disk, 1, work / "root.ext4"), work, joined)
        cmdline = [word for word in (test / "cmdline.txt").read_text().split()
                   if not word.startswith("console=")]
        log("booting the box's image on the emulated Cortex-A53…")
        result = run_guest([*IMAGE_QEMU, "-kernel", str(test / "vmlinuz"), "-initrd", str(initrd),
                            "-append", " ".join([*cmdline, *IMAGE_ARGS]),
                            "-device", "sdhci-pci", "-device", "sd-card,drive=sd",
                            "-drive", f"file={disk},format=raw,if=none,id=sd,cache=unsafe"],
                           "PI-CLOCK-BOOT ", verbose)
    result["boot_host_seconds"] = result.pop("seconds")
    return result


def sd_card_size(size: int) -> int:
    """QEMU's SD card is a power of two in size."""
    return 1 << (size - 1).bit_length()


def sd_driver_archive(root_fs: Path, work: Path, out: BinaryIO) -> None:
    """A newc archive appended to the image's initramfs: the driver of the emulated SD host
    controller (sdhci-pci, which a Pi has no need of, so the image's initramfs lacks it) and
    a conf.d file, which the initramfs's init sources before it looks for the root, loading it."""
    release = re.findall(r"\b\d+\.\d+\.\d+\S*", debugfs(root_fs, "ls /usr/lib/modules"))[-1]
    host = work / "host"
    debugfs(root_fs, f"rdump /usr/lib/modules/{release}/kernel/drivers/mmc/host {work}")
    cpio = Cpio(out)
    cpio.folder("pi-clock")
    order = module_order(host, SD_MODULES)
    for module in order:
        cpio.path(module, f"pi-clock/{module.name}")
    cpio.file("conf/conf.d/pi-clock-sd", "".join(f"insmod /pi-clock/{m.name}\n" for m in order))
    cpio.close()
    root_fs.unlink()


def debugfs(fs: Path, request: str) -> str:
    return subprocess.run(["debugfs", "-R", request, str(fs)], check=True, capture_output=True,
                          text=True).stdout


def with_instructions(guest: dict[str, Any]) -> dict[str, Any]:
    """The guest's figures, each time with the instruction count behind it (1 ns = 1)."""
    exact = guest.pop("ns", {})
    figures: dict[str, Any] = {"clock": "guest instructions, read as ns of a 1 GHz Cortex-A53 "
                                        "(a floor for the real board)"}
    figures.update(guest)
    figures["instructions"] = {key: exact.get(key, round(value * (1e9 if key.endswith("_s") else 1e6)))
                               for key, value in guest.items() if is_time(key, value)}
    return figures


def is_time(key: str, value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and key != "host_seconds" \
        and ("_ms" in key or (key.endswith("_s") and not key.endswith("_per_s")))


def gated(figures: dict[str, Any]) -> dict[str, float]:
    """The figures the gate compares: every time and the idle wake-ups."""
    return {key: value for key, value in figures.items()
            if is_time(key, value) or key == "idle_wakeups_per_s"}


def check(figures: dict[str, Any], baseline: dict[str, Any]) -> list[str]:
    """Each figure more than 10 % over its committed value (or missing)."""
    grown = []
    for key, was in gated(baseline).items():
        now = figures.get(key)
        if now is None:
            grown.append(f"{key}: missing (baseline {was})")
        elif now > was * (1 + GROWTH) and now != was:
            grown.append(f"{key}: {now} > {was} + {GROWTH:.0%}")
    return grown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object on one line")
    parser.add_argument("--quick", action="store_true", help="few samples (the CI gate's run)")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when a figure grew > {GROWTH * 100:.0f} %% over {BASELINE.name}")
    parser.add_argument("--write-baseline", action="store_true", help=f"write {BASELINE.name}")
    parser.add_argument("--only", nargs="+", metavar="SECTION",
                        help="some sections only: the guest's (imports, startup, screens, coach, "
                             "cafe, replay, history) and boot")
    parser.add_argument("--profile", metavar="SECTION", help="cProfile one section in the guest")
    parser.add_argument("--verbose", action="store_true", help="show the guest's console")
    parser.add_argument("--image-dir", type=Path, metavar="DIR",
                        help="where the boot section builds the image (default: the image "
                             "cache's pi-clock folder)")
    parser.add_argument("--no-build", action="store_true",
                        help="the boot section boots the image built last, as it is")
    args = parser.parse_args(argv)
    figures = measure(args.only, args.quick, args.profile, args.verbose, args.image_dir,
                      not args.no_build)
    profile = figures.pop("profile", None)
    if profile:
        print(profile, file=sys.stderr)
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    if args.write_baseline:  # some sections only: their figures replace theirs, the rest stay
        written = {**baseline, **gated(figures)} if args.only else gated(figures)
        BASELINE.write_text(json.dumps(written, indent=1) + "\n", encoding="utf-8")
    if args.check:
        grown = check(figures, {key: value for key, value in baseline.items()
                                if not args.only or key in figures})
        for line in grown:
            log(f"grew: {line}")
        return 1 if grown else 0
    return 0


def measure(only: list[str] | None, quick: bool, profile: str | None, verbose: bool,
            image_dir: Path | None = None, build: bool = True) -> dict[str, Any]:
    """The guest's sections (all, or those of ``only``) and the image's boot, as one set."""
    sections = [name for name in only or [] if name != BOOT]
    guest: dict[str, Any] = {"ns": {}}
    if not only or sections:
        guest = boot(["--quick"] * quick + (["--only", *sections] if sections else [])
                     + (["--profile", profile] if profile else []), verbose)
    if not only or BOOT in only:
        booted = boot_image(image_dir, verbose, build)
        guest["ns"].update(booted.pop("ns"))
        guest.update(booted)
    return with_instructions(guest)

if __name__ == "__main__":
    sys.exit(main())
