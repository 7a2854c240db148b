"""``python -m companion.web``: ``companion web`` without loading the other commands (the
service runs this, to keep the page's memory small)."""

import argparse
import logging
import sys

from companion.web.command import DESCRIPTION, add_arguments, handle

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s",
                    stream=sys.stderr)
parser = argparse.ArgumentParser(prog="companion web", description=DESCRIPTION)
add_arguments(parser)
sys.exit(handle(parser.parse_args()))
