"""Room ids and seat tokens: URL-safe base64 text that never starts with ``-``.

Both are typed on command lines (``--room ID --token TOKEN``), where a leading
``-`` reads as an option; ``secrets.token_urlsafe`` starts one text in 64 with
it. A draw that does would be redrawn (rejection sampling keeps the other
first characters uniform, and costs log2(64/63) ≈ 0.02 bits of entropy).
"""

from __future__ import annotations

import base64
import re
import secrets
from collections.abc import Callable

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a room id may be: URL-safe base64 characters (older ids may start with ``-``).
Anything else names no room and never reaches the store."""


def urlsafe(nbytes: int, randbytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """``nbytes`` random bytes as unpadded URL-safe base64 that does not start with ``-``."""
    while True:
        text = base64.urlsafe_b64encode(randbytes(nbytes)).rstrip(b"=").decode("ascii")
        if not text.startswith("-"):
            return text


def room_id() -> str:
    """A new room id: 8 characters (48 random bits)."""
    return urlsafe(6)


def seat_token() -> str:
    """A new seat token: 43 characters (256 random bits); it is stored only hashed."""
    return urlsafe(32)


def secret() -> str:
    """An owner credential or an invitation: 43 characters (256 random bits), stored
    only hashed, like a seat token."""
    return urlsafe(32)


def is_room_id(text: str) -> bool:
    """True if ``text`` can be a room id (checked before any store is asked)."""
    return ROOM_ID.fullmatch(text) is not None
