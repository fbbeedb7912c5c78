"""msgpack framing: one msgpack map per binary WebSocket frame.

``encode`` never fails on the plain data the server builds. ``decode`` turns
any byte string into either a map with string keys or a
:class:`~protocol.errors.ProtocolError` with a stable code: it is the one
place untrusted bytes are parsed. It refuses every msgpack extension type
(the timestamp type -1 included) and values nested deeper than ``MAX_DEPTH``,
so nothing downstream (parsing, engines, logging) ever recurses through a
hostile structure.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import msgpack

from protocol.errors import Code, ProtocolError

MAX_FRAME: Final = 64 * 1024
"""Default limit on an incoming frame, in bytes."""

MAX_DEPTH: Final = 32
"""Default limit on nesting: the frame's map is depth 1, a map or array inside it 2, …"""

SCALARS: Final = (str, int, float, bool, bytes, type(None))
"""The Python types of msgpack's scalar values (after ``decode``)."""

_DECODED: Final = frozenset(SCALARS)
"""The same, as exact types: what ``msgpack.unpackb`` makes of a scalar (a timestamp
is its own type, refused)."""


def _plain(value: Any) -> Any:
    """For the strict packer: a subclass of a plain type (an error ``Code``, an
    ``IntEnum``) as that type, a tuple as a list, a bytearray as bytes. msgpack packs
    them so by default: the output is the same bytes."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list | tuple):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__} in a frame")


_PACKERS: Final = threading.local()
"""One packer per thread, used for every frame: ``msgpack.packb`` makes a new one per
call, half its cost for a small frame; and it checks types exactly (``strict_types``,
a third faster), handing anything else to :func:`_plain`, which runs Python code: a
packer is not shared between threads."""


def encode(message: dict[str, Any] | list[Any]) -> bytes:
    """One frame's bytes for a message: a map with a ``t`` field, or one of protocol
    2's array frames (:mod:`protocol.compact`)."""
    packer = getattr(_PACKERS, "packer", None)
    if packer is None:
        packer = _PACKERS.packer = msgpack.Packer(
            use_bin_type=True, strict_types=True, default=_plain
        )
    data: bytes = packer.pack(message)
    return data


_EXTENSION: Final = object()
"""What an extension value decodes to: a value :func:`_check` refuses. The hook never
fails the decoding itself, so that the refusal can still name the frame's intent or
request (:func:`_refused`)."""


def _extension(code: int, data: bytes) -> Any:
    return _EXTENSION


def _map_length(frame: bytes) -> int:
    """The number of pairs the header of ``frame``'s map announces (``frame`` decoded
    to a map, so it starts with a fixmap, map 16 or map 32 header)."""
    first = frame[0]
    if first <= 0x8F:
        return first & 0x0F
    return int.from_bytes(frame[1:3] if first == 0xDE else frame[1:5], "big")


def _check(value: Any, max_depth: int) -> None:
    """Refuse extension values (msgpack decodes the timestamp type itself), map keys
    that are not strings (msgpack's ``strict_map_key`` lets bin keys through) and
    deep nesting.

    The frame's value is depth 1. Recursive, but never past ``max_depth`` calls
    deep: a container deeper than that is refused before it is entered, so a
    hostile frame cannot exhaust the Python stack here either.
    """
    kind = type(value)
    if kind is dict or kind is list:
        _check_inside(value, 1, max_depth)
    elif kind not in _DECODED:
        raise ProtocolError(Code.MALFORMED_FRAME, "msgpack extension types are not allowed")


def _check_inside(container: Any, depth: int, max_depth: int) -> None:
    """:func:`_check` for the values in a map or array at ``depth``."""
    if depth > max_depth:
        raise ProtocolError(Code.MALFORMED_FRAME, f"nested deeper than {max_depth} levels")
    if type(container) is dict and not all(type(key) is str for key in container):
        raise ProtocolError(Code.MALFORMED_FRAME, "map keys must be strings (not bin)")
    for child in container.values() if type(container) is dict else container:
        kind = type(child)
        if kind is dict or kind is list:
            _check_inside(child, depth + 1, max_depth)
        elif kind not in _DECODED:
            raise ProtocolError(Code.MALFORMED_FRAME, "msgpack extension types are not allowed")


REQUESTS: Final = frozenset({"legal", "resync", "ping", "say"})
"""The ``t`` of the requests a client waits on: the ``error`` refusing one names it."""


def _refused(value: Any, message: str) -> ProtocolError:
    """``malformed_frame`` for a frame that decoded (as far as it did) to ``value``: with
    the ``id`` of an intent that has a scalar one (for its ``reject``), or the ``t`` of a
    request (the error's ``of``). A string id that was not UTF-8 cannot be echoed as
    sent: none."""
    if type(value) is not dict:
        return ProtocolError(Code.MALFORMED_FRAME, message)
    kind = value.get("t")
    if kind == "intent":
        iid = value.get("id")
        if isinstance(iid, str):
            try:
                iid.encode()
            except UnicodeEncodeError:
                iid = None
        if isinstance(iid, SCALARS):
            return ProtocolError(Code.MALFORMED_FRAME, message, intent_id=iid)
    elif isinstance(kind, str) and kind in REQUESTS:
        return ProtocolError(Code.MALFORMED_FRAME, message, of=kind)
    return ProtocolError(Code.MALFORMED_FRAME, message)


def _hashable(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A map's pairs but those whose key is an array or a map (no Python dict can hold
    them), for :func:`_lenient`: the frame's ``t`` and ``id`` are still found."""
    return {key: value for key, value in pairs if not isinstance(key, list | dict)}


def _lenient(frame: bytes) -> Any:
    """``frame`` decoded as far as msgpack can, for :func:`_refused` only (a refusal's
    path): any map keys (those that are arrays or maps dropped), strings that are not
    UTF-8 (surrogate escapes), no trailing bytes; None if it is no msgpack even so."""
    try:
        return msgpack.unpackb(
            frame,
            raw=False,
            strict_map_key=False,
            object_pairs_hook=_hashable,
            ext_hook=_extension,
            unicode_errors="surrogateescape",
        )
    except msgpack.ExtraData as exc:
        return exc.unpacked  # type: ignore[attr-defined]  # (msgpack-types leaves it out)
    except (ValueError, TypeError, msgpack.UnpackException):
        return _leading(frame)


def _leading(frame: bytes) -> dict[Any, Any] | None:
    """The ``t`` and ``id`` of a frame msgpack cannot read whole (cut short, or nested
    past msgpack's own stack, some thousand levels), read pair by pair from the
    frame's map up to the first value that fails; None if it is no map."""
    unpacker = msgpack.Unpacker(
        raw=False,
        strict_map_key=False,
        object_pairs_hook=_hashable,
        ext_hook=_extension,
        unicode_errors="surrogateescape",
        max_buffer_size=max(len(frame), 1),
    )
    unpacker.feed(frame)
    found: dict[Any, Any] = {}
    try:
        for _ in range(unpacker.read_map_header()):
            key = unpacker.unpack()
            if key in ("t", "id"):
                found[key] = unpacker.unpack()
            else:
                unpacker.skip()
    except (ValueError, TypeError, msgpack.UnpackException):
        pass
    return found or None


def decode(
    frame: bytes, max_size: int = MAX_FRAME, max_depth: int = MAX_DEPTH, arrays: bool = False
) -> Any:
    """Parse one frame into a map with string keys, or raise ``ProtocolError``.

    With ``arrays`` (a client reading a protocol 2 server) an array is a frame
    too (:mod:`protocol.compact`). A malformed frame that is recognisably an
    intent with a scalar ``id`` (a map with ``t`` "intent", however its other
    values fail) carries that id (``ProtocolError.intent_id``), so the server
    can answer ``reject``; one that is recognisably a request carries its ``t``
    (``ProtocolError.of``). Only a refusal pays for finding them. A frame whose map
    names a key twice is malformed (msgpack would keep the last silently:
    ``{"t": "intent", ..., "t": "ping"}`` must not be read as either); the check
    compares the map's length with its header's, so the maps inside it are not
    checked (an ``action`` is its engine's to refuse).
    """
    if len(frame) > max_size:
        raise ProtocolError(Code.FRAME_TOO_LARGE, f"frame of {len(frame)} bytes > {max_size}")
    try:
        value = msgpack.unpackb(frame, raw=False, strict_map_key=True, ext_hook=_extension)
    except msgpack.ExtraData:
        raise _refused(_lenient(frame), "trailing bytes after the msgpack value") from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise _refused(
            _lenient(frame), f"not valid msgpack: {str(exc) or type(exc).__name__}"
        ) from None
    try:
        _check(value, max_depth)
    except ProtocolError as exc:
        raise _refused(value, exc.message) from None
    if type(value) is dict:
        if len(value) != _map_length(frame):
            raise _refused(value, "the frame's map names a key twice")
    elif not (arrays and isinstance(value, list) and value):
        raise ProtocolError(Code.NOT_A_MAP, "a frame must be a msgpack map")
    return value
