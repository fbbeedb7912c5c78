"""The WebSocket frames a client's read holds whole, split and unmasked without the
parser: the part of a move's read that is plain arithmetic on bytes, compiled (the
``native`` list in pyproject.toml), for :meth:`server.transport.BoundedWebSocket.data_received`.

Only the frames a client sends for a move qualify: final, unfragmented, binary, with
no extension bits, masked (as a client's must be), with a 7- or 16-bit length. The
first frame that is anything else, or not whole, ends the run: it and everything
after it are the parser's to take or refuse, as are frames past ``limit``.
"""

from __future__ import annotations

from typing import Final

try:  # websockets' C unmasking, as its own frame parser uses (pure Python without it)
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

BINARY_FINAL: Final = 0x82
"""The first byte of a final binary frame with no extension bits."""
MASKED: Final = 0x80
"""The mask bit of a frame's second byte (set in every frame a client sends)."""


def whole_frames(data: bytes, limit: int) -> list[tuple[bytes, int]]:
    """The whole masked binary frames at the start of ``data``, each as its unmasked
    payload and the offset just past it; none past ``limit`` bytes of payload (-1: no
    limit)."""
    frames: list[tuple[bytes, int]] = []
    start, end = 0, len(data)
    while end - start >= 6 and data[start] == BINARY_FINAL:
        length = data[start + 1] ^ MASKED  # with the mask bit set: then below 128
        head = start + 2
        if length == 126:
            length = (data[head] << 8) | data[head + 1]
            head += 2
        elif length > 126:
            break  # a 64-bit length, or no mask: the parser's to take or refuse
        stop = head + 4 + length
        if stop > end or (limit >= 0 and length > limit):
            break
        frames.append((apply_mask(data[head + 4 : stop], data[head : head + 4]), stop))
        start = stop
    return frames
