"""Text rendering of a room document for the terminal clients (rich).

Each engine has a renderer module here; any other engine's view is shown as
pretty-printed data, so ``play`` and ``spectate`` work for every engine.

**Names are data.** A seat's name is whatever a player typed: it may hold
rich markup (``[/]`` makes rich raise, ``[bold]`` restyles) or terminal escape
sequences. The dispatcher hands renderers names without control characters
(no escape sequence reaches a terminal); a renderer puts them in a
:class:`~rich.text.Text` (``Text(name)`` or :func:`safe_name`), never in a
string rich reads as markup (a ``str`` table cell or title, an f-string given
to ``console.print``) — or escapes them there with :func:`markup_name`. As a
last resort, :func:`lines` draws a board whose markup breaks on a name again
with escaped names, so a renderer that forgets cannot crash a client.

``LEGENDS`` maps an engine id to a function returning the key to its notation
(letters, symbols, columns); the terminal client shows it on ``?``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.errors import MarkupError
from rich.markup import escape
from rich.pretty import Pretty
from rich.rule import Rule
from rich.segment import Segment, Segments
from rich.table import Table
from rich.text import Text

from clients.render.chartered import legend_chartered, render_chartered
from clients.render.crystal_palace import legend_crystal_palace, render_crystal_palace
from clients.render.sintra import render_sintra, sintra_legend
from clients.render.turn_relay import render_turn_relay
from engines import ENGINES

Renderer = Callable[[dict[str, Any], int | None], RenderableType]

RENDERERS: dict[str, Renderer] = {
    "sintra": render_sintra,
    "chartered": render_chartered,
    "crystal-palace": render_crystal_palace,
    "turn-relay": render_turn_relay,
}

LEGENDS: dict[str, Callable[[], RenderableType]] = {
    "sintra": sintra_legend,
    "chartered": legend_chartered,
    "crystal-palace": legend_crystal_palace,
}
"""Engine id → the key to its notation on screen (shown on ``?`` at the move prompt)."""


def clean(text: str) -> str:
    """``text`` without control and format characters (escape sequences, newlines,
    bidirectional overrides): what is left prints as itself."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


def safe_name(name: str) -> Text:
    """A player's name as a :class:`Text`: printed as typed, never read as markup."""
    return Text(clean(name))


def markup_name(name: str) -> str:
    """A player's name for a string rich reads as markup."""
    return escape(clean(name))


def _named(doc: dict[str, Any], markup: bool) -> dict[str, Any]:
    """The document with printable seat names, escaped as markup if ``markup``."""
    safe = markup_name if markup else clean
    return {**doc, "seats": [None if name is None else safe(name) for name in doc["seats"]]}


def _waiting(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """Who sits where while the room fills up; seats counted from 1."""
    table = Table.grid(padding=(0, 2))
    for i, name in enumerate(doc["seats"]):
        who = safe_name(name) if name is not None else Text("free", style="dim")
        if i == seat:
            who.append(" (you)")
        table.add_row(Text(f"seat {i + 1}"), who)
    taken = sum(name is not None for name in doc["seats"])
    head = Text(f"Waiting for players: {taken} of {len(doc['seats'])} seats taken.")
    return Group(head, table)


def title(engine: str) -> str:
    """The game's title, or the engine id of an engine this client does not know."""
    known = ENGINES.get(engine)
    return known.title if known else engine


def board(
    engine: str, doc: dict[str, Any], seat: int | None, markup_names: bool = False
) -> RenderableType:
    """The whole board: a rule naming the game, then the game (or the waiting room).
    The renderer gets printable names, escaped as markup if ``markup_names``."""
    rule = Rule(Text(f"{title(engine)} · {doc['status']}"))
    if doc["game"] is None:
        return Group(rule, _waiting(doc, seat))
    renderer = RENDERERS.get(engine)
    drawn = renderer(_named(doc, markup_names), seat) if renderer else Pretty(doc["game"])
    return Group(rule, drawn)


def lines(
    console: Console, engine: str, doc: dict[str, Any], seat: int | None
) -> list[list[Segment]]:
    """:func:`board` rendered for ``console``, line by line; drawn again with escaped
    names if a renderer put a name in markup and rich could not read it."""
    try:
        return console.render_lines(board(engine, doc, seat), pad=False)
    except MarkupError:
        return console.render_lines(board(engine, doc, seat, markup_names=True), pad=False)


def as_printed(rendered: list[list[Segment]]) -> Segments:
    """Lines from :func:`lines`, ready for ``console.print``."""
    return Segments([segment for line in rendered for segment in (*line, Segment.line())])


def render(console: Console, engine: str, doc: dict[str, Any], seat: int | None) -> None:
    """Print the board."""
    console.print(as_printed(lines(console, engine, doc, seat)))
