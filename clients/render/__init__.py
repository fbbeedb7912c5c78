"""Text rendering of a room document for the terminal clients (rich).

Each engine may have a renderer here; any other engine's view is shown as
pretty-printed data, so ``play`` and ``spectate`` work for every engine. An
engine may also have a legend (``LEGENDS``): a key to its renderer's letters
and marks, for a client to show on request.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, RenderableType
from rich.pretty import Pretty
from rich.text import Text

from clients.render.chartered import legend_chartered, render_chartered
from clients.render.crystal_palace import legend_crystal_palace, render_crystal_palace
from clients.render.sintra import render_sintra, sintra_legend
from clients.render.turn_relay import render_turn_relay

RENDERERS: dict[str, Callable[[dict[str, Any], int | None], RenderableType]] = {
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
"""Engine id → the key to its notation on screen (letters, symbols, columns)."""


def render(console: Console, engine: str, doc: dict[str, Any], seat: int | None) -> None:
    """Print the document: the game when it runs, the seats while the room waits."""
    console.rule(f"{engine} · {doc['status']}")
    if doc["game"] is None:
        taken = [name or "(free)" for name in doc["seats"]]
        console.print(Text(f"Waiting for players: {', '.join(taken)}"))
        return
    renderer = RENDERERS.get(engine)
    console.print(renderer(doc, seat) if renderer else Pretty(doc["game"]))
