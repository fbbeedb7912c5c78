"""Chartered: The Golden Age in the terminal: the plot grid, companies, seats and market."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.chartered.board import components as chartered_components


def _chartered_card(card: dict[str, Any]) -> str:
    if card["kind"] == "plot":
        return f"plot {card['plot']}"
    return f"level {card['level']}" if card["kind"] == "level" else str(card.get("id"))


def render_chartered(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The plot grid (company initials and heights), companies, seats, market and hand."""
    game = doc["game"]
    columns = chartered_components()["boards"]["columns"]
    grid = Table.grid(padding=(0, 1))
    plots = game["plots"]
    for first in range(1, len(plots), columns):
        cells = []
        for plot in range(first, first + columns):
            held = plots[plot]
            cells.append(
                Text(f"{held[0][:2].upper()}{held[1]}", style="bold")
                if held
                else Text(f"{plot:>3}", style="dim")
            )
        grid.add_row(*cells)
    companies = Table("company", "value", "plots", "bank shares", "flag", box=None)
    for name, info in sorted(game["companies"].items()):
        size = sum(1 for held in plots if held and held[0] == name)
        flag = game["flags"].get(name)
        companies.add_row(
            name,
            f"ƒ{info['value']}",
            str(size),
            str(game["bank_shares"][name]),
            "" if flag is None else doc["seats"][flag],
        )
    seats = Table("seat", "cash", "shares", "cards", box=None)
    for i, name in enumerate(doc["seats"]):
        held = ", ".join(f"{c} {n}" for c, n in sorted(game["shares"][i].items())) or "—"
        marker = " ◀" if i in doc["to_act"] else ""
        seats.add_row(
            f"{name}{' (you)' if i == seat else ''}{marker}",
            f"ƒ{game['cash'][i]}",
            held,
            str(game["hand_sizes"][i]),
        )
    lines: list[RenderableType] = [
        Text(
            f"supply {game['supply']} · deck {game['deck']} · "
            f"market: {', '.join(_chartered_card(c) for c in game['market']) or '—'}"
        ),
        grid,
        companies,
        seats,
    ]
    if game["hand"] is not None:
        lines.append(
            Text("your hand: " + (", ".join(_chartered_card(c) for c in game["hand"]) or "—"))
        )
    if game["pending"]:
        lines.append(Text(f"deciding: {game['pending']['step']}"))
    return Group(*lines)
