"""One WebSocket client of a room: handshake, reading frames, a bounded send queue.

The reader (``serve``) parses each frame with the sans-I/O protocol and hands
it to the room. Frames go out without blocking the room's actor:

* under uvicorn's sans-I/O WebSocket implementation, each frame is written
  straight to the connection's transport (what uvicorn's own ``send`` does,
  minus an await, a task switch and the ASGI wrappers per frame); a client
  with more than ``send_buffer`` bytes unsent is closed with ``too_slow``;
* under any other ASGI server, a writer task drains the connection's own
  queue; a client more than ``send_queue`` frames behind is ``too_slow``.

A client that leaves frames unsent and takes none of them for
``send_timeout`` seconds is ``too_slow`` too (a reader that does not read).
A ``too_slow`` client can reconnect and resync.

Closing is bounded: a closed connection has ``close_timeout`` seconds to take
its last frames (the fatal error, the WebSocket close); then its transport is
aborted, so a socket that never reads cannot pin its buffers. The room stops
writing to a connection the moment it closes.

After ``hello``, intents, queries (``legal``, ``resync``), pings and chat lines are rate
limited per connection and per client address (:mod:`server.limits`): a frame
over the limit gets ``rate_limited`` (a ``reject`` for an intent) and is not
served, and says when to retry (``retry_after``); ``rate_strikes`` of them in
a row close the connection. Each room version gives ``FREE_LEGAL`` ``legal``
requests that are not counted: a client may ask after every patch.

Before ``hello`` every error is fatal (error frame, then close); after it, a
bad frame gets an error frame (a ``reject`` if it is an intent with an id) and
the connection goes on.

Every connection's end is counted once, by reason (``tablewire_closes_total``,
:func:`ending` decides), and logged when this side ended it; a connection this
side ended (a fatal error, the keepalive, a shutdown) is reset if it has not
taken its last frames within ``close_timeout``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import messages, session
from protocol.codec import decode, encode
from protocol.errors import Code, ProtocolError
from protocol.messages import ClientMessage, Intent, Legal, Ping, Resync, Say
from protocol.session import refusal
from server.errors import retry_delay
from server.limits import FrameLimits, Gate, Kind, client_address, load_test
from server.lobby import Lobby
from server.logs import fields
from server.metrics import CLOSES, COUNTS, ERRORS, RATE_LIMITED, SLOW_CLOSES, Ending
from server.outbox import Outbox
from server.room import Connection, Room, hash_token
from server.settings import Settings
from server.store import StoreUnavailable
from server.transport import (
    SERVER_SEND,
    Abortable,
    BoundedWebSocket,
    reader_of,
    reset,
    set_send_buffer,
    transport_of,
)
from server.writer import FLUSHER, DirectWriter

log = logging.getLogger("tablewire.connection")

POLICY_VIOLATION = 1008
SERVICE_RESTART = 1012
"""The close code of a server that stops (uvicorn's shutdown)."""
FREE_LEGAL = 4
"""``legal`` requests per connection and room version that no rate limit counts."""
FREE_LEGAL_SAVED = 64
"""At most this many free ``legal`` requests saved up by a connection (16 versions' worth)."""


class SocketConnection:
    """A :class:`server.room.Connection` over a Starlette WebSocket."""

    def __init__(
        self,
        ws: WebSocket,
        settings: Settings,
        direct: DirectWriter | None = None,
        limits: FrameLimits | None = None,
        reader: BoundedWebSocket | None = None,
    ) -> None:
        self.ws = ws
        self.settings = settings
        self.limits = limits
        self.reader = reader
        """uvicorn's protocol object under tablewire serve: frames can go to :meth:`take`
        straight from the parser (:meth:`BoundedWebSocket.listen`)."""
        self.room: Room | None = None
        self.listening = False
        self.seat: int | None = None
        self.protocol = 1
        """Set from ``hello``: the protocol version of this client's frames."""
        self.closing = False
        self.fatal: str | None = None
        """The code of the fatal error this side closed with (:meth:`close`)."""
        self.gone: int | None = None
        """The close code of the disconnect the WebSocket layer reported, once it did."""
        self.cutoff: asyncio.Timeout | None = None
        """Set by :func:`serve` while it runs: a close moves it to ``close_timeout`` ahead."""
        self._direct = direct
        self.outbox = Outbox(direct, self, settings.send_buffer)
        self.send = self.outbox.send
        """Send a frame (:meth:`Outbox.send`, compiled: the path of every frame out)."""
        self._queue: asyncio.Queue[bytes | None] | None = None
        """Frames for :attr:`writer`: every frame without a direct writer, only the closing
        ones with it. Made on first use: most connections never close from this side."""
        self.writer: asyncio.Task[None] | None = None
        """The task writing the queue (:meth:`write`): :func:`serve` starts it without a
        direct writer, a close with one."""
        self._ended = False
        """Set once :func:`serve` is over: no writer starts any more."""
        self._written = 0
        self._watch: asyncio.TimerHandle | None = None
        self._legal_at = -1
        """The room version of the last ``legal`` asked (:meth:`free_legal`)."""
        self._legal_free = 0
        """``legal`` requests this connection may still ask without the rate limit."""

    def queue_frame(self, frame: bytes) -> None:
        """A frame without a direct writer: to the writer task's queue (:class:`Outbox`)."""
        try:
            self._queued().put_nowait(frame)
        except asyncio.QueueFull:
            self.too_slow("too many frames waiting; reconnect and resync")
            return
        self.watch()

    def watch(self) -> None:
        """Frames wait: check the client takes them, unless a check is due already."""
        if self._watch is None:
            self._watch_progress()

    def flush(self) -> None:
        """Write the frames sent since the last flush (:meth:`Outbox.flush`)."""
        self.outbox.flush()

    def too_slow(self, message: str) -> None:
        SLOW_CLOSES.inc()
        self.close(Code.TOO_SLOW, message)

    def close(self, code: str, message: str) -> None:
        if self.outbox.pending and not self.closing:
            self.flush()  # what was sent before the close goes first (or finds it too slow)
        self._close(code, message)

    def _close(self, code: str, message: str) -> None:
        if self.closing:
            return
        self.closing = self.outbox.closing = True
        self.fatal = code
        ERRORS.labels(code).inc()
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        queue = self._queued()
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(encode(messages.error(code, message, fatal=True)))
        queue.put_nowait(None)
        self.start_writer()
        if self.cutoff is not None:
            self.cutoff.reschedule(asyncio.get_running_loop().time() + self.settings.close_timeout)

    def error(self, exc: ProtocolError) -> None:
        """Answer a refused frame without closing (see :func:`refusal`), within the rate
        of refused frames (``refused_rate``; past it, ``rate_limited``)."""
        limits = self.limits
        if limits is not None and not limits.charge(Kind.REFUSED):
            intent = None if exc.intent_id is None else Intent(exc.intent_id, {})
            self.over(Kind.REFUSED, intent, exc.of)
            return
        ERRORS.labels(exc.code).inc()
        self.send(refusal(exc))

    def _backlog(self) -> bool:
        if self._direct is not None and self._direct.buffered():
            return True
        return self._queue is not None and not self._queue.empty()

    def _progress(self) -> int:
        """Grows whenever the client takes something: bytes taken by the socket
        (direct writes), or frames the writer task got out."""
        direct = self._direct.sent - self._direct.buffered() if self._direct else 0
        return direct + self._written

    def _watch_progress(self) -> None:
        loop = asyncio.get_running_loop()
        self._watch = loop.call_later(
            self.settings.send_timeout, self._check_progress, self._progress()
        )

    def _check_progress(self, before: int) -> None:
        """Frames have been waiting: a client that took none of them since is too slow."""
        self._watch = None
        if self.closing or not self._backlog():
            return
        if self._progress() == before:
            self.too_slow(f"nothing taken for {self.settings.send_timeout} s; reconnect and resync")
        else:
            self._watch_progress()

    def _queued(self) -> asyncio.Queue[bytes | None]:
        if self._queue is None:
            self._queue = asyncio.Queue(maxsize=self.settings.send_queue)
        return self._queue

    def start_writer(self) -> None:
        """Start :meth:`write` (once, and only while :func:`serve` runs)."""
        if self.writer is None and not self._ended:
            self.writer = asyncio.get_running_loop().create_task(self.write())

    async def stop_writer(self) -> None:
        """The end of :func:`serve`: the writer is cancelled, and no other starts."""
        self._ended = True
        if self.writer is not None:
            self.writer.cancel()
            await asyncio.gather(self.writer, return_exceptions=True)

    async def write(self) -> None:
        """Send queued frames until the close sentinel; then close the socket."""
        queue = self._queued()
        while (frame := await queue.get()) is not None:
            await self.ws.send_bytes(frame)
            self._written += 1
        await self.ws.close(POLICY_VIOLATION)

    async def receive(self) -> ClientMessage | None:
        """The next client message; None once the client is gone."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            self.gone = message.get("code", 1005)
            return None
        data = message.get("bytes")
        if data is None:
            raise ProtocolError(Code.TEXT_FRAME, "send binary msgpack frames, not text")
        return messages.parse(decode(data, self.settings.max_frame))

    def listen(self, room: Room) -> None:
        """Take the room's frames straight from the parser from now on, if the server
        allows it and nothing is still queued (:meth:`BoundedWebSocket.listen`)."""
        if self.reader is not None and not self.closing:
            self.room = room
            self.listening = self.reader.listen(self.take)

    def take(self, data: bytes) -> None:
        """One binary message, straight from the parser (the sink of :meth:`listen`)."""
        if self.closing or self.room is None:
            return
        FLUSHER.hold()
        try:
            handle(self, self.room, messages.parse(decode(data, self.settings.max_frame)))
        except ProtocolError as exc:
            self.error(exc)
        except Exception:  # a fault here must not reach the transport's callback
            log.exception("frame failed", extra=fields(room=self.room.id, seat=self.seat))
            self.close(Code.INTERNAL_ERROR, "the server failed on this frame; reconnect")
        finally:
            FLUSHER.release()

    def free_legal(self, version: int) -> bool:
        """Whether this ``legal`` is free of the rate limit: each room version since the
        last one asked at gives :data:`FREE_LEGAL` of them, saved up to
        :data:`FREE_LEGAL_SAVED`. A client asking after every patch (or every frame)
        never waits, even when several patches reach it together and its requests all
        find the room at the latest version; asking again and again at one version
        is limited. A free ``legal`` is served: it ends a run of refusals (strikes) as
        any request the limits let through does."""
        if version != self._legal_at:
            moved = max(version - self._legal_at, 1) if self._legal_at >= 0 else 1
            self._legal_free = min(self._legal_free + moved * FREE_LEGAL, FREE_LEGAL_SAVED)
            self._legal_at = version
        if self._legal_free:
            self._legal_free -= 1
            if self.limits is not None:
                self.limits.strikes = 0
            return True
        return False

    def limited(self, kind: Kind, intent: Intent | None = None, of: str | None = None) -> bool:
        """True if this frame is over the rate limit: refused (and the connection
        closed once the refusals persist). ``of``: the refused request's ``t``."""
        limits = self.limits
        if limits is None or limits.allow(kind):
            return False
        self.over(kind, intent, of)
        return True

    def over(self, kind: Kind, intent: Intent | None, of: str | None) -> None:
        """Refuse a frame of ``kind`` over its rate (a strike counted already): a
        ``rate_limited`` answer, or the close once the refusals persist."""
        limits = self.limits
        assert limits is not None
        RATE_LIMITED.labels(kind).inc()
        if limits.exhausted:
            self.close(Code.RATE_LIMITED, "too many frames over the rate limit; slow down")
            return
        wait = retry_delay(limits.wait(kind))
        message = f"too many {kind} frames; retry in {wait:g} s"
        if intent is not None:
            self.send(
                encode(messages.reject(intent.id, Code.RATE_LIMITED, message, retry_after=wait))
            )
        else:
            ERRORS.labels(Code.RATE_LIMITED).inc()
            self.send(encode(messages.error(Code.RATE_LIMITED, message, of=of, retry_after=wait)))


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
    elif isinstance(message, Say):
        room.say(conn, message.text)
    else:
        ERRORS.labels(Code.ALREADY_JOINED).inc()
        conn.send(refusal(ProtocolError(Code.ALREADY_JOINED, "this connection has joined already")))


async def serve_route(ws: WebSocket, lobby: Lobby, settings: Settings, gate: Gate) -> None:
    """The ``/ws/rooms/{room_id}`` route: :func:`serve` with the server's own ``send``
    (kept in the scope by :class:`~server.transport.KeepServerSend`), so that every
    frame can take the :class:`DirectWriter` path."""
    send = ws.scope.get(SERVER_SEND)
    await serve(
        ws,
        ws.path_params["room_id"],
        lobby,
        settings,
        DirectWriter.of(send),
        gate,
        transport_of(send),
        reader_of(send),
    )


async def serve(
    ws: WebSocket,
    room_id: str,
    lobby: Lobby,
    settings: Settings,
    direct: DirectWriter | None = None,
    gate: Gate | None = None,
    transport: Abortable | None = None,
    reader: BoundedWebSocket | None = None,
) -> None:
    """The whole life of one WebSocket connection to ``/ws/rooms/{room_id}``.

    Once the connection is closing, it ends within ``close_timeout``: the
    writer's last frames are awaited that long, then the transport is aborted.
    """
    address = client_address(ws.scope)
    if gate is not None and address in gate.load_testers and lobby.room(room_id) is None:
        # A load generator's room another process owns: loaded first, so that the gate
        # knows it is a benchmark room (its connections are not counted per address).
        with contextlib.suppress(StoreUnavailable):
            await lobby.open(room_id)
    loading = gate is not None and load_test(address, lobby.benchmark(room_id), gate.load_testers)
    refusal = gate.admit(address, loading) if gate is not None else None
    admitted = gate is not None and refusal is None
    if reader is not None:
        reader.bound_frames(settings.ws_frame_rate, settings.ws_frame_burst)
    await ws.accept()
    if transport is not None:
        set_send_buffer(transport, settings.socket_send_buffer)
    limits = gate.frame_limits(address, loading) if gate is not None else None
    conn = SocketConnection(ws, settings, direct, limits, reader)
    if direct is None:
        conn.start_writer()
    room = None
    conn.cutoff = cutoff = asyncio.timeout(None)
    try:
        async with cutoff:
            if refusal is not None:
                conn.close(Code.TOO_MANY_CONNECTIONS, refusal)
            else:
                room = await _open(conn, lobby, room_id)
            if room is not None and await _join(conn, room, settings):
                await _read(conn, room)
            if conn.closing and conn.writer is not None:
                await conn.writer  # the last frames, within close_timeout
    except WebSocketDisconnect as exc:
        conn.gone = exc.code
    except TimeoutError:
        if not cutoff.expired():
            raise
    finally:
        conn.cutoff = None
        if room is not None:
            room.detach(conn)
        await conn.stop_writer()
        if admitted and gate is not None:
            gate.leave(address)
        reason, code = ending(conn)
        CLOSES.labels(reason).inc()
        log.log(
            logging.DEBUG if reason is Ending.CLIENT_CLOSED else logging.INFO,
            "closed",
            extra=fields(
                room=room_id[:100], seat=conn.seat, reason=reason, code=code, error=conn.fatal
            ),
        )
        if reason is not Ending.CLIENT_CLOSED and transport is not None:
            # A connection the server gives up on: whatever the socket has not taken by
            # then is dropped with it, not left to the kernel.
            delay = 0.0 if cutoff.expired() else settings.close_timeout
            asyncio.get_running_loop().call_later(delay, reset, transport)


FATAL_ENDINGS: dict[str, Ending] = {
    Code.TOO_SLOW: Ending.TOO_SLOW,
    Code.RATE_LIMITED: Ending.RATE_LIMITED,
    Code.TOO_MANY_CONNECTIONS: Ending.TOO_MANY_CONNECTIONS,
    Code.HELLO_TIMEOUT: Ending.HELLO_TIMEOUT,
    Code.NO_SUCH_ROOM: Ending.REFUSED,
    Code.BAD_TOKEN: Ending.REFUSED,
    Code.ROOM_CLOSED: Ending.ROOM_CLOSED,
    Code.STORE_UNAVAILABLE: Ending.STORE_UNAVAILABLE,
    Code.INTERNAL_ERROR: Ending.INTERNAL_ERROR,
}
"""The ending of a fatal error's code; any other code's is ``protocol_error``."""


def ending(conn: SocketConnection) -> tuple[Ending, int | None]:
    """Why ``conn`` ended, and the close code its WebSocket ended with (None: none was
    seen, the session failed): the one place that decides the ``reason`` of
    ``tablewire_closes_total`` and of the ``closed`` log line (docs/protocol.md §2).

    A fatal error this side sent decides first (close code 1008), then a close the
    WebSocket layer made itself (:attr:`BoundedWebSocket.ended`), then the disconnect:
    1012 is the server stopping, anything else the client's doing.
    """
    if conn.fatal is not None:
        return FATAL_ENDINGS.get(conn.fatal, Ending.PROTOCOL_ERROR), POLICY_VIOLATION
    if conn.reader is not None and conn.reader.ended is not None:
        return conn.reader.ended
    if conn.gone is None:
        return Ending.INTERNAL_ERROR, None
    if conn.gone == SERVICE_RESTART:
        return Ending.SHUTDOWN, SERVICE_RESTART
    return Ending.CLIENT_CLOSED, conn.gone


async def _open(conn: SocketConnection, lobby: Lobby, room_id: str) -> Room | None:
    try:
        room = await lobby.open(room_id)
    except StoreUnavailable:
        conn.close(Code.STORE_UNAVAILABLE, "the room store is unavailable; retry")
        return None
    if room is None:
        conn.close(Code.NO_SUCH_ROOM, f"no room {room_id!r}")
    return room


async def _join(conn: SocketConnection, room: Room, settings: Settings) -> bool:
    """Wait for ``hello``, check it and the token, attach to the room."""
    try:
        async with asyncio.timeout(settings.hello_timeout):
            first = await conn.receive()
    except TimeoutError:
        conn.close(Code.HELLO_TIMEOUT, f"send hello within {settings.hello_timeout} s")
        return False
    except ProtocolError as exc:
        conn.close(exc.code, exc.message)
        return False
    if first is None:
        return False
    try:
        hello = session.joining(first)
    except ProtocolError as exc:
        conn.close(exc.code, exc.message)
        return False
    conn.protocol = hello.protocol
    if hello.token is not None:
        try:
            conn.seat = await room.store.seat_of(room.id, hash_token(hello.token))
        except StoreUnavailable:
            conn.close(Code.STORE_UNAVAILABLE, "cannot check the token now; retry")
            return False
        if conn.seat is None:
            conn.close(Code.BAD_TOKEN, "this token holds no seat of this room")
            return False
    elif sum(other.seat is None for other in room.conns) >= settings.max_room_connections:
        # Spectators only: a seat holder always gets in, and takes no spectator's place.
        conn.close(
            Code.TOO_MANY_CONNECTIONS,
            f"this room admits {settings.max_room_connections} spectators; retry later",
        )
        return False
    if conn.seat is not None:
        await room.arrive(conn.seat)  # the seat shows connected in its first snapshot
    room.attach(conn, hello.since)
    log.debug("joined", extra=fields(room=room.id, seat=conn.seat))  # quiet, as "closed"
    return True


async def _read(conn: SocketConnection, room: Room) -> None:
    """Dispatch frames until the client leaves or the connection is closed.

    Once nothing is queued, binary frames go straight from the parser to
    :meth:`SocketConnection.take` (under ``tablewire serve``); this loop then
    sees only what is left: text frames and the disconnect.
    """
    while not conn.closing:
        if not conn.listening:
            conn.listen(room)
        try:
            message = await conn.receive()
        except ProtocolError as exc:
            conn.error(exc)
            continue
        if message is None:
            return
        handle(conn, room, message)


def handle(conn: SocketConnection, room: Room, message: ClientMessage) -> None:
    """One message of a joined connection: counted, rate limited, dispatched. (An
    intent, what clients send most, goes straight to its room: this runs as Python
    for every frame, so in as few calls as it can.)"""
    COUNTS.frames_in += 1
    if isinstance(message, Intent):
        COUNTS.intents += 1
        if not conn.limited(Kind.INTENT, message):
            room.submit(conn, message)
        return
    if isinstance(message, Legal):
        seen = room.views.seen_by(room, conn.seat)  # (not a hidden version)
        if not conn.free_legal(seen) and conn.limited(Kind.QUERY, of="legal"):
            return
    elif isinstance(message, Resync):
        if conn.limited(Kind.QUERY, of="resync"):
            return
    elif isinstance(message, Ping | Say):
        kind, of = (Kind.PING, "ping") if isinstance(message, Ping) else (Kind.CHAT, "say")
        if conn.limited(kind, of=of):
            return
    dispatch(conn, room, message)
