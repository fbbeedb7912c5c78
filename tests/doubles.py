"""Doubles shared by the tests and the benchmarks (benchmarks/common.py puts this
folder on the path): a seat that moves through :meth:`Room.submit`, and the parts of
uvicorn's WebSocket protocol and transport the direct writer uses. No pytest and no
network here, so a benchmark imports them as they are."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from websockets.protocol import State
from websockets.server import ServerProtocol

from protocol.codec import decode
from protocol.messages import Intent
from server.room import Room


class Mover:
    """Sends intents for one seat (its first legal action) and waits for each answer
    (ack or reject)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.protocol = 1
        self.ids = itertools.count(1)
        self.answer: asyncio.Future[dict[str, Any]] | None = None

    def send(self, frame: bytes) -> None:
        message = decode(frame)
        if message["t"] in ("ack", "reject") and self.answer and not self.answer.done():
            self.answer.set_result(message)

    def close(self, code: str, message: str) -> None:
        pass

    async def move(self, room: Room) -> dict[str, Any]:
        assert room.state is not None
        action = room.engine.legal_actions(room.state, self.seat)[0]
        self.answer = asyncio.get_running_loop().create_future()
        room.submit(self, Intent(next(self.ids), action))
        async with asyncio.timeout(5):
            return await self.answer


class FakeTransport:
    """A socket's transport. ``stalled``: its peer stopped reading, so everything
    written stays buffered (and is kept in ``writes``); else every write is taken at
    once, as by a socket with room in its buffer, and nothing is kept."""

    def __init__(self, stalled: bool = True) -> None:
        self.stalled = stalled
        self.buffered = 0
        self.writes: list[bytes] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        if self.stalled:
            self.buffered += len(data)
            self.writes.append(data)

    def get_write_buffer_size(self) -> int:
        return self.buffered


class FakeProtocol:
    """The parts of uvicorn's sans-I/O WebSocket protocol the direct writer uses, over
    a :class:`FakeTransport`."""

    def __init__(self, stalled: bool = True) -> None:
        self.conn = ServerProtocol()
        self.conn.state = State.OPEN
        self.transport = FakeTransport(stalled)
        self.close_sent = self.disconnected = False
        self.handshake_complete = True

    async def send(self, message: object) -> None:
        raise AssertionError("data frames must not go through ASGI send")
