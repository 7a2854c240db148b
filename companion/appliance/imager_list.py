"""The image's entry for Raspberry Pi Imager: a repository file in Imager's ``os_list`` format
(its ``doc/json-schema/os-list-schema.json``), written by ``image/build.sh`` beside
``companion.img.xz``.

Opened in Imager (double-click the ``.rpi-imager-manifest`` file, or ``rpi-imager --repo FILE``,
or App Options → Content Repository → Use custom file), it lists the box with its sizes and
hashes, and ``"init_format": "cloudinit"`` tells Imager how this image takes its customisation
dialog's settings: the cloud-init files first boot reads (:mod:`.imager`). Without such an
entry Imager writes a local image as it is and offers no customisation.

    python -m companion.appliance.imager_list IMG XZ --out FILE [--url BASE] [--date YYYY-MM-DD]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .release import sha256

NAME = "Table Companion"
DESCRIPTION = ("The dice-game referee box: Makan Mania, 3 Minute Crazy Café and solo Miams, "
               "on a Raspberry Pi with five buttons and an OLED")
# Imager's device tags for the 64-bit boards Debian 12's kernel boots (Zero 2 W, 3, 3+, 4, 400):
# Imager files the Zero 2 W with the Pi 3.
DEVICES = ["pi4-64bit", "pi3-64bit"]
ICON_NAME = "companion.svg"
# A die showing five, in the box's own black and white: Imager shows it in its list.
ICON = """<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">
<rect x="2" y="2" width="36" height="36" rx="6" fill="#000"/>
<g fill="#fff"><circle cx="11" cy="11" r="4"/><circle cx="29" cy="11" r="4"/>
<circle cx="20" cy="20" r="4"/><circle cx="11" cy="29" r="4"/><circle cx="29" cy="29" r="4"/></g>
</svg>
"""


def entry(image: Path, compressed: Path, base: str, date: str) -> dict[str, object]:
    """The image's ``os_list`` entry: where Imager downloads it and what it checks it against."""
    return {
        "name": NAME,
        "description": DESCRIPTION,
        "url": f"{base}{compressed.name}",
        "icon": f"{base}{ICON_NAME}",
        "release_date": date,
        "extract_size": image.stat().st_size,
        "extract_sha256": sha256(image),
        "image_download_size": compressed.stat().st_size,
        "image_download_sha256": sha256(compressed),
        "devices": DEVICES,
        "init_format": "cloudinit",
        "architecture": "armv8",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.appliance.imager_list",
                                     description="Write Raspberry Pi Imager's repository file "
                                     "for the built image.")
    parser.add_argument("image", type=Path, help="companion.img")
    parser.add_argument("compressed", type=Path, help="companion.img.xz")
    parser.add_argument("--out", type=Path, required=True, help="the .rpi-imager-manifest to write")
    parser.add_argument("--url", default="", help="where the files will be published (a URL "
                        "ending in /); default: this folder, as file:// addresses")
    parser.add_argument("--date", default="", help="release date, YYYY-MM-DD")
    args = parser.parse_args(argv)
    base = args.url or args.compressed.resolve().parent.as_uri() + "/"
    (args.out.parent / ICON_NAME).write_text(ICON)
    listing = {"os_list": [entry(args.image, args.compressed, base, args.date)]}
    args.out.write_text(json.dumps(listing, indent=2) + "\n")
    print(f"{args.out}: {NAME}, {args.compressed.name} ({args.compressed.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
