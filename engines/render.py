"""Helpers shared by the games' terminal renderers (``engines/<game>/render.py``).

A game's ``render.py`` draws a room document as a rich renderable with
``render(doc, seat)`` and may give the key to its notation with ``legend()``;
both are pure (they build renderables, the terminal client prints them).

**Names are data.** A seat's name is whatever a player typed: it may hold
rich markup (``[/]`` makes rich raise, ``[bold]`` restyles) or terminal escape
sequences. A renderer puts names in a :class:`~rich.text.Text` (``Text(name)``
or :func:`safe_name`), never in a string rich reads as markup, or escapes them
there with :func:`markup_name`.
"""

from __future__ import annotations

import re
import unicodedata

from rich.markup import escape
from rich.text import Text


def clean(text: str) -> str:
    """``text`` without control and format characters (escape sequences, newlines,
    bidirectional overrides): what is left prints as itself."""
    return "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))


def safe_name(name: str) -> Text:
    """A player's name as a :class:`Text`: printed as typed, never read as markup."""
    return Text(clean(name))


def short_name(name: str | None, seat: int, width: int) -> str:
    """A seat's name in at most ``width`` letters for a narrow column: a server bot's
    (``greedy bot 3``) as ``bot 3``, since every bot's name starts alike; another cut
    to fit ends in ``…``; a free seat is ``seat N``."""
    bot = re.fullmatch(r"\w+ bot (\d+)", name or "")
    if bot and len(f"bot {bot.group(1)}") <= width:
        return f"bot {bot.group(1)}"
    text = name or f"seat {seat + 1}"
    return text if len(text) <= width else text[: width - 1] + "…"


def markup_name(name: str) -> str:
    """A player's name for a string rich reads as markup."""
    return escape(clean(name))
