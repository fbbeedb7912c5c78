"""``tablewire play`` and ``tablewire spectate``: the terminal clients.

**The screen.** Every redraw prints the board (:func:`clients.render.board`),
whose clock runs and who is away (:func:`table_line`), the game's latest event
sentences, a notice if there is one, and — when the seat must choose — a
chooser sized to the rows left, so that the board is still on screen at the
prompt (``console.height`` and ``console.width``: a
larger terminal shows more). When every move fits, the chooser numbers them
in columns; otherwise it groups them by their first choice step (labels split
steps with :data:`engines.base.STEP`) and the player narrows step by step,
with pages as a last resort. A move too long for one line wraps under its
number, so its effect and price are never cut. Words narrow the list to the
moves that contain them; ``?`` shows the keys and the game's legend
(:data:`clients.render.LEGENDS`), a screenful at a time.

**The connection.** If the server goes away (a restart closes with 1012, then
refuses connections for a while), the client says so, reconnects with backoff
using its token and the last version held, and goes on; it gives up after
``reconnect_for`` seconds with :class:`~clients.client.Unreachable`.

**Leaving.** Standard input is read without a thread (:class:`StdinKeyboard`),
so Ctrl-C leaves at once, as does Ctrl-D (end of input); both print the
command that comes back to the seat.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import termios
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.addresses import ws_url
from clients.client import LobbyClient, LobbyError, RoomClient, ServerError, Unreachable
from clients.render import LEGENDS, as_printed, clean, safe_name
from clients.render import lines as board_lines
from clients.retry import Wait
from engines.base import STEP

RECOVERABLE = {"too_slow", "room_closed", "store_unavailable", "owner_unavailable", "closed"}
"""Codes of fatal connection errors the client survives by reconnecting."""
GAP = 3
"""Spaces between chooser columns."""
MIN_CHOOSER_ROWS = 4
"""The chooser's rows when the board leaves fewer (the board's top then scrolls away)."""
PROMPT_EVENTS = 2
"""Event sentences shown above the chooser."""


class Left(Exception):
    """The player left (end of input)."""


# -- input ---------------------------------------------------------------------


class Keyboard(Protocol):
    """Where the player's answers come from, one line at a time."""

    echoes: bool
    """True when the terminal shows what is typed; else the client prints each answer."""

    def discard(self) -> None:
        """Forget what was typed ahead on a terminal: a turn's answers come after its board."""

    async def line(self) -> str | None:
        """The next line without its newline; None at the end of input."""


class StdinKeyboard:
    """Lines from a file descriptor (standard input), read when the event loop says it is
    readable. No thread blocks on it, so cancelling a read (Ctrl-C) takes effect at once.
    A regular file or ``/dev/null``, which the loop cannot watch, is read directly: it
    never blocks."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.echoes = os.isatty(self.fd)
        self._buffer = b""
        self._eof = False

    async def line(self) -> str | None:
        while b"\n" not in self._buffer and not self._eof:
            await self._readable()
            chunk = os.read(self.fd, 65536)
            self._eof = not chunk
            self._buffer += chunk
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")

    def discard(self) -> None:
        if self.echoes:
            termios.tcflush(self.fd, termios.TCIFLUSH)
            self._buffer = b""

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self.fd, wake)
        except (OSError, ValueError):
            return  # not pollable (a regular file): a read returns at once
        try:
            await ready
        finally:
            loop.remove_reader(self.fd)


# -- choosing a move -------------------------------------------------------------


@dataclass
class Entry:
    """One numbered line of the chooser: a move, or a group of moves sharing steps."""

    text: str
    moves: list[int]
    steps: list[str]
    """The choice steps the entry stands for (a group: the steps its moves share)."""


@dataclass
class View:
    """What the chooser shows in the rows it has."""

    header: Text | None
    entries: list[Entry]
    shown: range
    """The entries on this page (indices into ``entries``)."""
    widths: list[int]
    """The width of each column, in cells (numbers included)."""
    pages: int


class Chooser:
    """Picks one of ``labels`` by number, by narrowing step by step, or by words.

    Pure state: :meth:`view` lays the list out in given rows and columns,
    :meth:`answer` reads one line typed against the last view.
    """

    def __init__(self, labels: list[str]) -> None:
        self.labels = labels
        self.steps = [label.split(STEP) for label in labels]
        self.trail: list[list[str]] = []
        """The groups chosen, outermost first: ``b`` goes back one."""
        self.words: list[str] = []
        self.page = 0
        self._view: View | None = None

    @property
    def prefix(self) -> list[str]:
        return self.trail[-1] if self.trail else []

    def _matching(self, words: list[str]) -> list[int]:
        depth, prefix = len(self.prefix), self.prefix
        return [
            i
            for i, steps in enumerate(self.steps)
            if steps[:depth] == prefix and all(w in self.labels[i].lower() for w in words)
        ]

    def view(self, width: int, rows: int) -> View:
        """Lay out the current level in ``rows`` lines of ``width`` columns (header included)."""
        moves = self._matching(self.words)
        depth = len(self.prefix)
        while True:
            narrowed = depth > 0 or bool(self.words)
            room = rows - 1 if narrowed else rows
            entries = [Entry(self._rest(i, depth), [i], self.steps[i]) for i in moves]
            widths = _fit(entries, width, room)
            if widths is not None:
                return self._keep(
                    View(self._header(depth, 1), entries, range(len(entries)), widths, 1)
                )
            groups: dict[str, list[int]] = {}
            for i in moves:
                groups.setdefault(
                    self.steps[i][depth] if len(self.steps[i]) > depth else "", []
                ).append(i)
            if len(groups) == 1 and all(len(self.steps[i]) > depth + 1 for i in moves):
                depth += 1  # every move shares this step: show what follows it
                continue
            if len(groups) < len(moves):
                entries = [
                    Entry(f"{step} ({len(ids)} moves)", ids, self.steps[ids[0]][: depth + 1])
                    if len(ids) > 1
                    else Entry(self._rest(ids[0], depth), ids, self.steps[ids[0]])
                    for step, ids in groups.items()
                ]
                widths = _fit(entries, width, room)
                if widths is not None:
                    return self._keep(
                        View(self._header(depth, 1), entries, range(len(entries)), widths, 1)
                    )
            room = max(1, rows - 1)
            columns, cell = _uniform(entries, width)
            if columns == 1:
                starts = _pages_by_height(entries, width, room)
            else:
                starts = list(range(0, len(entries), columns * room))
            pages = len(starts)
            self.page = min(self.page, pages - 1)
            ends = [*starts[1:], len(entries)]
            shown = range(starts[self.page], ends[self.page])
            widths = [cell] * min(columns, math.ceil(len(shown) / room))
            return self._keep(View(self._header(depth, pages), entries, shown, widths, pages))

    def _keep(self, view: View) -> View:
        self._view = view
        return view

    def _rest(self, move: int, depth: int) -> str:
        return STEP.join(self.steps[move][depth:]) or self.labels[move]

    def _header(self, depth: int, pages: int) -> Text | None:
        parts = []
        if depth:
            parts.append(STEP.join(self.steps[self._matching(self.words)[0]][:depth]) + STEP + "…")
        if self.words:
            parts.append("moves with: " + " ".join(self.words))
        if pages > 1:
            parts.append(f"page {self.page + 1} of {pages} (n: next, p: previous)")
        if not parts:
            return None
        if self.trail or self.words:
            parts.append("b: back")
        return Text("  ·  ".join(parts), style="bold")

    def lines(self, width: int, rows: int) -> list[Text]:
        """The chooser as at most ``rows`` lines of at most ``width`` cells."""
        view = self.view(width, rows)
        out = [view.header] if view.header is not None else []
        number_width = len(str(len(view.entries)))
        shown = list(view.shown)
        columns = len(view.widths)
        if columns == 1:  # long entries wrap under their text
            for index in shown:
                number = f"{index + 1:>{number_width}} "
                first, *more = _wrap(clean(view.entries[index].text), width - len(number))
                out.append(Text.assemble((number, "bold"), first))
                out.extend(Text(" " * len(number) + rest) for rest in more)
            for line in out:
                line.truncate(width, overflow="ellipsis")
            if len(out) > rows:  # one entry longer than the rows: its end is cut
                out = out[:rows]
                out[-1].truncate(width - 1)
                out[-1].append("…")
            return out
        height = math.ceil(len(shown) / columns)
        for row in range(height):
            line = Text(no_wrap=True, overflow="ellipsis")
            for column in range(columns):
                at = column * height + row
                if at >= len(shown):
                    break
                index = shown[at]
                cell = Text(f"{index + 1:>{number_width}} ", style="bold")
                cell.append(clean(view.entries[index].text))
                cell.truncate(view.widths[column], overflow="ellipsis", pad=column < columns - 1)
                if column:
                    line.append(" " * GAP)
                line.append_text(cell)
            out.append(line)
        return out

    def prompt(self) -> str:
        """The prompt line for the last view."""
        view = self._view
        assert view is not None, "view() first"
        keys = [f"1-{len(view.entries)}" if len(view.entries) > 1 else "1", "words narrow"]
        if view.pages > 1:
            keys.append("n/p pages")
        if self.trail or self.words:
            keys.append("b back")
        keys.append("? help")
        return f"Your move ({', '.join(keys)}): "

    def answer(self, typed: str) -> int | str | None:
        """Read one answer: a move's index when it picks one, a notice (str) when it
        cannot be used, None when it changed the list (redraw)."""
        view = self._view
        assert view is not None, "view() first"
        text = typed.strip().lower()
        last = len(view.entries)
        if not text:
            return (
                f"Type a number from 1 to {last}, or words that narrow the list "
                "(a colour, a place, an amount); ? shows every key."
            )
        if text.isdigit():
            number = int(text)
            if not 1 <= number <= last:
                return f"{number} is not on the list: type a number from 1 to {last}."
            entry = view.entries[number - 1]
            if len(entry.moves) == 1:
                return entry.moves[0]
            self.trail.append(entry.steps)
            self.page = 0
            return None
        if text in ("n", "p"):
            if view.pages == 1:
                return "The whole list is on screen: there are no other pages."
            self.page = (self.page + (1 if text == "n" else -1)) % view.pages
            return None
        if text in ("b", "back"):
            if self.words:
                self.words = []
            elif self.trail:
                self.trail.pop()
            else:
                return "This is the whole list already."
            self.page = 0
            return None
        words = text.split()
        if not self._matching(words):
            return f"No move here contains {' '.join(words)!r}; type other words or a number."
        self.words, self.page = words, 0
        return None


def _cells(entries: list[Entry]) -> list[int]:
    """Each entry's width on screen, its number included."""
    number = len(str(len(entries))) + 1
    return [number + cell_len(clean(entry.text)) for entry in entries]


def _fit(entries: list[Entry], width: int, rows: int) -> list[int] | None:
    """Column widths that show every entry, column after column, in ``rows`` lines of
    ``width`` cells (the fewest lines that fit); None if they cannot fit."""
    if not entries:
        return [width]
    cells = _cells(entries)
    if max(cells) > width:  # one column, long entries wrapped
        return [width] if sum(_heights(entries, width)) <= rows else None
    for lines in range(1, rows + 1):
        columns = math.ceil(len(cells) / lines)
        height = math.ceil(len(cells) / columns)
        widths = [max(cells[c * height : (c + 1) * height]) for c in range(columns)]
        if sum(widths) + GAP * (columns - 1) <= width:
            return widths
    return None


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken at spaces; a word longer than
    a line is left whole (and cut when shown)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        joined = f"{line} {word}" if line else word
        if line and cell_len(joined) > width:
            lines.append(line)
            line = word
        else:
            line = joined
    return [*lines, line]


def _heights(entries: list[Entry], width: int) -> list[int]:
    """The lines each entry takes in one column of ``width`` cells, its number included."""
    number = len(str(len(entries))) + 1
    return [len(_wrap(clean(entry.text), width - number)) for entry in entries]


def _pages_by_height(entries: list[Entry], width: int, rows: int) -> list[int]:
    """Where each page of a one-column list starts, each page at most ``rows`` lines."""
    starts: list[int] = []
    used = rows
    for index, height in enumerate(_heights(entries, width)):
        if used + height > rows:
            starts.append(index)
            used = 0
        used += height
    return starts or [0]


def _uniform(entries: list[Entry], width: int) -> tuple[int, int]:
    """Pages: how many columns of one width (the widest entry's) fit in ``width``."""
    cell = min(width, max(_cells(entries), default=width))
    return max(1, (width + GAP) // (cell + GAP)), cell


HELP = """\
Keys at the move prompt:
  a number      plays that move, or opens that group of moves
  words         keep only the moves containing all of them (for example: red 3)
  b             back: undo the last group opened or the words typed
  n, p          next and previous page, when the list has pages
  ?             this help and the key to the board
  Ctrl-C/Ctrl-D leave; the command to come back is printed"""


# -- the screen -------------------------------------------------------------------


def _duration(seconds: float) -> str:
    whole = max(0, math.ceil(seconds))
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def table_line(doc: dict[str, Any], seat: int | None, now: float) -> str:
    """Who is away and whose clock runs, as of ``now`` (epoch seconds); empty when
    nothing of it needs saying (no clock running, everyone here)."""
    if doc["status"] != "playing":
        return ""
    clock = doc.get("clock") or {}
    deadlines = clock.get("deadline") or []
    presence = doc.get("presence") or []
    clocks: list[str] = []
    away: list[str] = []
    for i, name in enumerate(doc["seats"]):
        who = clean(name or f"seat {i + 1}")
        deadline = deadlines[i] if i < len(deadlines) else None
        if deadline is not None:
            left = _duration(deadline - now)
            if i == seat:
                clocks.insert(0, f"Your clock: {left} left, then a bot plays this decision for you")
            else:
                clocks.append(f"{who}'s clock: {left}")
        here = presence[i] if i < len(presence) else {}
        if here.get("bot") == "zombie":
            away.append(f"a bot plays for {who} for the rest of the game")
        elif here.get("away_since") is not None and i != seat:
            away.append(f"{who} is away ({_duration(now - here['away_since'])})")
    said = clocks + away
    return " · ".join(said) + "." if said else ""


@dataclass
class Screen:
    """Draws the board, the event log and the chooser in ``console``'s size."""

    console: Console
    engine: str
    seat: int | None
    room: str
    where: str = ""
    """`` --server=URL`` when the server is not the default one, for printed commands."""
    log: list[str] = field(default_factory=list)
    shown: int = 0
    """Event sentences already printed."""

    def events(self, client: RoomClient) -> None:
        """Take the event sentences the client received since the last call."""
        while not client.events.empty():
            event = client.events.get_nowait()
            self.log.append(clean(str(event.get("text") or event.get("type", "?"))))

    def _height(self, renderable: RenderableType | str) -> int:
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def draw(self, doc: dict[str, Any], chooser: Chooser | None = None, notice: str = "") -> None:
        """Redraw; with a ``chooser``, end with the prompt, leaving the cursor after it."""
        console = self.console
        drawn = board_lines(console, self.engine, doc, self.seat)
        console.print(as_printed(drawn))
        used = len(drawn)
        if doc["game"] is None and self.seat is not None:
            room = f"{self.where} --room={self.room}"
            for invite in (
                f"Others join with: tablewire play{room}",
                f"Bots fill the free seats with: tablewire bots{room}",
            ):
                console.print(Text(invite, style="dim"), soft_wrap=True)
                used += 1
        table = table_line(doc, self.seat, time.time())
        if table:
            said = Text(table, style="yellow")
            used += self._height(said)
            console.print(said)
        fresh = self.log[self.shown :]
        self.shown = len(self.log)
        if chooser is None:
            told = fresh[-max(1, console.height - used - 1) :]
        else:
            told = self.log[-PROMPT_EVENTS:]
        for sentence in told:
            said = Text(sentence, style="italic")
            used += self._height(said)
            console.print(said)
        if notice:
            note = Text(notice, style="yellow")
            used += self._height(note)
            console.print(note)
        if chooser is None:
            return
        rows = max(MIN_CHOOSER_ROWS, console.height - used - 1)
        for line in chooser.lines(console.width, rows):
            console.print(line, no_wrap=True, overflow="ellipsis", crop=True)
        self.ask(chooser.prompt())

    def ask(self, prompt: str) -> None:
        self.console.print(Text(prompt, style="bold"), end="", no_wrap=True, overflow="ellipsis")
        self.console.file.flush()


# -- the result -----------------------------------------------------------------------


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _words(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{str(k).replace('_', ' ')} {_words(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(_words(v) for v in value)
    return str(value)


def result_table(result: dict[str, Any], names: list[str | None], seat: int | None) -> Table:
    """A finished game: everyone ranked, with scores and the details in words; seats from 1."""
    scores, ranks = result["scores"], result["ranks"]
    details = result.get("details") or [{} for _ in scores]
    if not ranks:
        why = "everyone left" if result.get("abandoned") else "it reached the move limit"
        table = Table(box=None, show_header=False)
        table.add_row(f"The game ended without a winner: {why}.")
        return table

    def name(i: int, mark: bool = True) -> Text:
        given = names[i] if i < len(names) else None
        who = safe_name(given) if given else Text(f"seat {i + 1}")
        return who.append(" (you)") if mark and i == seat else who

    winners = [name(i, mark=False) for i in result["winners"]]
    headline = Text.assemble(
        *_joined(winners), " wins." if len(winners) == 1 else " share the win."
    )
    if seat is not None:
        place = ranks[seat]
        tied = sum(r == place for r in ranks) > 1
        if place == 1:
            headline.append("  You share the win." if tied else "  You won!")
        else:
            again = " (tied)" if tied else ""
            headline.append(f"  You finished {_ordinal(place)}{again} of {len(scores)}.")
    table = Table(
        "rank", "player", "score", "details", title=headline, title_justify="left", box=None
    )
    for i in sorted(range(len(scores)), key=lambda s: (ranks[s], s)):
        shown = details[i] if isinstance(details[i], dict) else {"details": details[i]}
        rest = {
            k: v
            for k, v in shown.items()
            if v not in ([], {}, None) and not (k == "total" and v == scores[i])
        }
        table.add_row(_ordinal(ranks[i]), name(i), str(scores[i]), Text(_words(rest)))
    return table


def _joined(parts: list[Text]) -> list[Text | str]:
    out: list[Text | str] = []
    for i, part in enumerate(parts):
        if i:
            out.append(" and " if i == len(parts) - 1 else ", ")
        out.append(part)
    return out


# -- following a room -----------------------------------------------------------------


@dataclass
class Session:
    """One terminal client of one room: its connection, screen and keyboard."""

    server: str
    client: RoomClient
    screen: Screen
    keyboard: Keyboard | None
    """None for a spectator."""
    reconnect_for: float

    @property
    def console(self) -> Console:
        return self.screen.console


CHANGED = object()
"""What :func:`_line_or_change` returns when the room changed before a line came."""


async def _line_or_change(session: Session, version: int) -> str | object | None:
    """The next line typed, or :data:`CHANGED` if the room moves on first."""
    assert session.keyboard is not None
    keyboard = session.keyboard
    typed = asyncio.ensure_future(keyboard.line())
    change = asyncio.ensure_future(session.client.wait_version(version + 1))
    try:
        await asyncio.wait({typed, change}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (typed, change):
            task.cancel()
        await asyncio.gather(typed, change, return_exceptions=True)
    if typed.done() and not typed.cancelled():
        line = typed.result()
        if not keyboard.echoes:
            session.console.print(Text("" if line is None else line), soft_wrap=True)
        return line
    if change.exception() is not None:  # the connection was lost: end the prompt, raise it
        session.console.print()
        change.result()
    return CHANGED


async def _help(session: Session, version: int) -> None:
    """Print the keys and the game's legend, a screenful at a time; return once the
    player has read the last page, or typed ``b``."""
    console = session.console
    parts: list[RenderableType] = [Text(HELP)]
    legend = LEGENDS.get(session.screen.engine)
    if legend is not None:
        parts.append(legend())
    lines = console.render_lines(Group(*parts), pad=False)
    per_page = max(1, console.height - 1)
    pages = math.ceil(len(lines) / per_page)
    for page in range(pages):
        console.print(as_printed(lines[page * per_page : (page + 1) * per_page]), end="")
        last = page == pages - 1
        session.screen.ask(
            "Press Enter to see the board again. "
            if last
            else f"Press Enter for more ({page + 1} of {pages}), b for the board. "
        )
        typed = await _line_or_change(session, version)
        if typed is None:
            raise Left
        if typed is CHANGED or (isinstance(typed, str) and typed.strip().lower() == "b"):
            return


async def _ask(session: Session, chooser: Chooser, version: int, notice: str) -> int | None:
    """Redraw and read answers until one picks a move (its index); None if the room
    changed first."""
    client, screen = session.client, session.screen
    while True:
        screen.events(client)
        screen.draw(client.doc, chooser, notice)
        typed = await _line_or_change(session, version)
        if typed is CHANGED:
            session.console.print()
            return None
        if typed is None:
            raise Left
        assert isinstance(typed, str)
        if typed.strip() == "?":
            await _help(session, version)
            notice = ""
            continue
        picked = chooser.answer(typed)
        if isinstance(picked, int):
            return picked
        notice = picked or ""


async def _take_turn(session: Session) -> None:
    """Ask for a move until one is accepted and held, or the turn passes without us.
    A change that leaves our moves as they were (someone's presence, another seat's
    secret choice) keeps the list as the player has narrowed it."""
    client = session.client
    assert session.keyboard is not None
    session.keyboard.discard()
    chooser: Chooser | None = None
    notice = ""
    while True:
        version = client.version or 0
        doc = client.doc
        if doc["status"] != "playing" or client.seat not in doc["to_act"]:
            return
        moves = await client.moves()
        if not moves:  # the position moved on since the document said it was our turn
            await client.wait_version(version + 1)
            continue
        labels = [label for _, label in moves]
        if chooser is None or chooser.labels != labels:
            if chooser is not None and not notice:
                notice = "The position changed: these are your moves now."
            chooser = Chooser(labels)
        picked = await _ask(session, chooser, version, notice)
        notice = ""
        if picked is None:
            continue
        reply = await client.intent(moves[picked][0])
        if reply["t"] == "ack":
            await client.wait_version(reply["v"])
            return
        notice = f"The server refused that move: {reply['message']} ({reply['code']})."


async def _result(session: Session, joined_finished: bool) -> dict[str, Any]:
    """The result: its frame, or — for a room already finished when we joined, whose
    server may not send one — the lobby's record of the room."""
    client = session.client
    if client.result is None and joined_finished:
        async with LobbyClient(session.server) as lobby:
            record = await lobby.room(client.welcome["room"])
        if record.get("result") is not None:
            result: dict[str, Any] = record["result"]
            return result
    return await client.wait_result()


async def _follow(session: Session) -> dict[str, Any]:
    """Redraw on every version; at the seat's turn, ask for a move. Returns the result."""
    client, screen = session.client, session.screen
    shown = -1
    first = True
    while True:
        doc = await client.wait_version(shown + 1)
        shown = client.version or 0
        screen.events(client)
        if doc["status"] == "finished":
            screen.draw(doc)
            result = await _result(session, first)
            session.console.print(result_table(result, doc["seats"], client.seat))
            return result
        first = False
        if session.keyboard is not None and client.seat in doc["to_act"]:
            await _take_turn(session)
        else:
            screen.draw(doc)


def _why(lost: BaseException) -> str:
    if isinstance(lost, ServerError):
        return lost.frame.get("message") or lost.code
    if isinstance(lost, ConnectionClosed) and lost.rcvd is not None and lost.rcvd.code == 1012:
        return "it is restarting"
    return "the connection dropped"


async def _reconnect(session: Session, lost: BaseException) -> None:
    """Join again with the token and the last version held, backing off, for up to
    ``reconnect_for`` seconds."""
    client, console = session.client, session.console
    console.print(
        Text(
            f"Lost the server ({_why(lost)}); reconnecting for up to "
            f"{session.reconnect_for:g} s. Ctrl-C leaves.",
            style="yellow",
        )
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + session.reconnect_for
    pause = 0.25
    await client.close()
    while True:
        try:
            await client.connect()
        except ServerError as exc:
            if exc.code == "no_such_room":
                raise ServerError(
                    {
                        "code": "room_gone",
                        "message": "the room is gone: the server restarted without keeping it "
                        "(rooms outlive a restart only when the server runs with --redis-url)",
                    }
                ) from None
            if exc.code not in RECOVERABLE:
                raise
        except (OSError, TimeoutError, WebSocketException):
            pass
        else:
            console.print(Text("Reconnected.", style="green"))
            return
        left = deadline - loop.time()
        if left <= 0:
            raise Unreachable(
                session.server, f"it has not come back for {session.reconnect_for:g} s"
            )
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, 5.0)


async def _run(session: Session) -> dict[str, Any]:
    """:func:`_follow` through lost connections."""
    while True:
        try:
            return await _follow(session)
        except (ConnectionClosed, ServerError) as lost:
            if isinstance(lost, ServerError) and lost.code not in RECOVERABLE:
                raise
            await _reconnect(session, lost)


# -- the commands ---------------------------------------------------------------------


@dataclass
class SeatRequest:
    """How ``play`` finds its seat: a token, a room, a new room with bots, or quick play."""

    room: str | None = None
    token: str | None = None
    name: str | None = None
    game: str = "sintra"
    seats: int | None = None
    """Quick play: the room size wanted; with ``bots``: the new room's size (default 1+bots)."""
    bots: int = 0
    bot_kind: str | None = None
    """None: the server's choice (the game's strongest bot)."""
    options: dict[str, Any] = field(default_factory=dict)
    rematch: bool = False
    """A seat in the rematch of ``room``, a finished room where ``token`` holds a seat."""
    invite: str | None = None
    """A private ``room``'s invitation (the ``invite`` of the link its creator shared)."""


def bots_body(seats: list[int], kind: str | None) -> dict[str, Any]:
    """The ``bots`` of a room request: those seats, and the kind unless the server chooses."""
    return {"seats": seats} if kind is None else {"seats": seats, "kind": kind}


def bot_seats(seats: int, bots: int, first: int) -> list[int]:
    """The 0-based seats of ``bots`` bots from seat ``first`` of a ``seats``-seat room."""
    if bots < 1 or first + bots > seats:
        raise ValueError(f"{bots} bots do not fit in seats {first + 1}-{seats}")
    return list(range(first, first + bots))


async def take_seat(lobby: LobbyClient, request: SeatRequest) -> dict[str, Any]:
    """Reserve the seat ``request`` asks for; returns ``{room, seat, token, ...}``.
    A room of one's own with bots comes with them; bots for the free seats of a given
    room are asked for afterwards (:func:`seat_bots`), once the seat's token is shown."""
    if request.rematch:
        assert request.room is not None and request.token is not None
        again = await lobby.rematch(request.room, request.token)
        return {"room": again["id"], "seat": again["seat"], "token": again["token"]}
    if request.bots and request.room is None:
        seats = request.seats or 1 + request.bots
        room = await lobby.create_room(
            request.game,
            seats,
            request.options,
            bots=bots_body(bot_seats(seats, request.bots, 1), request.bot_kind),
        )
        return await lobby.reserve(room["id"], name=request.name, seat=0)
    if request.room is None:
        return await lobby.quickplay(request.game, name=request.name, seats=request.seats)
    if request.bots:
        free = (await lobby.room(request.room))["names"].count(None)
        if free < request.bots + 1:
            raise LobbyError(
                409,
                "room_full",
                f"room {request.room} has {free} free seats, not one for you "
                f"and {request.bots} for bots",
            )
    return await lobby.reserve(request.room, name=request.name, invite=request.invite)


async def seat_bots(lobby: LobbyClient, request: SeatRequest) -> None:
    """``--bots`` in a given room: bots in its first free seats."""
    if request.room is None or not request.bots:
        return
    names = (await lobby.room(request.room))["names"]
    free = [i for i, name in enumerate(names) if name is None]
    await lobby.add_bots(request.room, request.bot_kind, free[: request.bots])


def server_option(server: str, default_server: str) -> str:
    """The ``--server`` of a printed command: none for the default server."""
    return "" if server == default_server else f" --server={server}"


def come_back(server: str, room: str, token: str | None, default_server: str) -> str:
    """The one-line command that comes back to a seat (or watches the room again)."""
    where = server_option(server, default_server)
    if token is None:
        return f"tablewire spectate{where} --room={room}"
    return f"tablewire play{where} --room={room} --token={token}"


def _print_come_back(console: Console, command: str) -> None:
    line = Text("To come back: ")
    line.append(command, style="bold")
    console.print(line, soft_wrap=True)


async def _guarded(
    console: Console, command: str, run: Awaitable[dict[str, Any]]
) -> dict[str, Any] | None:
    """Run the client; when the player leaves or the server is gone, say how to come back."""
    try:
        return await run
    except Left:
        console.print()
        console.print("You left the game (end of input).")
        _print_come_back(console, command)
        return None
    except asyncio.CancelledError:
        console.print()
        console.print("Interrupted.")
        _print_come_back(console, command)
        raise
    except Unreachable:
        _print_come_back(console, command)
        raise


async def play(
    server: str,
    request: SeatRequest,
    console: Console | None = None,
    keyboard: Keyboard | None = None,
    reconnect_for: float = 60.0,
    default_server: str = "",
) -> dict[str, Any] | None:
    """Play one seat from the terminal until the game ends (the result) or the player
    leaves (None)."""
    console = console or Console()
    room_id, token = request.room, request.token
    # Back to a seat with its token: the command is printed again once the seat is there.
    returning = token is not None and not request.rematch
    if not returning:
        show = console.print

        def waiting(wait: Wait) -> None:
            show(Text(f"{wait}.", style="dim"))

        async with LobbyClient(server, on_wait=waiting) as lobby:
            seat = await take_seat(lobby, request)
            room_id, token = seat["room"], seat["token"]
            command = come_back(server, room_id, token, default_server)
            console.print(Text(f"Seat {seat['seat'] + 1} in room {room_id}."))
            _print_come_back(console, command)
            await seat_bots(lobby, request)
    else:
        assert room_id is not None
        command = come_back(server, room_id, token, default_server)
    async with RoomClient(ws_url(server), room_id, token) as client:
        if returning:
            _print_come_back(console, command)
        session = Session(
            server,
            client,
            Screen(
                console,
                client.welcome["engine"],
                client.seat,
                room_id,
                server_option(server, default_server),
            ),
            keyboard or StdinKeyboard(),
            reconnect_for,
        )
        result = await _guarded(console, command, _run(session))
    if result is not None:
        line = Text("To play again with the same players: ")
        line.append(f"{command} --rematch", style="bold")
        console.print(line, soft_wrap=True)
    return result


async def spectate(
    server: str,
    room_id: str,
    console: Console | None = None,
    reconnect_for: float = 60.0,
    default_server: str = "",
) -> dict[str, Any] | None:
    """Watch a room until its game ends; a finished room shows its result at once."""
    console = console or Console()
    command = come_back(server, room_id, None, default_server)
    async with RoomClient(ws_url(server), room_id) as client:
        screen = Screen(console, client.welcome["engine"], None, room_id)
        session = Session(server, client, screen, None, reconnect_for)
        return await _guarded(console, command, _run(session))
