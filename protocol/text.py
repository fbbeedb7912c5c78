"""Text that people type and others read: player names and chat lines.

Such text is data, shown as typed by every client (never as markup), so it may hold
any script and punctuation, but nothing that would not show as typed: no control or
format character (escapes, line breaks, bidirectional overrides, zero-width
characters), no private-use, unassigned or surrogate one, and no pile of combining
marks spilling over the lines around it ("zalgo").
"""

from __future__ import annotations

import unicodedata

MAX_MARKS = 4
"""Combining marks allowed in a row (enough for any script's accents, not for 'zalgo'
text that spills over the lines around it)."""


def shown_as_typed(text: str) -> bool:
    """No control, format, private-use, unassigned or surrogate character, no line
    or paragraph separator, and at most ``MAX_MARKS`` combining marks in a row."""
    marks = 0
    for c in text:
        category = unicodedata.category(c)
        if category[0] == "C" or category in ("Zl", "Zp"):
            return False
        marks = marks + 1 if category[0] == "M" else 0
        if marks > MAX_MARKS:
            return False
    return True


def typed(text: str) -> str:
    """``text`` as it is kept: leading and trailing spaces stripped, Unicode NFC."""
    return unicodedata.normalize("NFC", text.strip())
