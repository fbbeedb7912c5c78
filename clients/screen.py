"""The terminal clients' screen: the board, whose clock runs and who is away, the
room's last chat lines and event sentences, a notice and the chooser, sized to the
console (:class:`Screen`); and the result's table (:func:`result_table`). What the
screen shows is what :mod:`clients.terminal` hands it; it reads no keyboard and no
connection of its own."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from clients.chooser import Chooser
from clients.client import RoomClient
from clients.render import as_printed, clean, safe_name
from clients.render import lines as board_lines

MIN_CHOOSER_ROWS = 4
"""The chooser's rows when the board leaves fewer (the board's top then scrolls away)."""
PROMPT_EVENTS = 2
"""Event sentences shown above the chooser."""
CHAT_SHOWN = 3
"""The room's last chat lines shown on the screen."""


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
    told: str | None = None
    """The server's title for the game (the ``welcome``'s): a game this copy does not know
    is named by it."""
    log: list[str] = field(default_factory=list)
    shown: int = 0
    """Event sentences already printed."""
    chat: list[dict[str, Any]] = field(default_factory=list)
    """The room's last chat lines (:data:`CHAT_SHOWN`)."""
    errors_read: int = 0
    """The client's errors already looked at (:meth:`refused`)."""

    def events(self, client: RoomClient) -> None:
        """Take the event sentences and chat lines the client received since the last
        call."""
        while not client.events.empty():
            event = client.events.get_nowait()
            self.log.append(clean(str(event.get("text") or event.get("type", "?"))))
        self.chat = client.chat[-CHAT_SHOWN:]

    def refused(self, client: RoomClient) -> str:
        """Why the room refused our last chat line, if it did since the last call."""
        errors, self.errors_read = client.errors[self.errors_read :], len(client.errors)
        said = [error for error in errors if error.get("of") == "say"]
        if not said:
            return ""
        last = said[-1]
        message, code = clean(str(last.get("message"))), last.get("code")
        return f"The room did not take that line: {message} ({code})."

    def _height(self, renderable: RenderableType | str) -> int:
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def draw(self, doc: dict[str, Any], chooser: Chooser | None = None, notice: str = "") -> None:
        """Redraw; with a ``chooser``, end with the prompt, leaving the cursor after it."""
        console = self.console
        drawn = board_lines(console, self.engine, doc, self.seat, self.told)
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
        for said_line in self.chat:  # at the prompt, a row each: the board stays on screen
            name, text = clean(str(said_line["name"])), clean(str(said_line["text"]))
            chat = Text.assemble((f"{name}: ", "bold cyan"), text)
            if chooser is None:
                used += self._height(chat)
                console.print(chat)
            else:
                used += 1
                console.print(chat, no_wrap=True, overflow="ellipsis", crop=True)
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
