"""A server whose new connections are refused before ``welcome`` with one close code (a
reconnect's handshake closed as a protocol error: docs/protocol.md §2, How a connection
ends), for the tests of what the clients do then."""

from __future__ import annotations

import asyncio

import pytest

from server import connection
from server.connection import SocketConnection
from server.room import Room
from server.settings import Settings


class RefusedHandshakes:
    """From :meth:`start` on, every new connection's ``hello`` is answered by closing the
    WebSocket with ``close_code`` and no frame; :attr:`again` is set once a second
    handshake comes (the client retried what the server refused for good)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, close_code: int) -> None:
        self.monkeypatch, self.close_code = monkeypatch, close_code
        self.refused = 0
        self.again = asyncio.Event()

    def start(self) -> None:
        self.monkeypatch.setattr(connection, "_join", self._join)

    async def _join(self, conn: SocketConnection, room: Room, settings: Settings) -> bool:
        await conn.receive()  # the hello
        await conn.ws.close(self.close_code)
        self.refused += 1
        if self.refused > 1:
            self.again.set()
        return False

    async def retried_or(self, task: asyncio.Task[object]) -> bool:
        """Wait until ``task`` ends or a second handshake comes: whether one came first."""
        again = asyncio.ensure_future(self.again.wait())
        await asyncio.wait([task, again], return_when=asyncio.FIRST_COMPLETED)
        again.cancel()
        if not task.done():
            task.cancel()
        return self.again.is_set()
