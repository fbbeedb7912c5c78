"""The turn-relay benchmark engine in the terminal: scores, hands and factories."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text


def render(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """Scores, hands, factories and the centre of the benchmark workload."""
    game = doc["game"]
    seats = Table("seat", "score", "hand", box=None)
    for i, name in enumerate(doc["seats"]):
        marker = " ◀" if i in doc["to_act"] else ""
        held = game["seats"][i]
        seats.add_row(Text(f"{name}{marker}"), str(held["score"]), " ".join(map(str, held["hand"])))
    factories = "  ".join("".join(map(str, f)) for f in game["board"])
    center = "".join(map(str, game["center"])) or "—"
    return Group(Text(f"move {game['moveCount']} · factories {factories} · centre {center}"), seats)
