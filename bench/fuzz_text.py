"""Fuzz section: text far too long for the screen.

- ``max_frame_ms_long_text``: the slowest frame (CPU time) drawn with a 10,000-character name as
  the title, the hint, a centred line, a list line and a wrapped paragraph, as
  ``bench/bench_display.py`` measures it (aim < 5 ms: the watchdog never waits on a long name).
"""

from __future__ import annotations

from typing import Any

from bench_display import long_text  # beside this file (see fuzz.py)


def run(quick: bool) -> dict[str, Any]:
    """The section's figure: 5 frames for CI, 100 for the campaign."""
    return {"max_frame_ms_long_text": long_text(5 if quick else 100)}
