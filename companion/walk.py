"""Named screens reached by steps from the home menu: for screenshots and the screen walk.

Steps: ``UP`` ``DOWN`` ``OK`` ``BACK`` ``ACTION`` (short press), the same with ``~`` (long
press, e.g. ``OK~``), ``+N`` (advance the clock N seconds), ``menu:Label`` (move the list
selection to the item starting with Label and press OK), ``game:key`` (open that game's
setup from the home menu).
"""

from __future__ import annotations

from .games.catalog import GAMES
from .simbox import SimBox
from .ui.widgets import ChoiceScreen, MenuScreen

BOX_SCREENS: dict[str, tuple[str, ...]] = {
    "home": (),
    "settings": ("menu:Settings",),
    "settings-sound": ("menu:Settings", "menu:Sound"),
    "settings-contrast": ("menu:Settings", "menu:Contrast"),
    "settings-long-press": ("menu:Settings", "menu:Long press"),
    "settings-sensor": ("menu:Settings", "menu:Dice sensor"),
    "about": ("menu:About",),
}


def named_screens() -> dict[str, tuple[str, ...]]:
    """Every named screen: the box's own and each game's (prefixed with the game key)."""
    screens = dict(BOX_SCREENS)
    for key, spec in GAMES.items():
        for name, steps in spec.walk.items():
            screens[f"{key}-{name}"] = steps
    return screens


def run_steps(box: SimBox, steps: tuple[str, ...]) -> None:
    """Carry out walk steps on a simulated box; ValueError on a step that cannot be done."""
    for step in steps:
        if step.startswith("+"):
            box.advance(float(step[1:]))
        elif step.startswith("menu:"):
            _pick(box, step[5:])
        elif step.startswith("game:"):
            spec = GAMES[step[5:]]
            box.app.push(spec.new_game(box.app))
            box.app.pump()
        elif step.endswith("~"):
            box.press(step[:-1], long=True)
        else:
            box.press(step)


def _pick(box: SimBox, label: str) -> None:
    screen = box.screen
    if isinstance(screen, MenuScreen):
        labels = [item.label for item in screen.items]
    elif isinstance(screen, ChoiceScreen):
        labels = screen.options
    else:
        raise ValueError(f"menu:{label}: {screen.name()} is not a list")
    for _ in range(len(labels)):
        if labels[screen.selected].startswith(label):
            box.press("OK")
            return
        box.press("DOWN")
    raise ValueError(f"menu:{label}: no such item in {screen.title!r}")
