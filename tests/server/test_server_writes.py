"""Backpressure and writes of a room connection: a client that does not read is closed as
too slow, frames go out in one write a turn of the loop, and a close comes after the
frames sent before it."""

from __future__ import annotations

import asyncio

from doubles import FakeProtocol
from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol.codec import decode, encode
from server.connection import SocketConnection
from server.settings import Settings
from server.writer import FLUSHER, DirectWriter

# -- backpressure -----------------------------------------------------------------


class StalledSocket:
    """A WebSocket whose peer never reads: sends never complete."""

    async def send_bytes(self, data: bytes) -> None:
        await asyncio.Event().wait()


async def test_a_client_that_does_not_read_is_closed_as_too_slow() -> None:
    conn = SocketConnection(StalledSocket(), Settings(send_queue=4))  # type: ignore[arg-type]
    for i in range(5):
        conn.send(bytes([i]))
    assert conn.closing
    queued = [conn._queue.get_nowait() for _ in range(conn._queue.qsize())]
    assert decode(queued[0])["code"] == "too_slow" and queued[1] is None
    conn.send(b"later")
    assert conn._queue.empty(), "nothing is queued after the close"


async def test_direct_writes_go_to_the_transport_and_a_full_buffer_is_too_slow() -> None:
    protocol = FakeProtocol()
    direct = DirectWriter.of(protocol.send)
    assert direct is not None and DirectWriter.of(StalledSocket().send_bytes) is None
    conn = SocketConnection(StalledSocket(), Settings(send_buffer=100), direct)  # type: ignore[arg-type]
    conn.send(bytes(60))
    assert protocol.transport.buffered == 0  # written at the loop's next turn
    conn.flush()
    assert protocol.transport.buffered == 62 and not conn.closing  # 2-byte frame header
    conn.send(bytes(60))
    conn.flush()
    assert conn.closing
    queued = [conn._queue.get_nowait() for _ in range(conn._queue.qsize())]
    assert decode(queued[0])["code"] == "too_slow" and queued[1] is None


async def test_frames_sent_in_one_turn_of_the_loop_go_out_in_one_write() -> None:
    protocol = FakeProtocol()
    direct = DirectWriter.of(protocol.send)
    conn = SocketConnection(StalledSocket(), Settings(), direct)  # type: ignore[arg-type]
    ack, update, big = encode({"t": "ack"}), encode({"t": "patch"}), bytes(300)
    conn.send(ack)
    conn.send(update)
    conn.send(big)
    await asyncio.sleep(0)  # the flush is one callback on the loop's next turn
    assert protocol.transport.writes == [
        bytes((0x82, len(ack))) + ack + bytes((0x82, len(update))) + update
        + bytes((0x82, 126)) + (300).to_bytes(2, "big") + big
    ]  # fmt: skip
    # the same bytes websockets' own framing gives
    framing = ServerProtocol()
    framing.state = State.OPEN
    for frame in (ack, update, big):
        framing.send_binary(frame)
    assert protocol.transport.writes == [b"".join(framing.data_to_send())]


async def test_what_a_client_frame_causes_is_written_when_it_is_handled() -> None:
    """Between FLUSHER.hold and release (around each client frame) nothing waits for the
    loop's next turn: every connection's frames go out in one write at the release."""
    protocol, other = FakeProtocol(), FakeProtocol()
    mover = SocketConnection(StalledSocket(), Settings(), DirectWriter.of(protocol.send))  # type: ignore[arg-type]
    watcher = SocketConnection(StalledSocket(), Settings(), DirectWriter.of(other.send))  # type: ignore[arg-type]
    ack, update = encode({"t": "ack"}), encode({"t": "patch"})
    FLUSHER.hold()
    mover.send(ack)
    mover.send(update)
    watcher.send(update)
    assert protocol.transport.writes == other.transport.writes == []
    FLUSHER.release()
    assert protocol.transport.writes == [
        bytes((0x82, len(ack))) + ack + bytes((0x82, len(update))) + update
    ]
    assert other.transport.writes == [bytes((0x82, len(update))) + update]
    await asyncio.sleep(0)  # and no callback writes anything again
    assert len(protocol.transport.writes) == len(other.transport.writes) == 1


async def test_frames_sent_before_a_close_go_out_before_it() -> None:
    protocol = FakeProtocol()
    conn = SocketConnection(StalledSocket(), Settings(), DirectWriter.of(protocol.send))  # type: ignore[arg-type]
    conn.send(encode({"t": "patch"}))
    conn.close("room_closed", "room closed")
    assert len(protocol.transport.writes) == 1 and conn.closing
    assert decode(conn._queue.get_nowait())["code"] == "room_closed"
