"""Assemble the box: config, state directory, hardware, journal, app.

What the box's first frame needs (the panel) is imported first; the journal, the records and
the app with its games' screens only once that frame is shown (:mod:`.splash`).
"""

from __future__ import annotations

import atexit
import logging
import queue
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.contract import config as config_module

if TYPE_CHECKING:
    from ..journal.check import Finding
    from ..journal.journal import Journal
    from .app import App

log = logging.getLogger(__name__)


def resolve_state_dir(cfg: config_module.Config, state_dir: str | None, sim: bool) -> Path:
    if state_dir:
        return Path(state_dir)
    configured = Path(cfg.state.dir)
    if sim and configured == config_module.DEVICE_STATE_DIR:
        from ..records.history import sim_state_dir

        return sim_state_dir()
    return configured


def build_app(
    cfg: config_module.Config,
    *,
    sim: bool,
    state_dir: str | Path | None = None,
    virtual_clock: bool = False,
    seed: int | None = None,
    journal: bool = True,
    stand_in: Path | None = None,
    splash: bool = False,
) -> App:
    """The whole box on real (``sim=False``) or simulated hardware (``stand_in``: a folder
    where the simulated panel and buttons are files, :class:`hardware.sim.StandIn`);
    ``splash``: the first frame (:mod:`.splash`) as soon as the panel is open."""
    # SimpleQueue: its put is reentrant, so the SIGTERM handler can post while the loop's
    # own get holds the queue (queue.Queue's lock would deadlock the box on stop).
    events: queue.SimpleQueue[Any] = queue.SimpleQueue()
    directory = resolve_state_dir(cfg, str(state_dir) if state_dir else None, sim)
    if sim:
        from hardware import sim as simulated

        hardware = simulated.build(cfg, events.put, virtual_clock=virtual_clock,
                                   stand_in=stand_in)
    else:
        from hardware import device as real

        hardware = real.build(cfg, events.put)
    if splash:
        from .splash import frame

        hardware.display.show(frame())
    try:
        opened, note = open_journal(directory) if journal else (None, None)
    except BaseException:
        hardware.close()
        raise
    from .dice import in_force, radio

    hardware.extras["radio"] = radio(virtual=sim)
    # Paired smart dice (the App connects them) read the table instead of a serial sensor.
    if cfg.sensor.port and not in_force(cfg, opened):
        start_sensor(cfg, hardware, events.put)
    from .app import App

    return App(hardware, events, cfg, opened, journal_note=note, rng=random.Random(seed),
               state_dir=directory)


def open_journal(directory: Path) -> tuple[Journal, Finding | None]:
    """The journal, checked at its opening (its findings logged) and its older finished games
    given their summaries."""
    from ..journal.journal import Journal
    from ..records.store import backfill_journal
    from ..ui.journal_words import finding_text, note_text

    opened, note = Journal.open(directory)
    # A process ended by an exception still runs atexit: there SQLite would remove the WAL
    # while the journal stays marked open, and the next start would say "Log gone".
    atexit.register(opened.close)
    for finding in opened.startup.findings:
        log.warning("journal check: %s", finding_text(finding))
    if note:
        log.warning(note_text(note))
    backfill_journal(opened)  # an older journal's finished games get their summaries
    return opened, note


def start_sensor(cfg: config_module.Config, hardware: Any, post: Any) -> Any:
    """Connect the dice sensor in the background; closing the hardware (at shutdown) stops it.

    The link coalesces its news and posts one wake-up (``SensorNews``) at a time, which the
    loop handles by taking the news: a babbling sensor never grows the queue.
    """
    from firmware_bridge.events import SensorNews
    from firmware_bridge.link import SensorLink

    link = SensorLink(cfg.sensor.port, lambda: post(news), baud=cfg.sensor.baud,
                      accept_v1=cfg.sensor.protocol == 1)
    news = SensorNews(link.take)
    _start_link(link, hardware)
    return link


def _start_link(link: Any, hardware: Any) -> None:
    """Start a dice link; closing the hardware (at shutdown) stops it."""
    link.start()
    hardware.extras["sensor"] = link
    close = hardware.close

    def close_with_sensor() -> None:
        link.stop()
        close()

    hardware.close = close_with_sensor
