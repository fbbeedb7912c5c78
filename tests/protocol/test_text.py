"""Text people type and others read (protocol/text.py): how long it is, what shows.

Names and chat lines share the check; the chat's codes are tested here through the
``say`` parser, the names' ``bad_name`` over HTTP in tests/server/test_server_lobby.py.
"""

from __future__ import annotations

import unicodedata

import pytest

from protocol.errors import Code, ProtocolError
from protocol.messages import MAX_CHAT, Say, parse
from protocol.text import flaw, typed, visible

OTHER_DEFAULT_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),  # Variation_Selector, and the vowel separator (Cf) between
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)
"""Unicode's ``Default_Ignorable_Code_Point`` (DerivedCoreProperties.txt) that are not
of category Cf: Other_Default_Ignorable_Code_Point and Variation_Selector, assigned."""


def default_ignorable() -> list[str]:
    """Every default-ignorable code point ``unicodedata`` can tell: its Cf ones, and
    :data:`OTHER_DEFAULT_IGNORABLE`."""
    found = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    return found + [chr(c) for lo, hi in OTHER_DEFAULT_IGNORABLE for c in range(lo, hi + 1)]


def test_no_default_ignorable_character_is_visible() -> None:
    assert [f"U+{ord(c):04X}" for c in default_ignorable() if visible(c)] == []


@pytest.mark.parametrize(
    "text",
    ["\u3164", "\uffa0", "\u2800", "\u115f\u115f", "\u1160", "\u034f" * 3, "\ufe0f", " \u3000 "],
)
def test_text_of_blank_characters_alone_shows_nothing(text: str) -> None:
    assert flaw(typed(text), 32) == "empty"


@pytest.mark.parametrize(
    "text",
    ["ana\u3164", "\u2764\ufe0f", "\u845b\U000e0100", "\u2800\u283a", "\u115f\u1161", ".", "7"],
)
def test_blank_characters_beside_a_visible_one_are_kept(text: str) -> None:
    """Refused only alone: emoji and ideographic variation selectors, old Hangul's
    fillers and braille's blank have their uses beside visible characters."""
    assert flaw(typed(text), 32) is None


def test_the_length_is_counted_in_nfc() -> None:
    half_note = "\U0001d15e"  # NFC decomposes it: two characters
    assert len(typed(half_note * 16)) == 32 and flaw(typed(half_note * 16), 32) is None
    assert flaw(typed(half_note * 17), 32) == "too_long"
    assert flaw(typed("\ufb2c" * 11), 32) == "too_long"  # three characters each
    assert flaw(typed("a\u0301" * 32), 32) is None  # NFC composes: 32 characters


def test_a_character_that_does_not_show_as_typed_is_named_before_emptiness() -> None:
    assert flaw(typed("\u200b"), 32) == "not_shown"
    assert flaw(typed("\u3164\u202e"), 32) == "not_shown"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("\u3164\u3164", Code.CHAT_EMPTY),
        (" \u2800 ", Code.CHAT_EMPTY),
        ("\U0001d15e" * (MAX_CHAT // 2 + 1), Code.CHAT_TOO_LONG),
        ("\u200b", Code.CHAT_BAD_TEXT),
    ],
)
def test_chat_lines_are_checked_like_names(text: str, code: Code) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse({"t": "say", "text": text})
    assert refused.value.code == code


def test_a_chat_line_is_kept_as_typed() -> None:
    assert parse({"t": "say", "text": " gg \u2764\ufe0f "}) == Say("gg \u2764\ufe0f")


@pytest.mark.parametrize(
    "text",
    [
        "\U0001f469\U0001f3fd\u200d\U0001f4bb gg",  # woman technologist, medium skin tone
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # family
        "\u2764\ufe0f\u200d\U0001f525 nice",  # heart on fire
    ],
)
def test_an_emoji_joined_by_a_zero_width_joiner_is_shown_as_typed(text: str) -> None:
    """Emoji ZWJ sequences are one picture: a name or a line may hold them."""
    assert flaw(typed(text), 32) is None
    assert parse({"t": "say", "text": text}) == Say(text)


@pytest.mark.parametrize(
    "text", ["ana\u200dbo", "\u200d\U0001f308", "\U0001f308\u200d", "a\U0001f308\u200db", "\u200d"]
)
def test_a_zero_width_joiner_outside_an_emoji_sequence_is_refused(text: str) -> None:
    """Between letters, or at an end, the joiner shows nothing and joins nothing."""
    assert flaw(typed(text), 32) == "not_shown"
