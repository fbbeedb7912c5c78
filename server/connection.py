"""One WebSocket client of a room: handshake, reading frames, a bounded send queue.

The reader (``serve``) parses each frame with the sans-I/O protocol and hands
it to the room. Frames go out without blocking the room's actor:

* under uvicorn's sans-I/O WebSocket implementation, each frame is written
  straight to the connection's transport (what uvicorn's own ``send`` does,
  minus an await, a task switch and the ASGI wrappers per frame); a client
  with more than ``send_buffer`` bytes unsent is closed with ``too_slow``;
* under any other ASGI server, a writer task drains the connection's own
  queue; a client more than ``send_queue`` frames behind is ``too_slow``.

A ``too_slow`` client can reconnect and resync.

Before ``hello`` every error is fatal (error frame, then close); after it, a
bad frame gets an error frame (a ``reject`` if it is an intent with an id) and
the connection goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import PROTOCOL_VERSION, messages
from protocol.codec import decode, encode
from protocol.errors import Code, ProtocolError
from protocol.messages import ClientMessage, Hello, Intent, Legal, Ping, Resync
from server.lobby import Lobby
from server.logs import fields
from server.room import Connection, Room, hash_token
from server.settings import Settings
from server.store import StoreUnavailable

log = logging.getLogger("tablewire.connection")

POLICY_VIOLATION = 1008
FLUSH_TIMEOUT = 5.0


class DirectWriter:
    """Writes data frames straight to uvicorn's sans-I/O WebSocket protocol object.

    ``send`` must be the ASGI ``send`` uvicorn gave the app (a bound method of
    its protocol); :meth:`of` returns None for anything else.
    """

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol

    @classmethod
    def of(cls, send: Any) -> DirectWriter | None:
        protocol = getattr(send, "__self__", None)
        needed = ("conn", "transport", "close_sent", "disconnected", "handshake_complete")
        if protocol is None or not all(hasattr(protocol, name) for name in needed):
            return None
        return cls(protocol)

    def write(self, frame: bytes) -> int | None:
        """Send one binary frame; the bytes still unsent, or None if the socket is closing."""
        protocol = self._protocol
        transport = protocol.transport
        if protocol.disconnected or protocol.close_sent or transport.is_closing():
            return None
        protocol.conn.send_binary(frame)
        transport.write(b"".join(protocol.conn.data_to_send()))
        buffered: int = transport.get_write_buffer_size()
        return buffered


class SocketConnection:
    """A :class:`server.room.Connection` over a Starlette WebSocket."""

    def __init__(
        self, ws: WebSocket, settings: Settings, direct: DirectWriter | None = None
    ) -> None:
        self.ws = ws
        self.settings = settings
        self.seat: int | None = None
        self.closing = False
        self._direct = direct
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=settings.send_queue)

    def send(self, frame: bytes) -> None:
        if self.closing:
            return
        if self._direct is not None and self._queue.empty():
            buffered = self._direct.write(frame)
            if buffered is not None and buffered > self.settings.send_buffer:
                self.close(Code.TOO_SLOW, "too many bytes waiting; reconnect and resync")
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.close(Code.TOO_SLOW, "too many frames waiting; reconnect and resync")

    def close(self, code: str, message: str) -> None:
        if self.closing:
            return
        self.closing = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(encode(messages.error(code, message, fatal=True)))
        self._queue.put_nowait(None)

    def error(self, exc: ProtocolError) -> None:
        """Answer a refused frame without closing (see :func:`refusal`)."""
        self.send(refusal(exc))

    async def write(self) -> None:
        """Send queued frames until the close sentinel; then close the socket."""
        while (frame := await self._queue.get()) is not None:
            await self.ws.send_bytes(frame)
        await self.ws.close(POLICY_VIOLATION)

    async def receive(self) -> ClientMessage | None:
        """The next client message; None once the client is gone."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            return None
        data = message.get("bytes")
        if data is None:
            raise ProtocolError(Code.TEXT_FRAME, "send binary msgpack frames, not text")
        return messages.parse(decode(data, self.settings.max_frame))


def refusal(exc: ProtocolError) -> bytes:
    """The frame answering a frame refused after ``welcome``: a ``reject`` for an
    intent that has an id, else a non-fatal ``error``."""
    if exc.intent_id is not None:
        return encode(messages.reject(exc.intent_id, exc.code, exc.message))
    return encode(messages.error(exc.code, exc.message))


def dispatch(conn: Connection, room: Room, message: ClientMessage) -> None:
    """Hand one message of a joined connection to its room (or answer it here)."""
    if isinstance(message, Intent):
        room.submit(conn, message)
    elif isinstance(message, Resync):
        room.catch_up(conn, message.since)
    elif isinstance(message, Legal):
        room.send_legal(conn)
    elif isinstance(message, Ping):
        conn.send(encode(messages.pong(message.data)))
    else:
        conn.send(refusal(ProtocolError(Code.ALREADY_JOINED, "this connection has joined already")))


ROOM_PATH = "/ws/rooms/"


class RoomSockets:
    """ASGI middleware that serves ``/ws/rooms/{room_id}`` itself.

    Starlette hands WebSocket scopes to user middleware with the server's own
    ``send``; served here, every frame can take the :class:`DirectWriter`
    path. Everything else goes on to the application.
    """

    def __init__(self, app: ASGIApp, lobby: Lobby, settings: Settings) -> None:
        self.app = app
        self.lobby = lobby
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        room_id = path[len(ROOM_PATH) :]
        if scope["type"] != "websocket" or not path.startswith(ROOM_PATH) or "/" in room_id:
            await self.app(scope, receive, send)
            return
        ws = WebSocket(scope, receive, send)
        await serve(ws, room_id, self.lobby, self.settings, DirectWriter.of(send))


async def serve(
    ws: WebSocket,
    room_id: str,
    lobby: Lobby,
    settings: Settings,
    direct: DirectWriter | None = None,
) -> None:
    """The whole life of one WebSocket connection to ``/ws/rooms/{room_id}``."""
    await ws.accept()
    conn = SocketConnection(ws, settings, direct)
    writer = asyncio.create_task(conn.write())
    try:
        room = await lobby.open(room_id)
    except StoreUnavailable:
        room = None
        conn.close(Code.STORE_UNAVAILABLE, "the room store is unavailable; retry")
    try:
        if room is None:
            conn.close(Code.NO_SUCH_ROOM, "no such room")  # no-op if already closed
        elif await _join(conn, room, settings):
            await _read(conn, room)
    except WebSocketDisconnect:
        pass
    finally:
        if room is not None:
            room.detach(conn)
        if conn.closing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, FLUSH_TIMEOUT)
        writer.cancel()
        await asyncio.gather(writer, return_exceptions=True)


async def _join(conn: SocketConnection, room: Room, settings: Settings) -> bool:
    """Wait for ``hello``, check it and the token, attach to the room."""
    try:
        async with asyncio.timeout(settings.hello_timeout):
            hello = await conn.receive()
    except TimeoutError:
        conn.close(Code.HELLO_TIMEOUT, f"send hello within {settings.hello_timeout} s")
        return False
    except ProtocolError as exc:
        conn.close(exc.code, exc.message)
        return False
    if hello is None:
        return False
    if not isinstance(hello, Hello):
        conn.close(Code.HELLO_REQUIRED, "the first frame must be hello")
        return False
    if hello.protocol != PROTOCOL_VERSION:
        conn.close(
            Code.UNSUPPORTED_PROTOCOL,
            f"protocol {hello.protocol} is not supported; this server speaks {PROTOCOL_VERSION}",
        )
        return False
    if hello.token is not None:
        try:
            conn.seat = await room.store.seat_of(room.id, hash_token(hello.token))
        except StoreUnavailable:
            conn.close(Code.STORE_UNAVAILABLE, "cannot check the token now; retry")
            return False
        if conn.seat is None:
            conn.close(Code.BAD_TOKEN, "this token holds no seat of this room")
            return False
    if conn.seat is not None:
        await room.arrive(conn.seat)  # the seat shows connected in its first snapshot
    room.attach(conn, hello.since)
    log.info("joined", extra=fields(room=room.id, seat=conn.seat))
    return True


async def _read(conn: SocketConnection, room: Room) -> None:
    """Dispatch frames until the client leaves or the connection is closed."""
    while not conn.closing:
        try:
            message = await conn.receive()
        except ProtocolError as exc:
            conn.error(exc)
            continue
        if message is None:
            return
        dispatch(conn, room, message)
