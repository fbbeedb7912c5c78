"""Text rendering of a room document for the terminal clients (rich).

Each game draws its board in its own folder, ``engines/<game>/render.py``
(``render(doc, seat)``, and ``legend()``, the key to its notation, shown on
``?``); this module finds them through the engine registry. An engine without
one is shown as pretty-printed data, so ``play`` and ``spectate`` work for
every engine, also one this copy of tablewire does not know (a newer server's):
that one is named by the server's title for it (the ``welcome``'s), and a line
above its data says why no board is drawn and how to get one (:func:`stranger`).

**Names are data** (see :mod:`engines.render`). The dispatcher hands renderers
names without control characters (no escape sequence reaches a terminal); as
a last resort, :func:`lines` draws a board whose markup breaks on a name again
with escaped names, so a renderer that forgets cannot crash a client.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.errors import MarkupError
from rich.pretty import Pretty
from rich.rule import Rule
from rich.segment import Segment, Segments
from rich.table import Table
from rich.text import Text

import engines
from engines import ENGINES
from engines.render import clean, markup_name, safe_name

Renderer = Callable[[dict[str, Any], int | None], RenderableType]
Legend = Callable[[], RenderableType]


def renderer(engine: str) -> Renderer | None:
    """The board renderer of ``engine``'s folder (None: none, or an unknown engine)."""
    module = engines.part(engine, "render") if engine in engines.PACKAGES else None
    found: Renderer | None = getattr(module, "render", None)
    return found


def legend_of(engine: str) -> Legend | None:
    """The key to ``engine``'s notation on screen (shown on ``?`` at the move prompt)."""
    module = engines.part(engine, "render") if engine in engines.PACKAGES else None
    found: Legend | None = getattr(module, "legend", None)
    return found


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


def title(engine: str, told: str | None = None) -> str:
    """The game's title: this client's, else the server's (``told``, the ``welcome``'s
    ``title``) for an engine this client does not know, else its id."""
    known = ENGINES.get(engine)
    if known is not None:
        return known.title
    return (clean(told).strip() or engine) if isinstance(told, str) else engine


def stranger(engine: str, told: str | None = None) -> str:
    """Why a game this copy of tablewire does not know has no board drawn, and the way to
    one: its game folder comes with the server's version of tablewire."""
    version = importlib.metadata.version("tablewire")
    return (
        f"This copy of tablewire ({version}) does not know {title(engine, told)} "
        f"({clean(engine)}), so it cannot draw its board and shows the server's data: "
        "install the server's version of tablewire to see it drawn."
    )


def board(
    engine: str,
    doc: dict[str, Any],
    seat: int | None,
    markup_names: bool = False,
    told: str | None = None,
) -> RenderableType:
    """The whole board: a rule naming the game (``told``: the server's title for it),
    then the game (or the waiting room). The renderer gets printable names, escaped as
    markup if ``markup_names``."""
    rule = Rule(Text(f"{title(engine, told)} · {doc['status']}"))
    if doc["game"] is None:
        return Group(rule, _waiting(doc, seat))
    draw = renderer(engine)
    if draw is not None:
        return Group(rule, draw(_named(doc, markup_names), seat))
    if engine not in ENGINES:
        return Group(rule, Text(stranger(engine, told), style="yellow"), Pretty(doc["game"]))
    return Group(rule, Pretty(doc["game"]))


def lines(
    console: Console, engine: str, doc: dict[str, Any], seat: int | None, told: str | None = None
) -> list[list[Segment]]:
    """:func:`board` rendered for ``console``, line by line; drawn again with escaped
    names if a renderer put a name in markup and rich could not read it."""
    try:
        return console.render_lines(board(engine, doc, seat, told=told), pad=False)
    except MarkupError:
        drawn = board(engine, doc, seat, markup_names=True, told=told)
        return console.render_lines(drawn, pad=False)


def as_printed(rendered: list[list[Segment]]) -> Segments:
    """Lines from :func:`lines`, ready for ``console.print``."""
    return Segments([segment for line in rendered for segment in (*line, Segment.line())])


def render(console: Console, engine: str, doc: dict[str, Any], seat: int | None) -> None:
    """Print the board."""
    console.print(as_printed(lines(console, engine, doc, seat)))


__all__ = [
    "Legend",
    "Renderer",
    "as_printed",
    "board",
    "clean",
    "legend_of",
    "lines",
    "markup_name",
    "render",
    "renderer",
    "safe_name",
    "stranger",
    "title",
]
