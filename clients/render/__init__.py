"""Text rendering of a room document for the terminal clients (rich).

Each engine has a renderer module here; any other engine's view is shown as
pretty-printed data, so ``play`` and ``spectate`` work for every engine.

**Names are data.** A seat's name is whatever a player typed: it may hold
rich markup (``[/]`` makes rich raise, ``[bold]`` restyles) or terminal escape
sequences. The dispatcher hands every renderer a document whose ``seats`` are
already safe *as markup*: control characters removed and markup escaped, so a
renderer may put them in strings that rich reads as markup (table cells and
titles, ``console.print``). To put a name in a :class:`~rich.text.Text`, which
is not read as markup, build it with :func:`safe_name` from the raw name, or
with ``Text.from_markup`` from the escaped one.

``LEGENDS`` maps an engine id to a function returning the key to its notation
(letters, symbols, columns); the terminal client shows it on ``?``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.pretty import Pretty
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from clients.render.chartered import render_chartered
from clients.render.crystal_palace import render_crystal_palace
from clients.render.sintra import render_sintra
from clients.render.turn_relay import render_turn_relay
from engines import ENGINES

Renderer = Callable[[dict[str, Any], int | None], RenderableType]

RENDERERS: dict[str, Renderer] = {
    "sintra": render_sintra,
    "chartered": render_chartered,
    "crystal-palace": render_crystal_palace,
    "turn-relay": render_turn_relay,
}

LEGENDS: dict[str, Callable[[], RenderableType]] = {}
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


def _safe_doc(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with markup-safe seat names (see the module docstring)."""
    seats = [None if name is None else markup_name(name) for name in doc["seats"]]
    return {**doc, "seats": seats}


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


def board(engine: str, doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The whole board: a rule naming the game, then the game (or the waiting room)."""
    rule = Rule(Text(f"{title(engine)} · {doc['status']}"))
    if doc["game"] is None:
        return Group(rule, _waiting(doc, seat))
    renderer = RENDERERS.get(engine)
    drawn = renderer(_safe_doc(doc), seat) if renderer else Pretty(doc["game"])
    return Group(rule, drawn)


def render(console: Console, engine: str, doc: dict[str, Any], seat: int | None) -> None:
    """Print :func:`board`."""
    console.print(board(engine, doc, seat))
