"""Building a slot: a venv with every locked dependency, hash-checked, then the program.

The one builder of the slots ``/opt/companion/slots/a``, ``b`` and ``c``:
``systemd/install.sh`` (a Pi, or the SD-card image's root through chroot) and ``companion
update`` both call it. It imports nothing
outside Python's standard library, so the system's ``python3`` runs it from the source tree
before any venv exists::

    python3 -m companion.appliance.slotbuild /opt/companion/slots/a --lock requirements.lock \\
        --wheels DIR [--root DIR]

With ``--wheels`` pip runs offline (``--no-index``) from that directory; without it, from the
package index. Either way every dependency is a wheel whose hash the lock lists; the slot keeps
the lock it was built from (``requirements.lock`` in the slot). ``--plugins DIR``: the game
plugins kept on the box go in too, each only if the new version takes it (:mod:`.plugins`).
"""

from __future__ import annotations

import argparse
import functools
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from . import plugins as plugins_module
from .lockfile import LOCK_NAME, LockError, for_slot
from .slots import plugins_left_out

PROGRAM = "table-companion"
# A chroot's commands see nothing of this machine's Python or pip settings.
CLEAN_ENV = ("env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C.UTF-8")


class BuildUserError(Exception):
    """The user a slot is to be built as does not exist."""


def _account(user: str | None) -> pwd.struct_passwd | None:
    if user is None or os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(user)
    except KeyError:
        raise BuildUserError(f"the user {user!r} that builds an update does not exist: "
                             "reinstall with systemd/install.sh") from None


def as_user(user: str | None) -> list[str]:
    """The command prefix that runs as ``user``, without new privileges (nothing when not
    root, or no user)."""
    account = _account(user)
    if account is None:
        return []
    return ["setpriv", f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}",
            "--init-groups", "--no-new-privs", "--reset-env", "--"]


def as_build_user(user: str | None, slot: Path) -> list[str]:
    """:func:`as_user`, with the slot made theirs (the unpacked release must be readable to
    them)."""
    account = _account(user)
    if account is not None:
        os.chown(slot, account.pw_uid, account.pw_gid)
    return as_user(user)


def build_slot(slot: Path, wheels: Path | None, lock: Path, python: str = "python3", *,
               program: str = PROGRAM, plugins: Path | None = None,
               system_site_packages: bool = True, user: str | None = None,
               root: Path | None = None) -> dict[str, str]:
    """A new venv in ``slot`` with the locked dependencies (wheels only, every hash checked),
    then ``program`` (a name found among the wheels, or a source folder without them), then
    the game plugins whose wheels are kept in ``plugins`` (:mod:`.plugins`). Returns the
    plugins left out, with why: the slot is built without them.

    ``wheels`` None: from the package index. ``root``: the slot, ``wheels`` and ``python`` are
    paths inside that root filesystem, built through chroot (its own Python, under
    qemu-user-static for another architecture). ``user``: run as root, the venv and pip run as
    that user (a ``.pth`` file in a wheel runs at every start of the slot's Python, pip's own
    included), and the slot is given to root once built, so the box running from it cannot
    change it. ``lock`` is read here, outside any root. With the system's site packages, lgpio
    (built from source, ``lockfile.SOURCE_ONLY``) is the system's copy, shared by every slot."""
    def outside_of(path: Path) -> Path:
        return path if root is None else root / path.relative_to("/")

    outside = outside_of(slot)
    shutil.rmtree(outside, ignore_errors=True)
    outside.mkdir(parents=True)
    # Written before the slot is the build user's: root never writes into a folder of theirs.
    for_slot(lock, outside / LOCK_NAME)
    prefix = [*CLEAN_ENV, "chroot", str(root)] if root is not None else as_build_user(user, outside)
    # Nothing of the caller's Python (PYTHONPATH: the source tree it was run from) reaches the
    # slot's pip, nor its folder: `python -m pip` looks for installed packages there too.
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
    run = functools.partial(subprocess.run, check=True, cwd="/", env=env)
    python_in_slot = [*prefix, str(slot / "bin" / "python")]
    run([*prefix, python, "-m", "venv", str(slot),
         *(["--system-site-packages"] if system_site_packages else [])])
    pip = [*python_in_slot, "-m", "pip", "--disable-pip-version-check",
           "--no-cache-dir", "-q", "install"]
    if wheels is not None:
        pip += ["--isolated", "--no-index", "--find-links", str(wheels)]  # whatever pip.conf says
    run([*pip, "--only-binary", ":all:", "--require-hashes", "-r", str(slot / LOCK_NAME)])
    # The program last, reinstalled: pip writes its .pyc files, which the service could not.
    run([*pip, *(["--only-binary", ":all:"] if wheels is not None else []),
         "--no-deps", "--force-reinstall", program])
    kept = sorted(outside_of(plugins).glob("*.whl")) if plugins is not None else []
    record = plugins_module.carry(
        python_in_slot, [(here, str(plugins / here.name)) for here in kept],
        [str(link) for link in (plugins, wheels) if link is not None],
        functools.partial(subprocess.run, cwd="/", env=env, capture_output=True, text=True),
    ) if plugins is not None and kept else None
    if prefix and root is None:
        run(["chown", "-R", "--no-dereference", "0:0", str(outside)])
    if record is None:
        return {}
    plugins_module.write_record(outside, record)  # once the slot is root's alone
    return plugins_left_out(outside)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m companion.appliance.slotbuild",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("slot", type=Path, help="the slot's folder (replaced)")
    parser.add_argument("--lock", type=Path, required=True, help="the requirements.lock to install")
    parser.add_argument("--wheels", type=Path, help="install offline from this wheel folder")
    parser.add_argument("--program", default=PROGRAM,
                        help="the program: its name among the wheels, or a source folder")
    parser.add_argument("--plugins", type=Path,
                        help="install the game plugins whose wheels are kept in this folder")
    parser.add_argument("--root", type=Path, help="build inside this root filesystem (chroot)")
    parser.add_argument("--python", default="python3", help="the Python the venv is made from")
    args = parser.parse_args(argv)
    if args.root is None:  # the build runs from "/": paths given from here
        args.slot = args.slot.absolute()
        args.wheels = args.wheels and args.wheels.absolute()
    if Path(args.program).exists():
        args.program = str(Path(args.program).absolute())
    try:
        left = build_slot(args.slot, args.wheels, args.lock, args.python, program=args.program,
                          plugins=args.plugins, root=args.root)
    except (OSError, LockError) as exc:
        print(f"slotbuild: {exc}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as exc:
        print(f"slotbuild: {args.slot} was not built ({exc})", file=sys.stderr)
        return 1
    for name, why in left.items():
        print(f"slotbuild: plugin {name} left out: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
