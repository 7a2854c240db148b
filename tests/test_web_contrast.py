"""The phone page's colours, light and dark, computed from its stylesheet (WCAG 2 relative
luminance): every text at least 4.5:1 against what it sits on, every control's edge 3:1.

Before: dark-mode buttons were white on #f08a5d (2.47:1) and input borders 1.36:1.
"""

from __future__ import annotations

import re

import pytest

from tests.test_history import ROOT

CSS = (ROOT / "companion" / "web" / "static" / "app.css").read_text(encoding="utf-8")

# (foreground, background) of every text the stylesheet draws.
TEXT = [("fg", "bg"), ("quiet", "bg"), ("accent", "bg"), ("bad", "bg"), ("ok", "bg"),
        ("on-accent", "accent"), ("fg", "accent-bg"), ("quiet", "accent-bg"),
        ("accent", "accent-bg")]
# (edge, background) of every control: inputs' and buttons' borders, focus rings, the turn marker.
CONTROLS = [("control", "bg"), ("accent", "bg"), ("control", "accent-bg")]


def palette(scheme: str) -> dict[str, str]:
    light = re.search(r":root \{(.*?)\}", CSS, re.S).group(1)
    colours = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6})", light))
    if scheme == "dark":
        dark = re.search(r"prefers-color-scheme: dark\) \{\s*:root \{(.*?)\}", CSS, re.S).group(1)
        colours |= dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6})", dark))
    return colours


def luminance(colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(colour[i:i + 2], 16) / 255) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_ratio_is_wcags():
    assert ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert ratio("#ffffff", "#f08a5d") == pytest.approx(2.47, abs=0.01)     # the old button
    assert ratio("#ddd8cf", "#fbfaf7") < 3                                  # the old borders


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_and_control_is_readable(scheme):
    colours = palette(scheme)
    low = {f"{fg} on {bg}": round(ratio(colours[fg], colours[bg]), 2) for fg, bg in TEXT
           if ratio(colours[fg], colours[bg]) < 4.5}
    low |= {f"{edge} on {bg}": round(ratio(colours[edge], colours[bg]), 2)
            for edge, bg in CONTROLS if ratio(colours[edge], colours[bg]) < 3.0}
    assert not low, f"{scheme}: {low}"


def test_controls_are_drawn_with_the_control_colour_and_no_colour_is_written_inline():
    rule = re.search(r"input, select, button \{([^}]*)\}", CSS).group(1)
    assert "var(--control)" in rule
    button = re.search(r"\nbutton \{([^}]*)\}", CSS).group(1)
    assert "var(--on-accent)" in button
    outside = re.sub(r":root \{.*?\}", "", CSS, flags=re.S)
    assert not re.findall(r"#[0-9a-f]{3,6}\b", outside), "a colour outside the palette"
