"""Text rendering of a room document for the terminal clients (rich).

Each engine may have a renderer here; any other engine's view is shown as
pretty-printed data, so ``play`` and ``spectate`` work for every engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.pretty import Pretty
from rich.table import Table
from rich.text import Text

from engines.chartered.board import components as chartered_components
from engines.crystal_palace import engine as palace
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


def _palace_names(ids: list[str]) -> str:
    names = palace.card_names()
    return ", ".join(names.get(i, i) for i in ids) or "—"


def render_crystal_palace(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """Round and phase, every location's dice, the displays and each seat's mat."""
    game = doc["game"]
    data = palace.components()
    status = (
        "final scoring"
        if game["phase"] == "final"
        else f"{data['rounds'][game['round']]} · phase {game['phase']} · {game['step']['kind']}"
    )
    board = Table("location", "placed dice", "actions", box=None)
    for location, spaces in game["board"].items():

        def dice(held: list[Any]) -> str:
            return " ".join("·" if d is None else f"{doc['seats'][d[0]][:3]}{d[1]}" for d in held)

        board.add_row(
            data["locations"][location]["name"], dice(spaces["placed"]), dice(spaces["acted"])
        )
    seats = Table(
        "seat", "nation", "£", "loans", "G", "E", "news", "inc", "buzz", "VP", "dice", box=None
    )
    for i, name in enumerate(doc["seats"]):
        p = game["seats"][i]
        marker = " ◀" if i in doc["to_act"] else ""
        seats.add_row(
            f"{name}{' (you)' if i == seat else ''}{marker}",
            p["nation"],
            str(p["money"]),
            str(p["loans"]),
            str(p["gears"]),
            str(p["energy"]),
            str(p["newspapers"]),
            str(p["income"]),
            str(p["buzz"]),
            str(p["vp"]),
            " ".join(map(str, p["rolled"])) or str(p["dice"]),
        )
    lines: list[RenderableType] = [
        Text(status, style="bold"),
        board,
        Text(f"patents: {_palace_names(game['patents']['row'])}"),
        Text(f"characters: {_palace_names(game['characters']['row'])}"),
        Text(
            f"museum: {', '.join(game['museum']) or '—'} · bank: {', '.join(game['bank']) or '—'}"
        ),
        seats,
    ]
    if seat is not None:
        me = game["seats"][seat]
        lines.append(Text(f"your patents: {_palace_names(me['patents'])}"))
        lines.append(Text(f"your characters: {_palace_names(me['characters'])}"))
        if me.get("secret"):
            lines.append(Text(f"your dice so far: {me['secret']}"))
        if me.get("loan_values"):
            lines.append(Text(f"your loans: {me['loan_values']}"))
    return Group(*lines)


def render_turn_relay(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """Scores, hands, factories and the centre of the benchmark workload."""
    game = doc["game"]
    seats = Table("seat", "score", "hand", box=None)
    for i, name in enumerate(doc["seats"]):
        marker = " ◀" if i in doc["to_act"] else ""
        held = game["seats"][i]
        seats.add_row(f"{name}{marker}", str(held["score"]), " ".join(map(str, held["hand"])))
    factories = "  ".join("".join(map(str, f)) for f in game["board"])
    center = "".join(map(str, game["center"])) or "—"
    return Group(Text(f"move {game['moveCount']} · factories {factories} · centre {center}"), seats)


RENDERERS: dict[str, Callable[[dict[str, Any], int | None], RenderableType]] = {
    "sintra": render_sintra,
    "chartered": render_chartered,
    "crystal-palace": render_crystal_palace,
    "turn-relay": render_turn_relay,
}


def render(console: Console, engine: str, doc: dict[str, Any], seat: int | None) -> None:
    """Print the document: the game when it runs, the seats while the room waits."""
    console.rule(f"{engine} · {doc['status']}")
    if doc["game"] is None:
        taken = [name or "(free)" for name in doc["seats"]]
        console.print("Waiting for players:", ", ".join(taken))
        return
    renderer = RENDERERS.get(engine)
    console.print(renderer(doc, seat) if renderer else Pretty(doc["game"]))
