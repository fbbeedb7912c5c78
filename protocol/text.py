"""Text that people type and others read: player names and chat lines.

Such text is data, shown as typed by every client (never as markup), so it may hold
any script and punctuation, but nothing that would not show as typed: no control or
format character (escapes, line breaks, bidirectional overrides, zero-width
characters, but the joiner inside an emoji sequence), no private-use, unassigned or
surrogate one, and no pile of combining marks spilling over the lines around it
("zalgo"). And it must show something: at least one visible character, which the
characters that render blank are not.
"""

from __future__ import annotations

import unicodedata
from typing import Final, Literal

MAX_MARKS: Final = 4
"""Combining marks allowed in a row (enough for any script's accents, not for 'zalgo'
text that spills over the lines around it)."""

BLANK: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols by their category that render blank: the Hangul fillers
(choseong, jungseong, compatibility and halfwidth, all ``Default_Ignorable_Code_Point``
in Unicode's DerivedCoreProperties) and the braille pattern blank. The other
default-ignorable code points are format characters (refused by
:func:`shown_as_typed`) or combining marks (the combining grapheme joiner, the variation
selectors, the Khmer inherent vowels), which never count as visible."""

Flaw = Literal["empty", "too_long", "not_shown"]
"""Why text is refused: it shows nothing, it is too long, or a character of it would
not show as typed."""


ZWJ: Final = "\u200d"
"""The zero-width joiner: a format character, shown as typed only inside an emoji ZWJ
sequence (:func:`joins_emoji`)."""

EMOJI_TRAILERS: Final = frozenset("\ufe0e\ufe0f" + "".join(map(chr, range(0x1F3FB, 0x1F400))))
"""What may follow an emoji inside a ZWJ sequence: the variation selectors for text and
emoji presentation, and the five skin tone modifiers."""


def joins_emoji(text: str, at: int) -> bool:
    """Whether the zero-width joiner at ``at`` joins two emoji into one picture
    (``👩🏽‍💻``, ``🏳️‍🌈``): a symbol before it (past its presentation selector or skin
    tone) and a symbol after it. Anywhere else it would join nothing that shows."""
    before = at - 1
    while before >= 0 and text[before] in EMOJI_TRAILERS:
        before -= 1
    after = text[at + 1 : at + 2]
    return (
        before >= 0
        and unicodedata.category(text[before]) == "So"
        and after != ""
        and unicodedata.category(after) == "So"
    )


def shown_as_typed(text: str) -> bool:
    """No control, format, private-use, unassigned or surrogate character (but a
    zero-width joiner inside an emoji sequence), no line or paragraph separator, and at
    most ``MAX_MARKS`` combining marks in a row."""
    marks = 0
    for at, c in enumerate(text):
        category = unicodedata.category(c)
        if c == ZWJ and joins_emoji(text, at):
            marks = 0
            continue
        if category[0] == "C" or category in ("Zl", "Zp"):
            return False
        marks = marks + 1 if category[0] == "M" else 0
        if marks > MAX_MARKS:
            return False
    return True


def visible(text: str) -> bool:
    """Whether ``text`` holds a visible character: a letter, number, punctuation mark
    or symbol not in :data:`BLANK` (spaces, marks and format characters are not)."""
    return any(unicodedata.category(c)[0] in "LNPS" and c not in BLANK for c in text)


def typed(text: str) -> str:
    """``text`` as it is kept: leading and trailing spaces stripped, Unicode NFC."""
    return unicodedata.normalize("NFC", text.strip())


def flaw(kept: str, most: int) -> Flaw | None:
    """What is wrong with ``kept`` (text as :func:`typed` keeps it) for a name or a line
    of at most ``most`` characters, or None. Its length is counted as kept, in NFC (a
    character that NFC decomposes counts as its parts). Invisible characters are
    refused only when nothing visible is left: inside text they have their uses (the
    emoji and ideographic variation selectors, old Hangul's fillers)."""
    if not kept:
        return "empty"
    if len(kept) > most:
        return "too_long"
    if not shown_as_typed(kept):
        return "not_shown"
    if not visible(kept):
        return "empty"
    return None
