"""A lean room client for load generation: one asyncio ``Protocol`` per connection.

It drives websockets' sans-I/O ``ClientProtocol`` straight from
``data_received``: no reader task, message queue or lock per frame, so one
load-generator core holds thousands of connections. It speaks the normal
protocol through a :class:`~protocol.session.ClientSession` (hello, snapshots
and patches into its mirror, resyncs, intents, acks) and records when each
turn-relay ``moveCount`` first arrived (as a timed :class:`~clients.client.RoomClient`
records versions): the moves, whatever else the log holds. It does not
reconnect: ``tablewire loadtest`` counts a lost connection as an error.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from protocol.codec import encode
from protocol.messages import IntentId
from protocol.mirror import Mirror
from protocol.session import ClientSession

Predicate = Callable[["LeanClient"], bool]


class LeanClient(asyncio.Protocol):
    """One connection to ``ws_base/ws/rooms/room_id`` as a seat (``token``) or a spectator."""

    def __init__(self, ws_base: str, room_id: str, token: str | None = None) -> None:
        self.url = f"{ws_base.rstrip('/')}/ws/rooms/{room_id}"
        self.session = ClientSession(token)
        self._counted_at: int | None = None
        self.counts: list[tuple[int, float]] = []
        """(``moveCount``, when a document first held it), rising: a turn-relay room's
        moves, apart from the versions the log's other entries (presence) take."""
        self.ack_times: dict[IntentId, float] = {}
        self.reject_codes: Counter[str] = Counter()
        self.errors: list[dict[str, Any]] = []
        self.closed: BaseException | str | None = None
        self._ws = ClientProtocol(parse_uri(self.url), max_size=None)
        self._transport: asyncio.Transport | None = None
        self._welcome: asyncio.Future[dict[str, Any]] | None = None
        self._waiters: list[tuple[Predicate, asyncio.Future[None]]] = []
        self._parts: list[bytes] = []

    @property
    def mirror(self) -> Mirror:
        return self.session.mirror

    @property
    def version(self) -> int | None:
        return self.session.mirror.version

    @property
    def doc(self) -> Any:
        return self.session.mirror.doc

    @property
    def received(self) -> Counter[str]:
        return self.session.received

    @property
    def bytes_received(self) -> Counter[str]:
        return self.session.bytes_received

    def new_intent_id(self) -> int:
        return self.session.new_intent_id()

    async def connect(self) -> dict[str, Any]:
        """Open the socket, do the WebSocket handshake and ``hello``; return ``welcome``."""
        loop = asyncio.get_running_loop()
        self._welcome = loop.create_future()
        where = urlsplit(self.url)
        port = where.port or (443 if where.scheme == "wss" else 80)
        await loop.create_connection(lambda: self, where.hostname or "127.0.0.1", port)
        self._ws.send_request(self._ws.connect())
        self._flush()
        return await self._welcome

    def send(self, message: dict[str, Any]) -> None:
        self._send(encode(message))

    def _send(self, data: bytes) -> None:
        self._ws.send_binary(data)
        self._flush()

    async def wait_until(self, predicate: Predicate) -> None:
        if predicate(self):
            return
        if self.closed is not None:  # no frame will come to satisfy it
            raise ConnectionError(str(self.closed))
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        await future

    async def wait_version(self, version: int) -> None:
        await self.wait_until(lambda c: c.version is not None and c.version >= version)

    @property
    def move_count(self) -> int | None:
        """The turn-relay ``moveCount`` of the document held (None before one)."""
        doc = self.doc
        game = doc.get("game") if isinstance(doc, dict) else None
        count = game.get("moveCount") if isinstance(game, dict) else None
        return count if isinstance(count, int) else None

    async def wait_moves(self, count: int) -> None:
        """Until the document holds ``moveCount`` ``count`` or more."""
        await self.wait_until(lambda c: (c.move_count or 0) >= count)

    def reached(self, count: int) -> float | None:
        """When the document first held ``moveCount`` ``count`` or more (None: not yet)."""
        at = bisect.bisect_left(self.counts, (count, -math.inf))
        return self.counts[at][1] if at < len(self.counts) else None

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    # -- asyncio.Protocol -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self._ws.receive_data(data)
        for event in self._ws.events_received():
            if isinstance(event, Response):
                if event.status_code != 101:
                    self._fail(f"handshake refused: HTTP {event.status_code}")
                    return
                self._send(self.session.hello())
            elif isinstance(event, Frame):
                self._frame(event)
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(exc or "connection closed")

    # -- internals ----------------------------------------------------------------------

    def _flush(self) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(b"".join(self._ws.data_to_send()))

    def _frame(self, frame: Frame) -> None:
        if frame.opcode not in (Opcode.BINARY, Opcode.CONT):
            return  # pings are answered by the sans-I/O protocol; close ends the connection
        self._parts.append(bytes(frame.data))
        if not frame.fin:
            return
        data = b"".join(self._parts)
        self._parts.clear()
        got = self.session.receive(data)
        if got.reply is not None:
            self._send(got.reply)
        message, kind = got.frame, got.kind
        if kind == "ack":
            self.ack_times[message["id"]] = time.monotonic()
        elif kind == "reject":
            self.reject_codes[message["code"]] += 1
        elif kind == "welcome":
            if self._welcome is not None and not self._welcome.done():
                self._welcome.set_result(message)
        elif kind == "error":
            self.errors.append(message)
            if message.get("fatal") and self._welcome is not None and not self._welcome.done():
                self._welcome.set_exception(RuntimeError(f"refused: {message}"))
        if self.mirror.version != self._counted_at:  # a new document: its moveCount
            self._counted_at = self.mirror.version
            count = self.move_count
            if count is not None and (not self.counts or count > self.counts[-1][0]):
                self.counts.append((count, time.monotonic()))
        if self._waiters and kind in ("snapshot", "patch"):
            self._wake()

    def _wake(self) -> None:
        waiting = []
        for predicate, future in self._waiters:
            if future.done():
                continue
            if predicate(self):
                future.set_result(None)
            else:
                waiting.append((predicate, future))
        self._waiters = waiting

    def _fail(self, reason: BaseException | str) -> None:
        if self.closed is None:
            self.closed = reason
        error = ConnectionError(str(reason))
        if self._welcome is not None and not self._welcome.done():
            self._welcome.set_exception(error)
        for _, future in self._waiters:
            if not future.done():
                future.set_exception(error)
        self._waiters = []
