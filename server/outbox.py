"""The frames one connection sends, on the path every frame takes: compiled, small.

A room's fan-out hands each connection its frames through :meth:`Outbox.send`; with
a direct writer (``tablewire serve``: :class:`server.writer.DirectWriter`) they
wait in :attr:`Outbox.pending` until :data:`server.writer.FLUSHER` writes each
connection's frames of one turn of the loop in one go (:meth:`Outbox.flush`). The
rarer paths stay with the connection (:class:`Spill`, :mod:`server.connection`): the
queue of a connection without a direct writer, the progress watch of a socket that
holds bytes, the close of one too slow. The outbox refers to its connection weakly,
so a connection and its outbox never form a reference cycle (both are freed when the
socket ends, without the garbage collector).
"""

from __future__ import annotations

import weakref
from typing import Protocol

from server.metrics import COUNTS
from server.writer import FLUSHER, DirectWriter


class Spill(Protocol):
    """What an outbox leaves to its connection."""

    def queue_frame(self, frame: bytes) -> None:
        """Send ``frame`` without a direct writer (the connection's queue)."""

    def too_slow(self, message: str) -> None:
        """Close the connection: its client takes too little."""

    def watch(self) -> None:
        """The socket holds bytes: check, unless a check is due already, that the client
        takes them."""


class Outbox:
    """The frames of one connection (see the module); ``send_buffer``: the bytes a
    socket may hold before its client is too slow."""

    def __init__(self, direct: DirectWriter | None, owner: Spill, send_buffer: int) -> None:
        self.direct = direct
        self.send_buffer = send_buffer
        self.closing = False
        """Set when the connection closes: nothing more is sent or written."""
        self.pending: list[bytes] = []
        """Frames for the direct writer, written together by :data:`FLUSHER`."""
        self._owner = weakref.ref(owner)

    def send(self, frame: bytes) -> None:
        if self.closing:
            return
        COUNTS.frames_out += 1
        COUNTS.bytes_out += len(frame)
        if self.direct is None:
            owner = self._owner()
            if owner is not None:
                owner.queue_frame(frame)
            return
        if not self.pending:
            FLUSHER.add(self)
        self.pending.append(frame)

    def flush(self) -> None:
        """Write the frames sent since the last flush (the direct writer's path)."""
        frames, self.pending = self.pending, []
        if not frames or self.closing or self.direct is None:
            return
        buffered = self.direct.write(frames)
        if not buffered:  # None: the socket is closing; 0: the kernel took every byte
            return
        owner = self._owner()
        if owner is None:
            return
        if buffered > self.send_buffer:
            owner.too_slow("too many bytes waiting; reconnect and resync")
        else:
            owner.watch()
