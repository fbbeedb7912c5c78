"""The whole frames of a client's read (server/frames.py), split without the parser:
checked against websockets' own framing of what a client sends."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode

from server.frames import whole_frames


def _sent(payload: bytes, opcode: Opcode = Opcode.BINARY, fin: bool = True) -> bytes:
    """``payload`` framed as a client sends it (masked)."""
    return Frame(opcode, payload, fin=fin).serialize(mask=True)


@given(st.lists(st.binary(max_size=70_000), max_size=5), st.binary(max_size=8))
def test_every_whole_binary_frame_is_its_payload_and_its_end(
    payloads: list[bytes], tail: bytes
) -> None:
    data = b"".join(_sent(payload) for payload in payloads)
    found = whole_frames(data + tail[:1], -1)  # (a lone byte is never a whole frame)
    big = next((i for i, p in enumerate(payloads) if len(p) > 0xFFFF), len(payloads))
    assert [payload for payload, _ in found] == payloads[:big], "up to a 64-bit length"
    ends = [len(b"".join(_sent(p) for p in payloads[: i + 1])) for i in range(big)]
    assert [stop for _, stop in found] == ends


def test_the_run_ends_at_the_first_frame_the_parser_must_take() -> None:
    move = _sent(b"\x81\xa1t\xa6intent")
    for other in (
        _sent(b"hi", Opcode.TEXT),  # a text frame
        _sent(b"part", fin=False),  # a fragment
        Frame(Opcode.BINARY, b"x").serialize(mask=False),  # unmasked: the parser refuses it
    ):
        assert whole_frames(move + other + move, -1) == [(b"\x81\xa1t\xa6intent", len(move))]
    assert whole_frames(move + move[:-1], -1) == [(b"\x81\xa1t\xa6intent", len(move))]


def test_a_frame_past_the_limit_is_left_to_the_parser() -> None:
    small, large = _sent(b"ab"), _sent(b"abc")
    assert whole_frames(small + large, 2) == [(b"ab", len(small))]
    assert whole_frames(large + small, 2) == []
