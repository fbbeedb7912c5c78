"""The terminal client's move chooser: picks one of a seat's moves by number, by
narrowing step by step (labels split steps with :data:`engines.base.STEP`), or by words,
laid out in the rows and columns the screen leaves it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from clients.render import clean
from engines.base import STEP

GAP = 3
"""Spaces between chooser columns."""


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


SMALL_WORDS = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "for", "and", "it"})
"""Words too small to make an example of narrowing (:meth:`Chooser.example`)."""


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

    def example(self) -> str | None:
        """Words that narrow the list as it is now, for the help: the first two words of
        the last step of its last move, small words left out (``strip 8``, ``take loan``);
        None for no move."""
        shown = self._matching(self.words)
        if not shown:
            return None
        words = [w.strip(".,:;()") for w in self.steps[shown[-1]][-1].lower().split()]
        words = [w for w in words if w and w not in SMALL_WORDS][:2]
        return " ".join(words) if words and self._matching(words) else None

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
