"""Limits in isolation: token buckets, per-address tables, and a connection whose
client never takes its frames (ended within ``close_timeout`` under any ASGI server)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import uvicorn
import websockets
from uvicorn.server import ServerState
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.protocol import OPEN
from websockets.uri import parse_uri

from conftest import listening_socket
from protocol.codec import encode
from server.connection import SocketConnection, serve
from server.limits import Buckets, FrameLimits, Gate, Kind, TokenBucket
from server.settings import Settings
from server.transport import BoundedWebSocket, GuardedHttp, guarded


def test_a_bucket_spends_its_burst_then_refills_at_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.5) and not bucket.take(0.5)
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False], "never above burst"


def test_per_key_buckets_are_separate_and_idle_ones_are_dropped() -> None:
    buckets = Buckets(rate=1.0, burst=1)
    assert buckets.take("a", 0.0) and not buckets.take("a", 0.0)
    assert buckets.take("b", 0.0)
    assert len(buckets) == 2
    assert buckets.take("c", 10.0)  # a and b have refilled: forgotten
    assert len(buckets) == 1
    assert Buckets(rate=0, burst=0).take("x", 0.0), "rate 0: no limit"


def test_connections_of_one_address_share_its_buckets() -> None:
    now = [0.0]
    settings = Settings(ping_rate=1.0, ping_burst=2, address_factor=1.5, rate_strikes=2)
    gate = Gate(settings, clock=lambda: now[0])
    first, second = gate.frame_limits("198.51.100.1"), gate.frame_limits("198.51.100.1")
    other = gate.frame_limits("198.51.100.2")
    assert first.allow(Kind.PING) and first.allow(Kind.PING)
    assert second.allow(Kind.PING), "the address's bucket holds 3"
    assert not second.allow(Kind.PING) and not second.exhausted
    assert not second.allow(Kind.PING) and second.exhausted
    assert other.allow(Kind.PING) and other.allow(Kind.INTENT)


def test_the_gate_counts_connections_and_refuses_above_the_cap() -> None:
    gate = Gate(Settings(max_connections=1))
    assert gate.admit("a") is None and gate.open == 1
    assert gate.admit("b") is not None and gate.open == 1
    gate.leave("a")
    assert gate.admit("b") is None


def test_one_address_holds_at_most_address_connections() -> None:
    gate = Gate(Settings(address_connections=2))
    assert gate.admit("198.51.100.1") is None and gate.admit("198.51.100.1") is None
    refusal = gate.admit("198.51.100.1")
    assert refusal is not None and "holds 2 connections" in refusal
    assert gate.admit("198.51.100.2") is None, "another address is not held back"
    assert gate.admit("127.0.0.1", load_test=True) is None
    assert gate.admit("127.0.0.1", load_test=True) is None
    assert gate.admit("127.0.0.1", load_test=True) is None, "a load generator is not capped"
    gate.leave("198.51.100.1")
    assert gate.admit("198.51.100.1") is None, "a connection that ended frees its place"
    for _ in range(3):
        gate.leave("127.0.0.1")
    assert gate.open == 3 and "127.0.0.1" not in gate.by_address
    assert Gate(Settings(address_connections=0)).admit("x") is None


async def test_a_client_that_takes_nothing_for_send_timeout_is_too_slow() -> None:
    conn = SocketConnection(StalledSocket(), Settings(send_timeout=60))  # type: ignore[arg-type]
    conn.send(b"frame")  # queued, never written: the writer is not running
    conn._check_progress(conn._progress())
    assert conn.closing


class StalledSocket:
    """A WebSocket whose peer never reads: sends never complete, nothing arrives."""

    scope: dict[str, Any] = {"client": ("192.0.2.1", 1)}  # noqa: RUF012

    async def accept(self) -> None:
        pass

    async def send_bytes(self, data: bytes) -> None:
        await asyncio.Event().wait()

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class Transport:
    def __init__(self) -> None:
        self.aborted = asyncio.Event()

    def abort(self) -> None:
        self.aborted.set()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 1


class NoRooms:
    async def open(self, room_id: str) -> None:
        return None

    def benchmark(self, room_id: str) -> bool:
        return False


async def test_a_closing_connection_that_cannot_flush_is_aborted_after_close_timeout() -> None:
    settings = Settings(close_timeout=0.01)
    transport = Transport()
    gate = Gate(settings)
    ws: Any = StalledSocket()
    # no_such_room: a fatal error the stalled socket never takes; serve still ends
    await serve(ws, "gone", NoRooms(), settings, gate=gate, transport=transport)  # type: ignore[arg-type]
    await transport.aborted.wait()
    assert gate.open == 0


def test_a_rate_of_zero_is_no_limit() -> None:
    gate = Gate(Settings(intent_rate=0, address_factor=0))
    limits: FrameLimits = gate.frame_limits("a")
    assert all(limits.allow(Kind.INTENT) for _ in range(1000))


class PausableTransport:
    """What uvicorn's WebSocket protocol needs of a transport, recording pauses."""

    def __init__(self) -> None:
        self.paused = False
        self.written = b""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 1) if name in ("peername", "sockname") else default

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.written += data

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def close(self) -> None:
        pass


async def _accepted() -> tuple[BoundedWebSocket, PausableTransport, ClientProtocol]:
    """A BoundedWebSocket whose handshake a client has made and the app accepted."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.Event().wait()

    config = uvicorn.Config(app, ws=BoundedWebSocket, lifespan="off", log_config=None)
    config.load()
    protocol = BoundedWebSocket(config=config, server_state=ServerState(), app_state={})
    transport = PausableTransport()
    protocol.connection_made(transport)  # type: ignore[arg-type]
    client = ClientProtocol(parse_uri("ws://127.0.0.1/ws/rooms/r"))
    client.send_request(client.connect())
    protocol.data_received(b"".join(client.data_to_send()))
    await protocol.send({"type": "websocket.accept"})
    client.receive_data(transport.written)
    return protocol, transport, client


async def test_a_flood_of_frames_is_parsed_only_as_the_application_takes_them() -> None:
    protocol, transport, client = await _accepted()
    for _ in range(10_000):
        client.send_binary(encode({"t": "ping"}))
    protocol.data_received(b"".join(client.data_to_send()))  # one read, 10,000 frames
    assert protocol.queue.qsize() < 1000, "the rest waits unparsed"
    assert transport.paused
    for _ in range(10):  # connect, then frames
        await protocol.receive()
    assert protocol.queue.qsize() < 1000
    protocol.connection_lost(None)
    for task in list(protocol.tasks):
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_an_upgraded_http_protocol_leaves_no_cyclic_garbage() -> None:
    """Each WebSocket connection's HTTP protocol is freed at once after the upgrade, not
    left for the collector's next full pass (which grows with every connection)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await receive()

    sock = listening_socket()
    config = uvicorn.Config(
        app, http=guarded(Settings()), ws=BoundedWebSocket, lifespan="off", log_config=None
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    url = f"ws://127.0.0.1:{sock.getsockname()[1]}/ws/rooms/r"
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        clients = [await connect(url) for _ in range(5)]
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, GuardedHttp)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
    for client in clients:
        await client.close()
    server.should_exit = True
    await task
    sock.close()


async def _listening(taken: list[bytes]) -> tuple[BoundedWebSocket, PausableTransport]:
    """A BoundedWebSocket after its handshake, handing binary messages to ``taken``."""
    protocol, transport, _ = await _accepted()
    assert (await protocol.receive())["type"] == "websocket.connect"
    assert protocol.listen(taken.append)
    transport.written = b""
    return protocol, transport


async def _stop(protocol: BoundedWebSocket) -> None:
    protocol.connection_lost(None)
    for task in list(protocol.tasks):
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@pytest.mark.parametrize("readable", [True, False])
async def test_binary_messages_reach_the_sink_whole_and_in_order_however_reads_cut_them(
    readable: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole binary frames skip the websockets parser; everything else goes through it
    (pings answered, text queued, fragments joined), and the order is kept. Where the
    parser's state cannot be read (websockets before 16 names it otherwise) every
    frame goes through the parser, with the same result."""
    if not readable:
        monkeypatch.setattr(BoundedWebSocket, "PARSER_STATE", ("no_such_attribute",))
    fast = readable and int(websockets.__version__.split(".")[0]) >= 16
    big = bytes(range(256)) * 2  # a 16-bit length
    client = ClientProtocol(parse_uri("ws://127.0.0.1/ws/rooms/r"))
    client.state = OPEN  # frames only
    client.send_binary(b"one")
    client.send_binary(b"")
    client.send_ping(b"are you there")
    client.send_binary(big)
    client.send_text(b"words")
    client.send_binary(b"frag", fin=False)
    client.send_continuation(b"ment", fin=True)
    client.send_binary(b"last")
    stream = b"".join(client.data_to_send())
    for size in (len(stream), 1, 2, 5, 7, 64):
        taken: list[bytes] = []
        protocol, transport = await _listening(taken)
        assert protocol._whole_frames is fast
        for start in range(0, len(stream), size):
            protocol.data_received(stream[start : start + size])
        assert taken == [b"one", b"", big, b"fragment", b"last"], size
        assert (await protocol.receive()) == {"type": "websocket.receive", "text": "words"}
        assert transport.written == b"\x8a\x0dare you there", "the ping answered"
        await _stop(protocol)


async def test_an_unmasked_or_oversized_frame_is_refused_by_the_parser_as_before() -> None:
    for frame, code in ((b"\x82\x02hi", 1002), (b"\x82\xff" + (1 << 40).to_bytes(8, "big"), 1009)):
        taken: list[bytes] = []
        protocol, transport = await _listening(taken)
        client = ClientProtocol(parse_uri("ws://127.0.0.1/ws/rooms/r"))
        client.state = OPEN
        client.send_binary(b"ok")
        protocol.data_received(b"".join(client.data_to_send()))
        protocol.data_received(frame + b"\x00" * 8)
        assert taken == [b"ok"]
        close = transport.written
        assert close[0] == 0x88 and close[2:4] == code.to_bytes(2, "big"), frame
        await _stop(protocol)
