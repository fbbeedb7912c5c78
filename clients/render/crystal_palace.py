"""Crystal Palace in the terminal: locations, displays and every seat's mat."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.crystal_palace import engine as palace


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
