"""Words the screens share: one way to count things, so no screen says "1 coins".

Pure: importing it loads no font, so the rules and the phone page can use it."""

from __future__ import annotations

from companion.contract.facts import Line, PlayerRecord

# Nouns whose plural is not the singular plus "s".
_IRREGULAR = {"die": "dice", "dice": "dice", "person": "people"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` with its noun in the right number: "1 coin", "2 coins", "0 dice", "1 die"."""
    return f"{count} {noun_for(count, noun, many)}"


def noun_for(count: int, noun: str, many: str | None = None) -> str:
    """The noun alone in the number ``count`` asks for, for a count drawn apart from it."""
    return noun if count == 1 else many or _IRREGULAR.get(noun, noun + "s")


def first_upper(text: str) -> str:
    """``text`` with its first letter a capital and the rest as written: "I/O error", where
    ``str.capitalize`` would lower the rest ("I/o error")."""
    return text[:1].upper() + text[1:]


def rate(wins: int, games: int) -> str:
    """ "1 of 4 (25%)": wins and the win rate, whole percent, for a row labelled "won"."""
    return f"{wins} of {games} ({round(100 * wins / games) if games else 0}%)"


def played(label: str, games: int, wins: int, indent: str = "  ") -> list[Line]:
    """Two labelled rows: how many games, then how many were won."""
    return [Line(label, plural(games, "game")), Line(f"{indent}won", rate(wins, games))]


def player_lines(record: PlayerRecord, titles: dict[str, str]) -> list[Line]:
    """A player's games, wins, win rate and best score, in all and per game (named as
    ``titles`` names them)."""
    lines = played("All games", record.games, record.wins)
    for game in record.per_game:
        lines += played(titles.get(game.game, game.game), game.games, game.wins)
        if game.best is not None:
            lines.append(Line("  best score", str(game.best)))
        lines += game.more
    return lines


def ordinal(number: int) -> str:
    """A place in words a table cannot take for a value: "1st", "2nd", "3rd", "11th", "22nd"."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{({1: 'st', 2: 'nd', 3: 'rd'}).get(number % 10, 'th')}"
