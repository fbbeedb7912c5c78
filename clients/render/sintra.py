"""Azul: Stained Glass of Sintra in the terminal: factories, centre and palace boards."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.sintra.engine import components

# Letters and terminal styles of the Sintra colours C0..C4 (presentation only).
SINTRA_LETTERS = "ROYLD"
SINTRA_STYLES = ("bold magenta", "bold dark_orange", "bold yellow", "bold cyan", "bold blue")


def _glass(color: int) -> Text:
    return Text(SINTRA_LETTERS[color], style=SINTRA_STYLES[color])


def _counts(counts: list[int]) -> Text:
    text = Text()
    for color, n in enumerate(counts):
        for _ in range(n):
            text.append_text(_glass(color))
    return text or Text("—", style="dim")


def _strip(strip: dict[str, Any] | None) -> Text:
    if strip is None:
        return Text("removed", style="dim")
    text = Text()
    for printed, piece in zip(strip["pattern"], strip["pieces"], strict=True):
        if piece is not None:
            text.append_text(_glass(piece))
        elif printed < 0:
            text.append("w", style="dim")
        else:
            text.append(SINTRA_LETTERS[printed].lower(), style="dim")
    return text


def _window(window: list[int | None]) -> Text:
    text = Text()
    for piece in window:
        text.append_text(_glass(piece) if piece is not None else Text("·", style="dim"))
    return text


def render_sintra(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """Factories, centre, round colour and every palace board."""
    game = doc["game"]
    names = [c["name"] for c in components()["colors"]]
    head = Text(f"Round {game['round']}/{components()['rounds']}  ")
    if game["indicator"]:
        head.append("colour bonus: ")
        head.append_text(_glass(game["indicator"][0]))
        head.append(f" {names[game['indicator'][0]]}  ")
    head.append(f"bag {game['bag']} · tower {game['tower']} · side {game['options']['side']}")
    sources = Table.grid(padding=(0, 2))
    sources.add_row(
        *(Text(f"{i + 1}:") + _counts(f) for i, f in enumerate(game["factories"])),
        Text("centre: ") + _counts(game["center"]) + Text(" +start" if game["center_tile"] else ""),
    )
    boards = []
    for i, board in enumerate(game["boards"]):
        you = " (you)" if i == seat else ""
        turn = "  ◀ to play" if i in doc["to_act"] else ""
        title = (
            f"{doc['seats'][i]}{you}: {board['score']} points, "
            f"broken glass step {board['track']}{turn}"
        )
        table = Table(title=title, title_justify="left", show_header=True, box=None)
        for slot in range(len(board["strips"])):
            table.add_column(f"{'▼' if board['glazier'] == slot else ' '}{slot + 1}")
        table.add_row(*(_strip(s) for s in board["strips"]))
        table.add_row(*(_window(w) for w in board["windows"]))
        boards.append(table)
    return Group(head, sources, *boards)
