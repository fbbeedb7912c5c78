"""msgpack framing: one msgpack map per binary WebSocket frame.

``encode`` never fails on the plain data the server builds. ``decode`` turns
any byte string into either a map with string keys or a
:class:`~protocol.errors.ProtocolError` with a stable code: it is the one
place untrusted bytes are parsed.
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.errors import Code, ProtocolError

MAX_FRAME = 64 * 1024
"""Default limit on an incoming frame, in bytes."""


def encode(message: dict[str, Any]) -> bytes:
    """One frame's bytes for a message (a map with a ``t`` field)."""
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed")


def decode(frame: bytes, max_size: int = MAX_FRAME) -> dict[str, Any]:
    """Parse one frame into a map with string keys, or raise ``ProtocolError``."""
    if len(frame) > max_size:
        raise ProtocolError(Code.FRAME_TOO_LARGE, f"frame of {len(frame)} bytes > {max_size}")
    try:
        value = msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_no_ext)
    except msgpack.ExtraData:
        raise ProtocolError(
            Code.MALFORMED_FRAME, "trailing bytes after the msgpack value"
        ) from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise ProtocolError(Code.MALFORMED_FRAME, f"not valid msgpack: {exc}") from None
    if not isinstance(value, dict):
        raise ProtocolError(Code.NOT_A_MAP, "a frame must be a msgpack map")
    return value
