"""The HTTP protocol ``tablewire serve`` runs: uvicorn's httptools protocol with
bounds on reading a request, against slowloris clients.

uvicorn bounds only the idle time between two requests of a keep-alive
connection (``timeout_keep_alive``). A client that connects and sends
nothing, or sends half a request line or header and then trickles or stops,
is kept forever. :class:`GuardedHttp` adds, per connection:

* ``header_timeout``: from the connection (or a request's first byte) to the
  end of its headers; past it the connection gets 408 and is closed;
* ``max_header_bytes``: unfinished headers may not grow larger; 431 and
  close (httptools has no such limit of its own);
* ``body_timeout``: from the end of the headers to the end of the body; past
  it the connection is aborted (the application sees a disconnect).

A WebSocket upgrade leaves this protocol once its handshake request is in:
from then on ``hello_timeout`` and the send limits of
:mod:`server.connection` apply. All of it is one timer handle per connection,
armed and cancelled at the parser's callbacks, and a byte count while the
headers arrive.

The socket tricks of the WebSocket side live here too, so that
:mod:`server.connection` holds only the session: :func:`reset` (``SO_LINGER``
0: an abandoned socket's buffers go at once), :data:`MEMORY` (``malloc_trim``
in a thread after big closes), :func:`set_send_buffer` and the way to
uvicorn's protocol under an ASGI ``send`` (:class:`KeepServerSend`). What
every frame goes through, the direct writer and the flusher, is the small
compiled :mod:`server.writer`; this module stays Python.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import functools
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, cast

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame
from websockets.protocol import OPEN

from server.frames import whole_frames
from server.limits import TokenBucket
from server.logs import fields
from server.metrics import ABORTS, HTTP_CUTOFFS, Cutoff, Ending
from server.proxies import PROBES
from server.settings import Settings

log = logging.getLogger("tablewire.transport")

KEEPALIVE_CLOSE = 1011
"""The close code of a connection that did not answer a keepalive ping in time."""
INVALID_DATA = 1007
"""The close code of a text message that is not UTF-8."""
POLICY_VIOLATION = 1008
"""The close code of a connection that sends too many frames that are no whole message."""


def _response(status: bytes) -> bytes:
    return b"HTTP/1.1 " + status + b"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


CUT_OFF = "tablewire.cut_off"
"""The scope key of a request's note from the transport: a dict that gets the ``reason``
if the transport cuts the request off (its body deadline), so that the request's own
handling (:class:`server.app.ApiFaults`) does not log the same end a second time."""

LINGER_BYTES = 1 << 20
"""What a refused request may still send after its answer, read and dropped (a lingering
close, as nginx's ``lingering_close``), before its socket is reset. A socket closed with
bytes it has not read is reset at once, and the reset can reach a client still sending
its request before the answer does: it saw a reset connection, not the 431."""

REQUEST_TIMEOUT = _response(b"408 Request Timeout")
HEADERS_TOO_LARGE = _response(b"431 Request Header Fields Too Large")


class GuardedHttp(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` with header and body deadlines and a header size cap."""

    def __init__(self, *args: Any, settings: Settings | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.settings = settings or Settings()
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes: int | None = None
        """Bytes of the request line and headers so far; None once they are complete."""
        self._note: dict[str, str] = {}
        """The request's :data:`CUT_OFF` note (in its scope)."""
        self._lingering: int | None = None
        """Once a request is refused: the bytes it may still send (:data:`LINGER_BYTES`)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:
            self._lingering -= len(data)
            if self._lingering < 0:
                self.transport.abort()
            return
        counted = self._header_bytes
        if counted is not None:
            room = self.settings.max_header_bytes - counted
            if len(data) > room:
                # The cap is passed in this read unless the headers end within it: the
                # parser gets the bytes up to the cap first (a body, or the next
                # request, may follow them in the same read and does not count).
                super().data_received(data[:room])
                if self._header_bytes is not None:  # (on_headers_complete sets None)
                    self._refuse(HEADERS_TOO_LARGE, Cutoff.HEADERS_TOO_LARGE)
                    return
                transport = self.transport  # a WebSocket's once upgraded (no parser here)
                if transport.get_protocol() is not self or transport.is_closing():
                    return
                if self.parser.should_upgrade():
                    return  # an upgrade uvicorn refused: it drops what follows, as here
                data = data[room:]
            else:
                self._header_bytes = counted + len(data)
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_bytes is None:  # the next request of a keep-alive connection
            self._await_headers()

    def on_headers_complete(self) -> None:
        self._disarm()
        self._header_bytes = None
        self._note = {}
        cast(dict[str, Any], self.scope)[CUT_OFF] = self._note  # before the app sees it
        if self.url.partition(b"?")[0].decode("latin-1") in PROBES:
            # Never refused by uvicorn's limit_concurrency (max_connections): a process
            # that holds all its sockets is full, not ill (a liveness probe told 503
            # would have it restarted, its players dropped).
            limit, self.limit_concurrency = self.limit_concurrency, None
            try:
                super().on_headers_complete()
            finally:
                self.limit_concurrency = limit
        else:
            super().on_headers_complete()
        if not (self.parser.should_upgrade() and self._should_upgrade()):
            self._arm(self.settings.body_timeout, self._body_timed_out)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The WebSocket protocol has the transport now; this one is done. Its parser
        # refers back to it (a reference cycle): dropping the parser lets it be freed at
        # once, not by the collector's next full pass.
        del self.parser

    def _await_headers(self) -> None:
        self._header_bytes = 0
        self._arm(
            self.settings.header_timeout, self._refuse, REQUEST_TIMEOUT, Cutoff.HEADER_TIMEOUT
        )

    def _arm(self, delay: float, callback: Any, *args: Any) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(delay, callback, *args)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _refuse(self, response: bytes, why: Cutoff) -> None:
        """Answer ``response`` to a request that is not coming, and close: the sending
        side at once, the socket once the client has closed its own (what it still sends
        is dropped, up to :data:`LINGER_BYTES`) or after ``close_timeout``."""
        self._disarm()
        self._cut_off(why)
        if not self.transport.is_closing() and self._lingering is None:
            self._lingering = LINGER_BYTES
            self.transport.write(response)
            if self.transport.can_write_eof():
                self.transport.write_eof()
            else:
                self.transport.close()
        self.loop.call_later(self.settings.close_timeout, self.transport.abort)

    def _body_timed_out(self) -> None:
        self._deadline = None
        self._note["reason"] = Cutoff.BODY_TIMEOUT.value
        self._cut_off(Cutoff.BODY_TIMEOUT, self.scope.get("path"))
        self.transport.abort()

    def _cut_off(self, why: Cutoff, path: str | None = None) -> None:
        """Count and log (one ``info`` line) a request the server gives up on; ``path``
        once its headers are in."""
        HTTP_CUTOFFS.labels(why).inc()
        peer = self.transport.get_extra_info("peername")
        client = str(peer[0]) if isinstance(peer, tuple) and peer else None
        where = {"path": path} if path is not None else {}
        log.info("request cut off", extra=fields(reason=why.value, peer=client, **where))


def guarded(settings: Settings) -> type[GuardedHttp]:
    """For ``uvicorn.run(http=...)``: makes :class:`GuardedHttp` protocols bound to
    ``settings``. uvicorn makes each protocol itself, with its own arguments, so it is
    given a factory; not a subclass, which a compiled class does not allow."""
    return cast(type[GuardedHttp], functools.partial(GuardedHttp, settings=settings))


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, parsing only what the application takes,
    and handing binary messages straight to a *sink* once the application has one.

    uvicorn parses every frame of a read (a flood of tiny frames: tens of
    thousands in one call, the loop blocked meanwhile) into the application's
    queue before it pauses reading. Here bytes are parsed in
    slices of ``SLICE`` and, once ``PENDING`` messages wait, the rest is kept
    unparsed and reading is paused until the application has taken them. A
    client flooding frames then costs what the connection reads (rate
    limited, :mod:`server.connection`), not what it sends.

    **The sink.** Through the ASGI queue, every message costs a queue hop, a
    task switch to the application's reader and a pause and resume of the
    socket's reading. With :meth:`listen`, each binary message is passed to
    the sink as soon as it is parsed, in the same turn of the loop; the sink
    must not block. Everything else (text messages, the close, the
    disconnect) still goes to the queue, so the application's ``receive``
    sees the end of the connection as before; control frames are answered
    here as before.

    **Whole binary frames.** What a client sends most (an intent: one
    masked, unfragmented binary frame, whole in one read) skips the
    websockets parser too: while that parser waits at a frame boundary (its
    buffer empty, no fragmented message begun) and no extension is in use,
    :meth:`_take_frames` unmasks such frames at the start of a read and
    hands them to the sink. The first byte that is anything else (a control
    frame, a text or fragmented or compressed frame, a frame cut by the
    read, one over the size limit, an unmasked one) and all after it go to
    the parser as before, which answers or refuses them as it always did.
    It needs to read the parser's state (websockets 16 and later name it as
    :data:`PARSER_STATE` does); with an older websockets every frame goes
    through the parser.

    **Its own closes.** A close this layer decides itself (a keepalive ping
    unanswered for ``ws_ping_timeout``, a frame the parser refuses, a
    text message that is not UTF-8) is noted
    in :attr:`ended`, so that the application counts and logs it. The
    keepalive close tells the application at once (a disconnect, code 1011)
    and does not close the socket: uvicorn's would, and a socket closed with
    unsent data is left to the kernel, which keeps trying to deliver it to a
    peer that does not read; here the application resets it after
    ``close_timeout`` (:func:`reset`), or this protocol does after its own
    close timeout.
    """

    PARSER_STATE: ClassVar[tuple[str, ...]] = ("current_size", "max_message_size")
    """The websockets protocol attributes :meth:`_take_frames` reads (websockets ≥ 16)."""

    SLICE: ClassVar[int] = 4096
    PENDING: ClassVar[int] = 16

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unparsed = b""
        self._sink: Callable[[bytes], None] | None = None
        self._whole_frames = False
        """Whether :meth:`_take_frames` can read this websockets version's parser state."""
        self.ended: tuple[Ending, int] | None = None
        """Why and with which close code this layer ended the connection, if it did."""
        self._spare: TokenBucket | None = None
        """The frames that are no whole message this connection may still send
        (:meth:`bound_frames`)."""

    def listen(self, sink: Callable[[bytes], None]) -> bool:
        """Deliver binary messages to ``sink`` from now on. False (and nothing changes)
        while messages still wait in the queue: take them first, in order."""
        if not self.queue.empty() or self._unparsed or self.close_sent:
            return False
        self._sink = sink
        # The handshake's request and response (their headers are most of what a
        # connection holds) are read only until the accept: a long-lived connection
        # lets go of them.
        for name in ("request", "response"):
            if hasattr(self, name):
                delattr(self, name)
        conn = self.conn
        self._whole_frames = all(hasattr(conn, name) for name in self.PARSER_STATE) and hasattr(
            conn.reader, "buffer"
        )
        if self.read_paused and not self.transport.is_closing():
            self.read_paused = False
            self.transport.resume_reading()
        return True

    def bound_frames(self, rate: float, burst: int) -> None:
        """Close the connection (1008; :attr:`ended` ``rate_limited``) once it sends frames
        that are no whole message (continuation frames, a fragmented message's first,
        pings, pongs) faster than ``rate`` a second after ``burst`` (``rate`` 0: no
        bound). Each costs a parse (a ping a pong too) and is no message the limits of
        :mod:`server.connection` count: a message in a thousand one-byte fragments, or a
        ping flood, would take the loop for free."""
        self._spare = TokenBucket(rate, max(1.0, burst), self.loop.time()) if rate > 0 else None

    def _spent(self) -> bool:
        """Count one frame that is no whole message: True, and the connection closing,
        past the bound."""
        spare = self._spare
        if spare is None or self.close_sent or spare.take(self.loop.time()):
            return False
        self.frames = []
        self.conn.send_close(POLICY_VIOLATION, "too many fragments or control frames")
        self.handle_parser_exception()
        self.ended = (Ending.RATE_LIMITED, POLICY_VIOLATION)
        return True

    def handle_cont(self, event: Frame) -> None:
        if not self._spent():
            super().handle_cont(event)

    def handle_text(self, event: Frame) -> None:
        if event.fin or not self._spent():
            super().handle_text(event)

    def handle_bytes(self, event: Frame) -> None:
        if event.fin or not self._spent():
            super().handle_bytes(event)

    def handle_ping(self) -> None:
        if not self._spent():
            super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if not self._spent():
            super().handle_pong(event)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # Free the connection at once, not at the collector's next full pass: the sink
        # refers back to the application's connection, and the websockets parser (a
        # generator suspended on its own protocol) is a reference cycle until it ends.
        self._sink = None
        self.conn.parser.close()

    def keepalive_timeout(self) -> None:
        """No pong in time: close with 1011, tell the application, reset the socket later
        (not uvicorn's ``transport.close``, which leaves the unsent data to the kernel)."""
        self.pong_timer = None
        self.pending_ping_payload = None
        if self.close_sent or self.transport.is_closing():
            return
        self.ended = (Ending.KEEPALIVE_TIMEOUT, KEEPALIVE_CLOSE)
        self.conn.fail(KEEPALIVE_CLOSE, "keepalive ping timeout")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.queue.put_nowait({"type": "websocket.disconnect", "code": KEEPALIVE_CLOSE})
        self.close_timer = self.loop.call_later(self.close_timeout, reset, self.transport)

    def handle_parser_exception(self) -> None:
        if self.conn.close_sent is not None:
            self.ended = (Ending.PROTOCOL_ERROR, self.conn.close_sent.code)
        super().handle_parser_exception()

    def send_receive_event_to_app(self) -> None:
        sink = self._sink
        if sink is None or self.close_sent or self.curr_msg_data_type != "bytes":
            if self.curr_msg_data_type == "text" and not self.close_sent and self._not_utf8():
                return
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        sink(data)

    def _not_utf8(self) -> bool:
        """Close with 1007 a text message that is not UTF-8, as uvicorn does, but without
        its error and traceback in the log (any client could fill it with them): the
        application counts and logs the close (:attr:`ended`) like any other this layer
        decides. (A text message is refused anyway: decoding it twice costs no move.)"""
        try:
            b"".join(self.frames).decode()
        except UnicodeDecodeError:
            self.frames = []
            self.conn.send_close(INVALID_DATA, "invalid UTF-8 in a text frame")
            self.handle_parser_exception()
            return True
        return False

    def data_received(self, data: bytes) -> None:
        if self._whole_frames and self._sink is not None and not self._unparsed:
            # (Before the queue's check: the sink's frames never go to the queue.)
            start = self._take_frames(data)
            if start:
                if start == len(data):
                    return
                data = data[start:]
        if self._unparsed or self._full():
            self._unparsed += data
            self._hold()
            return
        self._parse(data)

    def _take_frames(self, data: bytes) -> int:
        """Hand the whole masked binary frames at the start of ``data`` to the sink
        (:func:`server.frames.whole_frames`); the offset of the first byte left for the
        parser."""
        conn = self.conn
        if (
            conn.reader.buffer
            or conn.current_size is not None
            or conn.extensions
            or conn.state is not OPEN
            or self.frames
        ):
            return 0
        limit = conn.max_message_size
        start = 0
        for payload, stop in whole_frames(data, -1 if limit is None else limit):
            sink = self._sink
            if sink is None or self.close_sent or self.transport.is_closing():
                break
            sink(payload)
            start = stop
        return start

    async def receive(self) -> Any:
        message = await super().receive()
        if self._unparsed and not self._full():
            data, self._unparsed = self._unparsed, b""
            self._parse(data)
        return message

    def _full(self) -> bool:
        return self.handshake_complete and self.queue.qsize() >= self.PENDING

    def _parse(self, data: bytes) -> None:
        for start in range(0, len(data), self.SLICE):
            if self.transport.is_closing():
                return
            if self._full():
                self._unparsed = data[start:]
                self._hold()
                return
            super().data_received(data[start : start + self.SLICE])

    def _hold(self) -> None:
        if not self.read_paused and not self.transport.is_closing():
            self.read_paused = True
            self.transport.pause_reading()


# -- writing to the socket -----------------------------------------------------------


class Abortable(Protocol):
    """The part of an asyncio transport that ends a connection at once."""

    def abort(self) -> None: ...

    def get_extra_info(self, name: str, default: Any = None) -> Any: ...

    def is_closing(self) -> bool: ...

    def get_write_buffer_size(self) -> int: ...


LINGER_OFF = struct.pack("ii", 1, 0)


def set_send_buffer(transport: Abortable, size: int) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and size > 0:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


def _libc_malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(ctypes.util.find_library("c") or "").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


class MemoryReturn:
    """Gives the memory aborted connections held back to the operating system.

    Freed buffers stay in the C allocator's heap (the next connections reuse
    them, but the process's RSS does not go down); glibc's ``malloc_trim``
    returns the free pages. It runs in a thread (ctypes releases the GIL), at
    most once per ``interval`` seconds, only after aborts.
    """

    interval = 1.0

    def __init__(self) -> None:
        self._trim = _libc_malloc_trim()
        self._pending = False

    def soon(self) -> None:
        if self._trim is None or self._pending:
            return
        self._pending = True
        asyncio.get_running_loop().call_later(self.interval, self._run)

    def _run(self) -> None:
        self._pending = False
        if self._trim is not None:
            asyncio.get_running_loop().run_in_executor(None, self._trim, 0)


MEMORY = MemoryReturn()


def reset(transport: Abortable) -> None:
    """Abort with a TCP reset: the kernel drops the unsent bytes too, at once, instead
    of holding them for a peer that does not read."""
    if transport.is_closing() and not transport.get_write_buffer_size():
        return  # closed, or closing with nothing left to send
    ABORTS.inc()
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_OFF)
    transport.abort()
    MEMORY.soon()


SERVER_SEND = "tablewire.server_send"
"""The scope key under which :class:`KeepServerSend` keeps the server's own ``send``."""


class KeepServerSend:
    """ASGI middleware: a WebSocket scope goes on with the server's own ``send`` in it.

    Starlette's routing wraps ``send`` before a route's endpoint sees it; the
    ``/ws/rooms/{room_id}`` route takes uvicorn's protocol (and its transport) from
    the one kept here, to write frames straight to it (:class:`DirectWriter`).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # A scope of its own: uvicorn's protocol holds the one it made, and that one
            # holding the protocol's method would be a reference cycle.
            scope = {**scope, SERVER_SEND: send}
        await self.app(scope, receive, send)


def transport_of(send: Any) -> Abortable | None:
    """The transport under uvicorn's ASGI ``send`` (any of its WebSocket protocols), if any."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    return transport if callable(getattr(transport, "abort", None)) else None


def reader_of(send: Any) -> BoundedWebSocket | None:
    """The protocol under uvicorn's ASGI ``send`` if it can hand frames to a sink."""
    protocol = getattr(send, "__self__", None)
    return protocol if isinstance(protocol, BoundedWebSocket) else None
