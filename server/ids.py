"""Room ids, seat tokens and request keys: URL-safe base64 text that never starts with ``-``.

Both are typed on command lines (``--room ID --token TOKEN``), where a leading
``-`` reads as an option; ``secrets.token_urlsafe`` starts one text in 64 with
it. A draw that does would be redrawn (rejection sampling keeps the other
first characters uniform, and costs log2(64/63) ≈ 0.02 bits of entropy).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import secrets
from collections.abc import Callable

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a room id may be: URL-safe base64 characters (older ids may start with ``-``).
Anything else names no room and never reaches the store."""
REQUEST_KEY = re.compile(r"[A-Za-z0-9._:-]{16,128}")
"""What an ``Idempotency-Key`` may be: 16-128 characters (a UUID, base64url, a ULID).
The key stands for the seat it took (a repeat answers that seat's token): a client
draws it at random, with at least 96 bits (:func:`request_key`)."""


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


def request_key() -> str:
    """A new ``Idempotency-Key`` for a client's request: 22 characters (128 random bits)."""
    return urlsafe(16)


def rematch_key(room_id: str, token: str) -> str:
    """The ``Idempotency-Key`` of the rematch of ``room_id`` asked with its seat ``token``:
    the same on every ask, so asking again brings the player back to the seat the first
    ask took (and its token). Derived from the token, 256 bits, as secret as it is."""
    digest = hashlib.sha256(f"tablewire rematch key\0{room_id}\0{token}".encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def request_digest(key: str, purpose: str) -> str:
    """What the store keeps of a request key used for ``purpose`` (``seat``, ``bots``,
    ``quickplay``): never the key, which yields the seat's token."""
    text = f"tablewire request\0{purpose}\0{key}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def request_token(room_id: str, key: str) -> str:
    """The seat token a request with ``key`` gets in ``room_id``: the same for every
    repeat of the request, in whichever process answers it, and 256 bits like
    :func:`seat_token` (derived from the key, as secret as the key is)."""
    counter = itertools.count()

    def draw(nbytes: int) -> bytes:
        text = f"tablewire seat token\0{room_id}\0{key}\0{next(counter)}"
        return hashlib.sha256(text.encode()).digest()[:nbytes]

    return urlsafe(32, draw)


def asked(key: str, purpose: str, room_id: str) -> tuple[str, str]:
    """A request key as a room uses it (:data:`server.room_parts.Asked`)."""
    return request_digest(key, purpose), request_token(room_id, key)
