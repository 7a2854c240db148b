"""What the updater left for the box's owner to read: a release set aside after its installs
were cut off, and the messages of the last update a cut interrupted (the system's journal,
kept in memory on the image, lost them)."""

from __future__ import annotations

from pathlib import Path

from companion.contract.facts import WARN, Finding

from ..appliance.slots import CUT_LOG_NAME, PREFIX, SET_ASIDE, SPOOL, cut_log, set_aside_releases

CUT_LOG_LINES = 40  # the end of it: a run says a dozen lines


def check_updates(spool: Path = SPOOL, prefix: Path = PREFIX) -> list[Finding]:
    """A finding per release set aside, and one with the cut update's messages, if kept."""
    found = [Finding("update", WARN, f"{path.name.removesuffix(SET_ASIDE)} was not installed: its "
                     f"install was cut off twice (the power, or a restart), so it is set aside "
                     f"as {path}",
                     "check the power supply (a weak one fails while an update builds), then "
                     f"hand the file over again (phone page: Update), or run `sudo mv {path} "
                     f"{spool / path.name.removesuffix(SET_ASIDE)}`; a release handed over "
                     "later removes it")
             for path in set_aside_releases(spool)]
    lines = cut_log(prefix)
    if lines:
        shown = "\n".join(" " * 15 + line for line in lines[-CUT_LOG_LINES:])
        found.append(Finding("update", WARN, "the last update was cut off (the power, or a "
                             "restart): nothing to do if the first line says the version you "
                             "want (the updater went back, or took the release up again); if "
                             "cuts repeat, check the power supply. Its messages until then and "
                             f"the boot's check's ({prefix / CUT_LOG_NAME}):\n{shown}"))
    return found
