"""``tablewire rules GAME``: a game's how-to-play text in the terminal.

The text is the game folder's ``rules.md``, the one the server's ``/rules/<id>`` page is
made of (server/rules.py), read from this copy of tablewire: no server is asked. Its
board markers, pictures on the page, are left out. In a terminal, a text taller than the
screen is paged (``$PAGER``, else ``less``, kept on screen at its end as ``git`` does).
A game this copy does not know is told in the words the server uses for one.
"""

from __future__ import annotations

import os
import re
import sys

from rich.console import Console
from rich.markdown import Markdown

import engines
from clients.exits import CLOSED, Status, unwritten
from engines.render import clean
from server.requests import unknown_engine
from server.rules import MARKER, source

PARAGRAPHS = re.compile(r"\n\s*\n")


def without_markers(text: str) -> str:
    """``rules.md``'s ``text`` without its board markers (``[board 12] A caption.``)."""
    kept = [part for part in PARAGRAPHS.split(text) if not MARKER.fullmatch(part.strip())]
    return "\n\n".join(kept)


def _unknown(game: str) -> str:
    """The line for a game this copy does not know: the server's words (``did you
    mean``), and where the games are listed."""
    message = clean(unknown_engine(game).message)
    return f"{message} (unknown_engine). `tablewire games` lists the games."


def show_rules(game: str, console: Console | None = None) -> int:
    """Print ``game``'s how-to-play text; the exit status."""
    found = source(game)
    if found is None:
        known = engines.ENGINES.get(game)
        if known is None:
            print(f"tablewire: {_unknown(game)}", file=sys.stderr)
            return Status.REFUSED
        print(
            f"tablewire: {clean(known.title)} has no how-to-play text: "
            "its game folder has no rules.md.",
            file=sys.stderr,
        )
        return Status.FAILED
    if console is None and sys.stdout is None:  # started with its output closed (`>&-`)
        print(CLOSED, file=sys.stderr)
        return Status.FAILED
    console = console or Console()
    text = Markdown(without_markers(found.read_text(encoding="utf-8")))
    try:
        if console.is_terminal and len(console.render_lines(text, pad=False)) >= console.height:
            os.environ.setdefault("LESS", "FRX")  # colours, and the text left on screen
            with console.pager(styles=True):
                console.print(text)
        else:
            with console.capture() as captured:
                console.print(text)
            lines = captured.get().splitlines()  # without the blanks that pad each to the width
            console.file.write("".join(f"{line.rstrip()}\n" for line in lines))
        console.file.flush()
    except OSError as exc:  # a reader that left (`| head`), a full disk: as for the others
        return unwritten(exc)
    return Status.OK
