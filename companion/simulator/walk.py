"""Named screens reached by steps from the home menu: for screenshots and the screen walk.

Steps: ``UP`` ``DOWN`` ``OK`` ``BACK`` ``ACTION`` (short press), the same with ``~`` (long
press, e.g. ``OK~``), ``+N`` (advance the clock N seconds), ``menu:Label`` (move the list
selection to the item starting with Label and press OK), ``game:key`` (open that game's
setup from the home menu), ``seed:examples`` (record the docs/examples games in the journal).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..games.catalog import GAMES
from ..records.store import import_game
from ..ui.widgets import ChoiceScreen, MenuScreen
from .simbox import SimBox

BOX_SCREENS: dict[str, tuple[str, ...]] = {
    "home": (),
    "settings": ("menu:Settings",),
    "settings-sound": ("menu:Settings", "menu:Sound"),
    "settings-contrast": ("menu:Settings", "menu:Contrast"),
    "settings-long-press": ("menu:Settings", "menu:Long press"),
    "settings-dice": ("menu:Settings", "menu:Dice"),
    "settings-sensor": ("menu:Settings", "menu:Dice", "menu:Status"),
    "about": ("menu:About",),
    # History and stats on a journal holding the three docs/examples games.
    "history": ("seed:examples", "menu:History"),
    "history-game": ("seed:examples", "menu:History", "DOWN", "DOWN", "DOWN", "DOWN", "OK"),
    "history-final": ("seed:examples", "menu:History", *("DOWN",) * 4, "OK", "OK"),
    "history-step": ("seed:examples", "menu:History", "DOWN", "DOWN", "DOWN", "OK", "DOWN",
                     "OK", *("OK",) * 5),
    "stats": ("seed:examples", "menu:History", "menu:Stats"),
    "stats-player": ("seed:examples", "menu:History", "menu:Stats", "menu:Ana"),
}


def named_screens() -> dict[str, tuple[str, ...]]:
    """Every named screen: the box's own, each game's stats page, and each game's own
    (prefixed with the game key)."""
    screens = dict(BOX_SCREENS)
    for key, spec in GAMES.items():
        if spec.records.stats is not None:
            screens[f"stats-{key}"] = ("seed:examples", "menu:History", "menu:Stats",
                                       f"menu:{spec.short}")
    for key, spec in GAMES.items():
        for name, steps in spec.screens.walk.items():
            screens[f"{key}-{name}"] = steps
    return screens


def run_steps(box: SimBox, steps: tuple[str, ...]) -> None:
    """Carry out walk steps on a simulated box; ValueError on a step that cannot be done."""
    for step in steps:
        if step.startswith("+"):
            box.advance(float(step[1:]))
        elif step.startswith("menu:"):
            _pick(box, step[5:])
        elif step == "seed:examples":
            seed_examples(box)
        elif step.startswith("game:"):
            spec = GAMES[step[5:]]
            box.app.table.push(spec.screens.new_game(box.app.table))
            box.app.pump()
        elif step.endswith("~"):
            box.press(step[:-1], long=True)
        else:
            box.press(step)


def seed_examples(box: SimBox) -> None:
    """Record each game's example of docs/examples in the box's journal, as `companion history
    import` does."""
    folder = Path(__file__).resolve().parents[2] / "docs" / "examples"
    journal = box.app.play.journal
    if journal is None:
        raise ValueError("seed:examples: the box has no journal")
    for spec in GAMES.values():
        if spec.screens.example is None:
            continue
        lines = (folder / spec.screens.example.file).read_text(encoding="utf-8").split("\n")
        actions = [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]
        import_game(journal, spec, actions, spec.rules.replay(actions), spec.screens.example.played_at,
                    spec.screens.example.minutes * 60)
    box.app.stack.screens[0].on_enter()


def _pick(box: SimBox, label: str) -> None:
    screen = box.screen
    if isinstance(screen, MenuScreen):
        labels = [item.label for item in screen.items]
    elif isinstance(screen, ChoiceScreen):
        labels = screen.options
    else:
        raise ValueError(f"menu:{label}: {screen.name()} is not a list")
    targets = [i for i, text in enumerate(labels) if text.startswith(label)]
    if not targets:
        raise ValueError(f"menu:{label}: no such item in {screen.title!r}")
    # The first such item at or below the selection, else the first above it.
    target = min(targets, key=lambda i: (i < screen.selected, i))
    for _ in range(abs(target - screen.selected)):
        box.press("DOWN" if target > screen.selected else "UP")
    box.press("OK")
