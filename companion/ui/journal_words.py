"""The journal's facts in words: its health for About, the title bar's notices and the last
frame, and what the start-up check found, for the log and the one line shown at start.

The journal (``companion/journal/``) says what happened; this module says it to people."""

from __future__ import annotations

from companion.journal.check import Finding, Found, StartupReport
from companion.journal.health import JournalStatus, Notice

from .words import first_upper, plural

# Where a spare is, as a short line of the screen says it.
SHORT_PLACES = {"boot partition": "boot disk"}
# The files of a kept folder, as the About screen names them.
KEPT_WORDS = {"": "db", "-wal": "WAL", "-shm": "shm"}


def status_text(status: JournalStatus) -> str:
    """``ok``, or e.g. ``disk full: 26 held`` (short enough for an About line)."""
    return "ok" if status.ok else f"{status.reason}: {status.held} held"


def kept_words(status: JournalStatus) -> str:
    """Where held play is, in a few words for the screen: "play on USB stick"."""
    if not status.kept_on:
        return "play kept in memory"
    if status.volatile:
        return "play in RAM only"
    return f"play on {SHORT_PLACES.get(status.kept_on, status.kept_on)}"


def notice_lines(notice: Notice) -> tuple[str, str]:
    """The toast's two lines: "Disk full:" / "play kept in memory", "Journal back:" / "7 actions saved"."""
    if notice.error and notice.status is not None:
        return f"{first_upper(notice.status.reason)}:", kept_words(notice.status)
    return "Journal back:", f"{plural(notice.saved, 'action')} saved" if notice.saved else "writing again"


def saved_words(status: JournalStatus | None) -> str:
    """What the last frame before power-off says about the games: saved, or where the play
    the disk refused is ("kept on the USB stick for the next start", "lost")."""
    if status is None or status.ok:
        return "Games are saved."
    held = plural(status.held, "action")
    if not status.kept_on:
        return f"Not saved: {status.reason}, {held} lost"
    if status.volatile:
        return f"{first_upper(status.reason)}: {held} in RAM only, lost at power-off"
    return f"{first_upper(status.reason)}: {held} kept on the {status.kept_on}, back at next start"


def kept_text(report: StartupReport) -> str | None:
    """The file a damaged journal was kept as, with what it holds when it is a folder:
    "bad-1130-1538/: db, WAL, shm"."""
    files = ", ".join(KEPT_WORDS.get(name.rpartition(".db")[2], name) for name in report.kept_files)
    return f"{report.kept}: {files}" if files else report.kept


def past(label: str) -> str:
    """"after round 2" for a save point's name; a name that already says it ("after round 2",
    the scoreboard stage of Makan Mania) is not given a second "after"."""
    return label if label.startswith("after ") else f"after {label}"


def finding_text(finding: Finding) -> str:
    """The finding in a sentence, for the log."""
    f = finding
    after = past(f.checkpoint) if f.checkpoint else "since the last save point"
    match f.kind:
        case Found.NO_STATE_DIR:
            return f"cannot create {f.file} ({f.error}): play is kept in memory"
        case Found.EMPTY_READ_BACK:
            return f"{f.file} was empty (0 bytes); its games were read back from its WAL"
        case Found.EMPTY_NEW:
            return f"{f.file} was empty (0 bytes): its games are gone; a new journal was started"
        case Found.DAMAGED_STUCK:
            return (f"{f.file} is damaged ({f.error}) and could not be moved aside ({f.reason}): "
                    "play is kept in memory")
        case Found.DAMAGED_KEPT:
            return f"{f.file} was damaged ({f.error}); kept as {f.kept}, a new journal was started"
        case Found.NOT_WRITABLE:
            kept = "its saved games can be resumed" if f.readable else "it cannot be read"
            return (f"{f.file} cannot be written ({f.error}); {kept}, new play is kept in memory "
                    "and written when it can be")
        case Found.COPIED:
            return (f"the journal files as the last run left them ({', '.join(f.files)}) were "
                    f"copied before the check to {f.kept}")
        case Found.WAL_CUT:
            return (f"journal.db-wal was cut or damaged: {_lost(f)} played "
                    f"{past(f.checkpoint or 'the last save point')} lost; everything before the "
                    "damage was kept")
        case Found.WAL_DAMAGED:
            return f"journal.db-wal is damaged and was not read: actions {after} may be lost"
        case Found.WAL_MISSING:
            return f"journal.db-wal is missing after an unclean stop: actions {after} may be lost"
        case Found.SPARE_UNREADABLE:
            return (f"the spare journal on the {f.place} ({f.file}) could not be read ({f.error});"
                    " it was left where it is")
        case Found.SPARE_BACK:
            return (f"the disk failed in the last run: {plural(f.count, 'action')} held on the "
                    f"{f.place} were written back")
        case Found.SPARE_KEPT:
            return (f"a spare journal on the {f.place} holds play the journal does not, but the "
                    f"journal changed since it was copied; kept as {f.kept}")


def note_text(finding: Finding) -> str:
    """The finding in the one short line the screen shows at start (a finding the check does
    not tell at start is said as the log says it)."""
    f = finding
    play = f"play {past(f.checkpoint)}" if f.checkpoint else "recent play"
    match f.kind:
        case Found.NO_STATE_DIR:
            return "No state dir: play kept in memory"
        case Found.EMPTY_NEW:
            return "Empty journal file: new one started"
        case Found.DAMAGED_STUCK:
            return "Journal damaged: play kept in memory"
        case Found.DAMAGED_KEPT:
            return f"Journal damaged, kept as {f.kept}"
        case Found.NOT_WRITABLE:
            return f"{first_upper(f.reason)}: play kept in memory"
        case Found.WAL_CUT:
            return f"Journal cut: {_lost(f)} lost"
        case Found.WAL_DAMAGED:
            return f"Log bad: {play} may be lost"
        case Found.WAL_MISSING:
            return f"Log gone: {play} may be lost"
        case Found.SPARE_UNREADABLE:
            return f"Spare on {f.place} unreadable"
        case Found.SPARE_BACK:
            return f"Disk failed before: {plural(f.count, 'action')} back"
        case Found.SPARE_KEPT:
            return f"Spare kept as {f.kept}"
        case _:
            return first_upper(finding_text(finding))


def _lost(finding: Finding) -> str:
    return f"at least {plural(finding.count, 'action')}"
