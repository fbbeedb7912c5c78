"""Room ids and seat tokens never start with ``-`` (a command line would read an option)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from server import ids


def draws(*chunks: bytes) -> Iterator[bytes]:
    yield from chunks


def test_a_draw_that_would_start_with_a_dash_is_drawn_again() -> None:
    source = draws(b"\xf8" + bytes(5), b"\x00" * 6)  # 0xf8 >> 2 = 62: base64url "-"
    assert ids.urlsafe(6, lambda n: next(source)) == "AAAAAAAA"


def test_no_id_or_token_starts_with_a_dash_over_many_draws() -> None:
    rnd = random.Random(10)
    firsts = set()
    for nbytes in (6, 32):
        for _ in range(20_000):
            text = ids.urlsafe(nbytes, rnd.randbytes)
            assert not text.startswith("-") and ids.is_room_id(text) == (len(text) <= 64)
            firsts.add(text[0])
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
    assert firsts == set(alphabet), "every other first character still occurs"


def test_room_ids_and_seat_tokens_have_their_lengths() -> None:
    assert len(ids.room_id()) == 8 and len(ids.seat_token()) == 43
    assert ids.is_room_id(ids.room_id())
    assert not ids.is_room_id("abc:tokens") and not ids.is_room_id("") and ids.is_room_id("-x")
