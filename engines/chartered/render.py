"""Chartered: The Golden Age in the terminal, in at most 15 rows of 80 columns.

The map is drawn with its geometry: each block of the canal ring is two
columns of plots (front and back rows of the spec, §5.2, turned upright so
the five blocks sit side by side), the canals run between the blocks as
``≈`` columns and a bridge is ``═══``. Plots touch the plot above and below
them, the plot beside them in the same block, and across a canal only at a
bridge. A cell is the plot number, then the company's letter (capital on its
HQ) and the height. The companies' values, bank shares and flags sit beside
the map; under it the seats (two per row), the market, your hand and who is
deciding what. :func:`legend` is the key to every mark.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.chartered.board import components
from engines.chartered.words import card_outcome, company_label, company_name
from engines.render import short_name

# Terminal colours of the nine companies (presentation only), by engine id.
COMPANY_STYLES = {
    "gold": "bold yellow",
    "silver": "bold bright_white",
    "pepper": "bold red",
    "tea": "bold green",
    "silk": "bold magenta",
    "coffee": "bold dark_orange3",
    "gems": "bold cyan",
    "opium": "bold blue",
    "gunpowder": "bold bright_black",
}
WIDTH = 80
CANAL = " ≈ "
BRIDGE = "═══"
NAME = 10
"""Seat names fit this many characters in the seats' rows (:func:`engines.render.short_name`:
``bot 3``, a longer name cut with ``…``; the status line and the log have them whole)."""


def _company(company: str, hq: bool = False) -> Text:
    letter = company_label(company)
    return Text(letter if hq else letter.lower(), style=COMPANY_STYLES.get(company, "bold"))


def _cell(game: dict[str, Any], plot: int) -> Text:
    held = game["plots"][plot]
    if not held:
        return Text(f"{plot:>2}  ", style="dim")
    company, height = held
    hq = game["companies"].get(company, {}).get("hq") == plot
    return Text.assemble(f"{plot:>2}", _company(company, hq), str(height))


def _map(game: dict[str, Any]) -> list[Text]:
    """One line per position along the blocks: each block's front and back plot,
    canals between blocks, bridges where they join."""
    params = components()["boards"]
    columns = params["columns"]
    blocks = params[game["board"]]["blocks"]
    lines = []
    for row in range(columns):
        line = Text()
        for block in range(blocks):
            if block:
                bridged = row in params["canal_bridges"][block - 1]
                line.append(BRIDGE if bridged else CANAL, style="bold" if bridged else "blue")
            front = 2 * columns * block + row + 1
            line.append_text(_cell(game, front))
            line.append(" ")
            line.append_text(_cell(game, front + columns))
        lines.append(line)
    return lines


def _companies(doc: dict[str, Any], width: int) -> list[Text]:
    """One line per company on the board: letter, name, value, bank shares, flag."""
    game = doc["game"]
    hidden = game["options"]["hidden_shares"]
    lines = []
    ranked = sorted(game["companies"].items(), key=lambda item: -item[1]["value"])
    for company, info in ranked:
        flag = game["flags"].get(company)
        bank = game["bank_shares"][company]
        name = min(width - 13, max(len(company_name(c)) for c in game["companies"]))
        line = Text.assemble(
            _company(company, hq=True),
            f" {company_name(company)[:name]:<{name}} ƒ{info['value']:<4}",
            f"{'≤' if hidden and bank else '▮'}{bank}",
            f" ⚑{flag + 1}" if flag is not None else "",
        )
        lines.append(line)
    return lines


def _seat(doc: dict[str, Any], seat: int, viewer: int | None) -> Text:
    game = doc["game"]
    name = short_name(doc["seats"][seat], seat, NAME)
    text = Text(f"{seat + 1}")
    text.append("▶" if seat in doc["to_act"] else " ", style="bold")
    text.append(f"{name:<{NAME}}", style="bold underline" if seat == viewer else "bold")
    text.append(f" ƒ{game['cash'][seat]:<5} {game['hand_sizes'][seat]:>2}c")
    for company, count in sorted(game["shares"][seat].items()):
        text.append(" ")
        text.append_text(_company(company, hq=True))
        text.append(str(count))
    hidden = game["face_down"][seat] if game["face_down"] and seat != viewer else 0
    if hidden:
        text.append(f" ?{hidden}")
    for company, owner in sorted(game["flags"].items()):
        if owner == seat:
            text.append(" ⚑")
            text.append_text(_company(company, hq=True))
    return text


def _card(game: dict[str, Any], card: dict[str, Any], long: bool) -> Text:
    """A card and what it would do now: ``plot 31 +Goud`` (long) or ``31+G`` (short)."""
    if card["kind"] == "level":
        step = components()["stock"]["step"]
        return Text(
            f"level {card['level']} +ƒ{card['level'] * step}" if long else f"L{card['level']}"
        )
    outcome, companies = card_outcome(game, card)
    text = Text(f"plot {card['plot']} " if long else f"{card['plot']}")
    if outcome in ("expand", "stack"):
        text.append("+")
        text.append(
            company_name(companies[0]) if long else company_label(companies[0]),
            style=COMPANY_STYLES[companies[0]],
        )
    elif outcome == "merge":
        text.append("⋈")
        for company in companies:
            text.append(
                company_name(company)[:4] if long else company_label(company),
                style=COMPANY_STYLES[company],
            )
    else:
        text.append("★" if outcome == "found" else "✗", style="dim" if outcome != "found" else "")
    return text


def _fit(head: str, parts: list[tuple[Text, Text]]) -> Text:
    """``head`` then the parts (long form, short form), the long forms if they fit."""
    for long in (True, False):
        text = Text(head, style="bold")
        for i, pair in enumerate(parts):
            text.append(" · " if i else "")
            text.append_text(pair[0] if long else pair[1])
        if text.cell_len <= WIDTH:
            break
    text.truncate(WIDTH, overflow="ellipsis")
    return text


def _market(game: dict[str, Any]) -> Text:
    price = components()["prices"]["card"]
    if not game["market"]:
        return Text(f"market (ƒ{price} a card): empty", style="bold")
    parts = [
        (Text(f"{i + 1}:") + _card(game, card, True), Text(f"{i + 1}:") + _card(game, card, False))
        for i, card in enumerate(game["market"])
    ]
    return _fit(f"market ƒ{price}: ", parts)


def _hand(game: dict[str, Any]) -> Text:
    """Your cards: the buildable ones with their effect, levels counted, and the
    plots that cannot be built now in one group."""
    buildable: list[tuple[Text, Text]] = []
    levels: dict[int, int] = {}
    blocked = []
    for card in sorted(game["hand"], key=lambda c: (c["kind"], c.get("plot", c.get("level")))):
        if card["kind"] == "level":
            levels[card["level"]] = levels.get(card["level"], 0) + 1
        elif card_outcome(game, card)[0] == "blocked":
            blocked.append(str(card["plot"]))
        else:
            buildable.append((_card(game, card, True), _card(game, card, False)))
    for level, count in sorted(levels.items()):
        many = f"{count}× " if count > 1 else ""
        long = Text(many) + _card(game, {"kind": "level", "level": level}, True)
        buildable.append((long, Text(f"{many}L{level}")))
    if blocked:
        buildable.append((Text("✗ " + " ".join(blocked)), Text("✗" + ",".join(blocked))))
    if not buildable:
        return Text("your hand: empty", style="bold")
    return _fit("your hand: ", buildable)


STEPS = {
    "buy": "buying a card",
    "company": "choosing the company to found",
    "layout": "placing the two free warehouses",
    "boost": "choosing who gets the +ƒ10",
    "pair": "choosing which two merge first",
    "survivor": "choosing the survivor of a tie",
    "trade": "trading",
    "forced": "selling shares to buy a card",
    "sell": "selling for the event",
}


def _status(doc: dict[str, Any]) -> Text:
    game = doc["game"]
    text = Text(f"supply {game['supply']} · deck {game['deck']} · discard {game['discard']}")
    pending = game["pending"]
    if game["finished"]:
        return text.append(" · game over")
    seat = pending.get("seat", game["turn"]) if pending else game["turn"]
    name = doc["seats"][seat] or f"seat {seat + 1}"
    doing = STEPS.get(pending["step"], pending["step"]) if pending else "to play"
    if pending and pending.get("trades"):
        doing += f" ({pending['trades']} of {components()['trades_per_window']} made)"
    if pending and pending["step"] == "sell" and pending.get("count"):
        doing += f" ({pending['count']} to sell)"
    text.append(" · ")
    text.append(name, style="bold")
    text.append(f": {doing}")
    text.truncate(WIDTH, overflow="ellipsis")
    return text


def render(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The map with the companies beside it, then seats, market, hand and status."""
    game = doc["game"]
    board = _map(game)
    board_width = max(line.cell_len for line in board)
    side_width = WIDTH - board_width - 3
    side = _companies(doc, side_width)
    lines = []
    for i in range(max(len(board), len(side))):
        line = board[i].copy() if i < len(board) else Text(" " * board_width)
        line.pad_right(board_width - line.cell_len)
        if i < len(side):
            line.append(" │ ", style="dim")
            line.append_text(side[i])
        line.truncate(WIDTH, overflow="ellipsis")
        lines.append(line)
    players = game["players"]
    half = WIDTH // 2
    for first in range(0, players, 2):
        line = _seat(doc, first, seat)
        line.truncate(half - 1, overflow="ellipsis")
        line.pad_right(half - line.cell_len)
        if first + 1 < players:
            line.append_text(_seat(doc, first + 1, seat))
        line.truncate(WIDTH, overflow="ellipsis")
        lines.append(line)
    lines.append(_market(game))
    if game["hand"] is not None:
        lines.append(_hand(game))
    lines.append(_status(doc))
    return Group(*(line for line in lines))


def legend() -> RenderableType:
    """The key to the board's marks, the companies' letters and the prices."""
    prices = components()["prices"]
    companies = Table.grid(padding=(0, 1))
    for info in components()["companies"]:
        companies.add_row(
            _company(info["id"], hq=True), Text(info["name"]), Text(info["commodity"], style="dim")
        )
    notes = [
        "Map: each block is two columns of plots; ≈ is a canal, ═══ a bridge.",
        "Plots touch above/below and side by side in a block; across a canal",
        "only at a bridge. '29G2': plot 29, Goud, height 2; a capital letter",
        "is the company's HQ; a dim number is an empty plot.",
        "Beside the map: company, value, ▮ shares in the bank (≤ with hidden",
        "shares: others' face-down shares may be among them; ▮0 when none are",
        "left), ⚑n seat n's flag.",
        "Seats: n▶ to act, cash, cards in hand, shares (G2 = 2 Goud), ?n",
        "face-down shares, ⚑G flags. Cards: 31+G builds onto Goud, 37⋈GT",
        "merges Goud and Thee, ★ founds a company, ✗ cannot be built now,",
        "L2/L3 level cards (+ƒ20/+ƒ30 on a plot one floor lower).",
        f"Prices: card ƒ{prices['card']}, market refresh ƒ{prices['market_refresh']}, "
        f"share its value (at least ƒ{prices['share_minimum']}),",
        f"flags ƒ{prices['flags'][0]} then ƒ{prices['flags'][1]} (= "
        f"{prices['flag_share_equivalent']} shares); ƒ{prices['card_left_in_hand']} "
        "per card left in hand at the end.",
    ]
    return Group(companies, *(Text(line) for line in notes))
