"""Tiny Nim in the terminal: the pile and whose turn it is."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from engines.render import safe_name


def render(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The pile as marks, then each seat, the one to act marked."""
    game = doc["game"]
    seats = []
    for i, name in enumerate(doc["seats"]):
        line = safe_name(name or f"seat {i + 1}")
        line.append(" ◀" if i in doc["to_act"] else "")
        seats.append(line)
    return Group(Text(f"pile: {'o' * game['pile']} ({game['pile']})"), *seats)


def legend() -> RenderableType:
    """The key to the board's marks."""
    return Text("o a stone in the pile; ◀ the player to act")
