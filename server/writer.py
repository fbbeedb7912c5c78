"""What every frame a server sends goes through: small, compiled.

:class:`DirectWriter` writes a connection's frames straight to uvicorn's
transport, building the WebSocket headers itself; :data:`FLUSHER` writes what
each connection was sent during one turn of the event loop in one go. The rest
of the socket side (timeouts, resets, memory) is :mod:`server.transport`.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any, Final, Protocol

from websockets.protocol import OPEN


class Flushable(Protocol):
    """A connection whose sent frames :class:`Flusher` writes out together."""

    def flush(self) -> None: ...


_SHORT_HEADERS: Final = [bytes((0x82, length)) for length in range(126)]


def frame_header(length: int) -> bytes:
    """The header of an unmasked, unfragmented binary WebSocket frame (RFC 6455 §5.2)."""
    if length < 126:
        return _SHORT_HEADERS[length]
    if length < 1 << 16:
        return struct.pack("!BBH", 0x82, 126, length)
    return struct.pack("!BBQ", 0x82, 127, length)


class DirectWriter:
    """Writes data frames straight to uvicorn's sans-I/O WebSocket protocol object.

    ``send`` must be the ASGI ``send`` uvicorn gave the app (a bound method of
    its protocol); :meth:`of` returns None for anything else. Without a
    negotiated extension (permessage-deflate) a server frame is its header
    and the payload, which this writer builds itself; with one, the frames go
    through the websockets protocol object.
    """

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol
        self._transport = protocol.transport
        self._conn = protocol.conn
        """The protocol's transport and websockets connection: set before the app runs,
        never replaced."""
        self.sent = 0
        """Bytes handed to the transport so far."""

    @classmethod
    def of(cls, send: Any) -> DirectWriter | None:
        protocol = getattr(send, "__self__", None)
        needed = ("conn", "transport", "close_sent", "disconnected", "handshake_complete")
        if protocol is None or not all(hasattr(protocol, name) for name in needed):
            return None
        return cls(protocol)

    def write(self, frames: list[bytes]) -> int | None:
        """Send binary frames in one write; the bytes still unsent, or None if the
        socket is closing."""
        protocol, conn, transport = self._protocol, self._conn, self._transport
        if protocol.disconnected or protocol.close_sent or transport.is_closing():
            return None
        if conn.extensions or conn.writes:
            # websockets compresses, or has frames of its own waiting (the answer to a
            # close or a ping just read): the frames go through it, if it is still open.
            # (With nothing of its own waiting it is open: a close it read has its answer
            # waiting, and one uvicorn or the peer began shows in the checks above.)
            if conn.state is not OPEN:
                return None
            for frame in frames:
                conn.send_binary(frame)
            data = b"".join(conn.data_to_send())
        elif len(frames) == 1:
            frame = frames[0]
            size = len(frame)
            data = (_SHORT_HEADERS[size] if size < 126 else frame_header(size)) + frame
        else:
            data = b"".join([frame_header(len(frame)) + frame for frame in frames])
        transport.write(data)
        self.sent += len(data)
        buffered: int = transport.get_write_buffer_size()
        return buffered

    def buffered(self) -> int:
        """Bytes written but not yet taken by the socket."""
        buffered: int = self._transport.get_write_buffer_size()
        return buffered


class Flusher:
    """Writes what each connection was sent during one turn of the event loop in one go.

    A move sends its mover the ``ack`` and the ``patch`` in the same turn of
    the loop: one ``send`` system call instead of two. The frames wait only
    until the loop's next turn (one callback for all connections), or, for
    what a client's frame caused (:meth:`hold`), until that frame is handled:
    no callback at all.
    """

    def __init__(self) -> None:
        self._dirty: list[Flushable] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop a flush is scheduled on, if any."""
        self._held = False

    def hold(self) -> None:
        """Until :meth:`release`, connections sent to wait for it, not for a callback."""
        self._held = True

    def release(self) -> None:
        """Write what every connection was sent (and anything a callback would)."""
        self._held = False
        if self._dirty:
            self._flush()

    def add(self, conn: Flushable) -> None:
        if self._held:
            self._dirty.append(conn)
            return
        # A flush is pending on a live loop: join it. (Not asyncio.get_running_loop() each
        # time: on Python 3.11 it is a getpid system call, once per frame here.)
        if self._loop is None or self._loop.is_closed():
            loop = asyncio.get_running_loop()
            self._dirty = []  # a flush scheduled on a loop that has gone never ran
            self._loop = loop
            loop.call_soon(self._flush)
        self._dirty.append(conn)

    def _flush(self) -> None:
        dirty, self._dirty, self._loop = self._dirty, [], None
        for conn in dirty:
            conn.flush()


FLUSHER: Final = Flusher()
