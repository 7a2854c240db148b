"""Which roster player is the box's user: the "me" of a BG Stats play file (whose stats the app
shows as the user's, and who the Miams player is when the setup named nobody).

The box asks once, at the first export with players in the roster; Settings → Me changes it,
and so do the phone page's Roster and `companion history roster me`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from companion.records import roster
from companion.ui.widgets import ChoiceScreen

if TYPE_CHECKING:
    from companion.contract.spec import BoxTable

NOBODY = "None of these"


def who_is_me(app: BoxTable) -> tuple[bool, roster.Player | None, list[roster.Player]]:
    """(whether the box asked, the player marked "me", the roster), or RosterError."""
    with roster.connect(app.state_dir) as conn:
        asked, _ = roster.me_row(lambda sql, args: conn.execute(sql, args).fetchall())
        return asked, roster.me(conn), roster.players(conn)


def ask_me(app: BoxTable, then: Callable[[], None]) -> None:
    """Ask who the user is, mark the answer, then ``then()``; without a roster to ask from,
    ``then()`` at once."""
    if app.state_dir is None:
        then()
        return
    try:
        _, me, players = who_is_me(app)
    except roster.RosterError:
        then()  # no roster (an old journal, a disk in trouble): the export goes on without
        return
    if not players:
        then()
        return
    options = [p.name for p in players] + [NOBODY]
    selected = next((i for i, p in enumerate(players) if me is not None and p.id == me.id),
                    len(players))

    def chosen(index: int) -> None:
        try:
            with roster.connect(app.state_dir) as conn:
                roster.set_me(conn, players[index].id if index < len(players) else None)
        except roster.RosterError:
            app.refuse("Cannot save that:\nthe journal refused")
            return
        app.pop()
        then()

    app.push(ChoiceScreen(app, "Who are you?", "You, in BG Stats files:", options, chosen,
                          selected))


def me_label(app: BoxTable) -> str:
    """The Settings line's value: the marked player, "-" for nobody or not asked yet."""
    if app.state_dir is None:
        return "-"
    try:
        _, me, _ = who_is_me(app)
    except roster.RosterError:
        return "-"
    return me.name if me is not None else "-"
