"""Crystal Palace in the terminal: at most 15 lines of 80 columns for 5 players.

Line 1 says the season, the phase and the publisher; then the eight locations
in two columns (1–4 left, 5–8 right) with their dice; then the displays by
name and price (patents, characters, research tiles, shares); then one line
per seat. A die shows as its owner's letter and its value (``B5``: player B's
die showing 5). :func:`legend` explains every letter and symbol.
Names are data: they go into :class:`rich.text.Text`, never into markup.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.crystal_palace import data as palace
from engines.crystal_palace import words

WIDTH = 80
LETTERS = "ABCDE"
COLOURS = ("red", "blue", "green", "yellow", "magenta")
SHORT = {
    "patent_office": "Patents",
    "british_museum": "Museum",
    "bank": "Bank",
    "westminster": "Westminster",
    "reform_club": "Reform",
    "london_times": "Times",
    "waterloo": "Waterloo",
    "port": "Port",
}
"""The locations' names on the board (their full names are in the legend)."""
NATIONS = {"United Kingdom": "UK", "United States": "USA", "Netherlands": "Holland"}
SHORT_EFFECT = {
    "gears": "g",
    "energy": "e",
    "newspapers": "n",
    "income": "i",
    "buzz": "buzz",
    "vp": "VP",
    "westminster": "West",
}
SHORT_PERM = {
    "prototype_gears": "protos {n}g",
    "prototype_energy": "protos {n}e",
    "prototype_vp": "+{n}VP/proto",
    "salary": "salaries −£{m}",
    "recruit_vp": "+{n}VP/recruit",
    "recruit_cost": "recruit −£{m}",
}
MEASURE = {"characters": "char", "prototypes": "proto"}


def _die(held: list[Any] | None) -> Text:
    if held is None:
        return Text("··", style="dim")
    seat, value = held
    return Text(f"{LETTERS[seat]}{value}", style=f"bold {COLOURS[seat]}")


def _dice(cells: list[Any]) -> Text:
    return Text(" ").join(_die(held) for held in cells)


def _location(game: dict[str, Any], location: str, width: int) -> Text:
    board = game["board"][location]
    line = Text(f"{SHORT[location]:<{width}} ")
    placed = _dice(board["placed"])
    if game["queue"] and game["queue"][0][0] == location:  # the die that acts next
        start = 3 * game["queue"][0][1]
        placed.stylize("reverse", start, start + 2)
    line.append_text(placed)
    line.append("›", style="bold")
    line.append_text(_dice(board["acted"]))
    return line


def _fit(label: str, items: list[tuple[str, str]], width: int = WIDTH) -> Text:
    """``label`` then ``name price`` items joined by `` · ``, the longest names
    shortened (with …) until the line fits ``width``."""
    names = [name for name, _ in items]

    def line() -> str:
        parts = [f"{n} {price}".rstrip() for n, (_, price) in zip(names, items, strict=True)]
        return label + (" · ".join(parts) or "—")

    while len(line()) > width and any(len(n) > 4 for n in names):
        longest = max(range(len(names)), key=lambda i: len(names[i]))
        names[longest] = names[longest][: len(names[longest]) - 2] + "…"
    return Text(line()[:width])


def _cost(card: str) -> str:
    cost = palace.patents()[card]["cost"]
    parts = [f"{cost[k]}{k[0]}" for k in ("gears", "energy") if cost[k]]
    parts += [f"£{cost['money']}"] if cost["money"] else []
    return "".join(parts)


def _patents(game: dict[str, Any]) -> list[Text]:
    round_ = min(game["round"], 4)
    items = [
        (palace.patents()[c]["name"], f"{_cost(c)} {palace.patents()[c]['vp'][round_]}VP")
        for c in game["patents"]["row"]
    ]
    half = (len(items) + 1) // 2
    return [_fit("patents    ", items[:half]), _fit("           ", items[half:])]


def _surname(name: str) -> str:
    """A character as people call them: "Brunel", "Lord Rosse", "Prince Albert"."""
    if "," in name:
        return name.split(", ")[-1]
    return name if name.startswith("Prince") else name.rsplit(" ", 1)[-1]


def _characters(game: dict[str, Any]) -> Text:
    cards = [palace.characters()[c] for c in game["characters"]["row"]]
    prices = [f"£{card['cost']}/{card['salary']}" for card in cards]
    full = _fit("characters ", [(c["name"], p) for c, p in zip(cards, prices, strict=True)])
    if "…" not in full.plain:
        return full
    return _fit(
        "characters ", [(_surname(c["name"]), p) for c, p in zip(cards, prices, strict=True)]
    )


def _offers(game: dict[str, Any]) -> Text:
    museum = _fit("museum ", [(_tile(t), "") for t in game["museum"]], WIDTH // 2 + 8)
    bank = _fit("bank ", [(_share(s), "") for s in game["bank"]], WIDTH - len(museum) - 2)
    return Text(f"{museum.plain}  {bank.plain}")


def _short(effect: dict[str, Any]) -> str:
    """An effect in the screen's shorthand (see the legend): "+2g+1e", "+£2/char"."""
    parts = []
    for key, raw in effect.items():
        if isinstance(raw, dict):
            each = raw.get("times", 1)
            amount = f"£{each}" if key == "money" else f"{each}{SHORT_EFFECT[key]}"
            parts.append(f"+{amount}/{MEASURE[raw['per']]}")
        elif key == "money":
            parts.append(f"+£{raw}" if raw > 0 else f"−£{-raw}")
        else:
            parts.append(f"{raw:+d}{SHORT_EFFECT[key]}".replace("-", "−"))
    return "".join(parts)


def _tile(tile: str) -> str:
    info = palace.research_tiles()[tile]
    if info["timing"] == "PERM":
        return " ".join(
            SHORT_PERM[k].format(n=str(n).replace("-", "−"), m=abs(n))
            for k, n in info["perm"].items()
        )
    return ("ph6 " if info["timing"] == "P6" else "") + _short(info["effect"])


def _share(share: str) -> str:
    info = palace.shares()[share]
    return f"£{info['price']}:{_short(info['gain']).replace('+', '')}"


def _status(doc: dict[str, Any], game: dict[str, Any]) -> Text:
    data = palace.components()
    season = data["rounds"][min(game["round"], len(data["rounds"]) - 1)]
    phase = game["phase"]
    where = "end of game" if phase == "final" else f"phase {phase}"
    doing = "the exhibition opens" if game["finished"] else words.PHASES[phase]
    publisher = palace.publishers()[game["publisher"]]["name"]
    text = f"{season} · {where}: {doing}"
    for more in (f"Times: {publisher}", f"tickets at the Port: {game['tickets']}"):
        if len(text) + 3 + len(more) <= WIDTH:
            text += " · " + more
    return Text(text, style="bold")


def _loans(player: dict[str, Any], own: bool) -> str:
    """Yours: each loan's VP value (or how many and their sum if that is too long)."""
    values: list[int] = player.get("loan_values", []) if own else []
    if not values:
        return str(player["loans"])
    listed = " ".join(map(str, values))
    text = listed if len(listed) <= 5 else f"{len(values)}:{sum(values)}"
    return text.replace("-", "−")


def _dice_cell(game: dict[str, Any], player: dict[str, Any], own: bool) -> str:
    if game["phase"] != 1:
        return "".join(map(str, player["rolled"])) or f"{player['dice']}"
    if own:
        chosen = player.get("secret", [])
        return "".join(map(str, chosen)) + "·" * (int(player["dice"]) - len(chosen))
    return "ready" if player["ready"] else "…"


NAME = 5
"""Letters of a player's name in the table (the letter before it identifies them)."""
COLUMNS = [
    "player",
    "nation",
    "£",
    "loans",
    "gear",
    "enrg",
    "news",
    "inc",
    "buzz",
    "VP",
    "West",
    "dice",
    "cards",
    "mkt",
]


def _seat_name(name: str | None, seat: int) -> str:
    """A name in :data:`NAME` letters; a server bot's as ``bot N`` (its kind is in the
    legend of presence, and every bot's name starts alike)."""
    bot = re.fullmatch(r"\w+ bot (\d+)", name or "")
    return f"bot {bot.group(1)}" if bot else str(name or f"seat {seat + 1}")[:NAME]


def _seats(doc: dict[str, Any], game: dict[str, Any], seat: int | None) -> Table:
    table = Table(box=None, pad_edge=False, padding=(0, 1, 0, 0), show_edge=False)
    for header in COLUMNS:
        if header in ("player", "nation", "dice", "cards"):  # these give way if need be
            table.add_column(header, no_wrap=True, overflow="ellipsis")
        else:
            table.add_column(header, no_wrap=True, justify="right", min_width=max(3, len(header)))
    nations = {n["id"]: n["name"] for n in palace.components()["nations"]}
    for i, name in enumerate(doc["seats"]):
        p = game["seats"][i]
        mark = "◀" if i in doc["to_act"] else " "
        who = Text(f"{mark}{LETTERS[i]} ", style=f"bold {COLOURS[i]}")
        who.append(Text(_seat_name(name, i), style="underline" if i == seat else ""))
        nation = NATIONS.get(nations[p["nation"]], nations[p["nation"]])
        cards = (p["patents"], p["prototypes"], p["characters"], p["research"])
        table.add_row(
            who,
            nation + "⁰¹²³"[p["goal"]],
            *(str(p[k]) for k in ("money",)),
            _loans(p, i == seat),
            *(str(p[k]) for k in ("gears", "energy", "newspapers", "income", "buzz", "vp")),
            str(p["westminster"]),
            _dice_cell(game, p, i == seat),
            "/".join(str(len(c)) for c in cards),
            str(sum(1 for holder in game["market"] if holder == i)),
        )
    return table


def render(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The season, the locations and their dice, the displays and every seat."""
    game = doc["game"]
    order = palace.location_order(game["options"])
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    widths = [max(len(SHORT[loc]) for loc in column) for column in (order[:4], order[4:])]
    for left, right in zip(order[:4], order[4:], strict=True):
        grid.add_row(_location(game, left, widths[0]), _location(game, right, widths[1]))
    return Group(
        _status(doc, game),
        grid,
        *_patents(game),
        _characters(game),
        _offers(game),
        _seats(doc, game, seat),
    )


def legend() -> RenderableType:
    """The key to every letter, symbol and column of the Crystal Palace screen."""
    data = palace.components()
    full = ", ".join(
        f"{SHORT[k]} = {v['name']}" for k, v in data["locations"].items() if SHORT[k] != v["name"]
    )
    paragraphs = [
        "Line 1: season, phase, the London Times' publisher, tickets left at the Port"
        " (the last two when they fit).",
        "Locations: left column 1–4, right column 5–8, resolved in that order (Port"
        f" before Waterloo if the room says so). {full}. Each row: the placement spaces,"
        " then › and the action spaces, left to right. B5 = player B's die showing 5"
        " (players are lettered A–E in the table); ·· = a free space; in phase 3"
        " the die shown in reverse acts next.",
        "Shorthand: g = gears, e = energy, n = newspapers, i = income steps,"
        " West = Westminster steps, VP = victory points, £ = money; +x a gain, −x a cost.",
        "patents: name, build cost, VP if built this round.",
        "characters: name, £recruit cost/salary each round.",
        "museum: research tiles (ph6 = every phase 6; protos = your prototypes cost"
        " less; /char, /proto = per character, per prototype; otherwise at once).",
        "bank: shares, £price:what they give.",
        "Players: ◀ = to act, your name underlined; nation (UK = United Kingdom,"
        " USA = United States, Holland = Netherlands) and goal level (⁰–³); £; loans (yours:"
        " each loan's VP, or how many:their sum); gear; enrg = energy; news ="
        " newspapers; inc = income step; buzz; VP; West = Westminster step; dice ="
        " this round's values (phase 1: yours so far and · for those still to set;"
        " others: … setting, or ready); cards = patents/prototypes/characters/research"
        " tiles; mkt = assistants on the Black Market.",
        "Moves: → separates the steps of a choice (location → space → die).",
    ]
    return Group(*(Text(paragraph) for paragraph in paragraphs))
