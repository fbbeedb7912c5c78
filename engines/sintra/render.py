"""Azul: Stained Glass of Sintra in the terminal.

The board fits 80 columns and at most 15 rows for 4 players, whatever the
position, so the move chooser keeps the rest of a 24-row screen::

    Round 3 of 6 · colour bonus: R pink · next rounds: Y O D · side B
    R pink  O orange  Y yellow  L light blue  D dark blue; lower case = empty
    factories  1 RRLD 4 OOYL 6 LDDD
    centre     O                                               bag 35 · tower 27
                          #1 1pt #2 2pt #3 3pt #4 2pt #5 2pt #6 3pt #7 2pt #8 1pt
     Ana (you)       0 pt ▼royld  yrlod  dodol  olrYD  ololR  yLyDy  drdOd  LDlRl
      glass 5/12 −5        ··     ··     ··     ··     ··     ··     ··     ··
    ▶Cy              3 pt  yrlod  royld  lrlrY  ylydy  dRdod  olryd ▼droyl  YdydO
      glass 0/12 0   1st   ··     ··     ··     ··     ··     ··     L·     ··

:func:`legend` explains every letter and mark. Player names are data:
they are drawn as plain text, never parsed as markup.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engines.sintra.engine import components

# Letters and terminal styles of the Sintra colours C0..C4 (presentation only).
SINTRA_LETTERS = "ROYLD"
SINTRA_STYLES = ("bold magenta", "bold dark_orange", "bold yellow", "bold cyan", "bold blue")
_EMPTY_STYLES = ("magenta", "dark_orange", "yellow", "cyan", "blue")

_LEFT = 22
"""Width of the player column (name, score, broken glass)."""
_CELL = 7
"""Width of one strip's column (a glazier mark and five spaces, then a gap)."""
_WIDTH = _LEFT + 8 * _CELL
"""Width of the whole board (78: a little less than 80 columns)."""
_CENTRE_LETTERS = 24
"""Beyond this many pieces the centre is shown as counts (``R×7``)."""


def _glass(color: int) -> Text:
    return Text(SINTRA_LETTERS[color], style=SINTRA_STYLES[color])


def _fit(text: Text, width: int) -> Text:
    """``text`` cut (with an ellipsis) or padded to exactly ``width`` cells."""
    text = text.copy()
    text.truncate(width, overflow="ellipsis", pad=True)
    return text


def _plain(name: str) -> str:
    """A player's name as one printable line (names are data, not markup)."""
    return "".join(c if c.isprintable() else "?" for c in name)


def _minus(value: int) -> str:
    return f"−{-value}" if value < 0 else str(value)


def _factory(counts: list[int]) -> Text:
    text = Text()
    for color, n in enumerate(counts):
        for _ in range(n):
            text.append_text(_glass(color))
    return text


def _centre(counts: list[int]) -> Text:
    text = Text()
    many = sum(counts) > _CENTRE_LETTERS
    for color, n in enumerate(counts):
        if n:
            if text:
                text.append(" ")
            if many:
                text.append(f"{SINTRA_LETTERS[color]}×{n}", style=SINTRA_STYLES[color])
            else:
                text.append(SINTRA_LETTERS[color] * n, style=SINTRA_STYLES[color])
    return text


def _strip(strip: dict[str, Any] | None, glazier: bool) -> Text:
    text = Text("▼" if glazier else " ", style="bold")
    if strip is None:
        return text + Text("done", style="dim")
    for printed, piece in zip(strip["pattern"], strip["pieces"], strict=True):
        if piece is not None:
            text.append_text(_glass(piece))
        elif printed < 0:
            text.append("w", style="dim")
        else:
            text.append(SINTRA_LETTERS[printed].lower(), style=_EMPTY_STYLES[printed])
    return text


def _window(window: list[int | None]) -> Text:
    text = Text(" ")
    for piece in window:
        text.append_text(_glass(piece) if piece is not None else Text("·", style="dim"))
    return text


def _head(game: dict[str, Any]) -> Text:
    data = components()
    side = f"side {game['options']['side']}"
    if game["finished"] or not game["indicator"]:
        return Text(f"Game over after round {game['round']} of {data['rounds']} · {side}")
    now, *later = game["indicator"]
    head = Text(f"Round {game['round']} of {data['rounds']} · colour bonus: ")
    head.append_text(_glass(now))
    head.append(f" {data['colors'][now]['name']}")
    if later:
        head.append(" · next rounds: ")
        for color in later:
            head.append_text(_glass(color))
            head.append(" ")
        head.right_crop(1)
    head.append(f" · {side}")
    return head


def _key() -> Text:
    key = Text()
    for color, spec in enumerate(components()["colors"]):
        key.append_text(_glass(color))
        key.append(f" {spec['name']}  ")
    key.right_crop(2)
    key.append("; lower case = empty", style="dim")
    return key


def _sources(game: dict[str, Any]) -> tuple[Text, Text]:
    factories = Text("factories ", style="bold")
    shown = [(i, f) for i, f in enumerate(game["factories"]) if any(f)]
    for i, counts in shown:
        factories.append(f" {i + 1} ")
        factories.append_text(_factory(counts))
    if not shown:
        factories.append(" all taken", style="dim")
    centre = Text("centre    ", style="bold") + Text(" ")
    centre.append_text(_centre(game["center"]) or Text("empty", style="dim"))
    if game["center_tile"]:
        centre.append(" + start tile")
    stock = f"bag {game['bag']} · tower {game['tower']}"
    centre.append(" " * max(2, _WIDTH - centre.cell_len - len(stock)) + stock, style="dim")
    return factories, centre


def _columns(game: dict[str, Any]) -> Text:
    points = components()["window_points"][game["options"]["side"]]
    line = Text(" " * _LEFT)
    for slot, pts in enumerate(points):
        line.append_text(_fit(Text(f"#{slot + 1} {pts}pt", style="dim"), _CELL))
    line.rstrip()
    return line


def _board(
    game: dict[str, Any], seat: int, name: str, you: bool, to_play: bool
) -> tuple[Text, Text]:
    """Two lines: turn mark, name, score, strips; then broken glass, start tile, windows."""
    board = game["boards"][seat]
    track = components()["broken_glass_tracks"][game["options"]["track"]]
    score = Text(f"{board['score']:>3} pt ")
    mark = " (you)" if you else ""
    who = _fit(Text(_plain(name)), _LEFT - 1 - score.cell_len - len(mark))
    who.rstrip()
    who.append(mark)
    top = Text("▶" if to_play else " ", style="bold")
    top.append_text(_fit(who, _LEFT - 1 - score.cell_len))
    if you:
        top.stylize("bold")
    top.append_text(score)
    glass = Text(f"  glass {board['track']}/{len(track) - 1} {_minus(track[board['track']])}")
    if not game["center_tile"] and game["start"] == seat and not game["finished"]:
        glass.append("  1st", style="bold")
    bottom = _fit(glass, _LEFT)
    for slot, (strip, window) in enumerate(zip(board["strips"], board["windows"], strict=True)):
        top.append_text(_fit(_strip(strip, board["glazier"] == slot), _CELL))
        bottom.append_text(_fit(_window(window), _CELL))
    top.rstrip()
    bottom.rstrip()
    return top, bottom


def render(doc: dict[str, Any], seat: int | None) -> RenderableType:
    """The round, the factories and centre, then every palace board in two lines."""
    game = doc["game"]
    lines = [_head(game), _key(), *_sources(game), _columns(game)]
    for i in range(game["players"]):
        name = doc["seats"][i] or f"seat {i + 1}"
        lines.extend(_board(game, i, name, you=i == seat, to_play=i in doc["to_act"]))
    return Group(*lines)


_LEGEND = [
    ("R O Y L D", "pink, orange, yellow, light blue, dark blue glass"),
    ("RRO  R×7", "pieces in a factory or the centre; R×7 = seven pink"),
    ("factories 3 RROY", "factory 3: 2 pink, 1 orange, 1 yellow (empty ones left out)"),
    ("+ start tile", "the first to take from the centre gets it: one broken-glass"),
    ("", "step down, and first turn next round"),
    ("#3 2pt", "completing strip 3 scores 2 + each filled window to its right"),
    ("RoYld", "a strip: upper case = a piece, lower case = an empty space"),
    ("w", "an empty wild space: it takes any colour"),
    ("▼", "the glazier: you place on its strip or one to its right"),
    ("done", "the window below is full; the strip has left the game"),
    ("R·  ··", "a window's upper and lower space; · = empty"),
    ("▶  (you)", "whose turn it is; your seat"),
    ("glass 3/12 −3", "broken-glass marker 3 of 12 steps down: −3 at the end;"),
    ("", "step 12 costs −18 at once and the marker restarts at 0"),
    ("1st", "holds the start tile: starts the next round"),
    ("colour bonus", "+1 per piece of this colour on a strip you complete"),
    ("next rounds", "the bonus colours of the rounds to come, in order"),
    ("side A", "at the end window pairs 1-2, 3-4, 5-6, 7-8 score 3/6/10"),
    ("", "for 2/3/4 filled spaces"),
    ("side B", "at the end: full windows × window pieces of your best colour"),
    ("bag · tower", "pieces left to draw · broken and spent pieces (refill the bag)"),
]


def legend() -> RenderableType:
    """A key to every letter, case and mark :func:`render` draws."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for mark, meaning in _LEGEND:
        table.add_row(mark, meaning)
    return Group(Text("Sintra: how to read the board", style="bold underline"), table)
