"""Clients that misbehave on purpose, for the abuse tests and benchmarks.

* :class:`NonReader`: a WebSocket spectator that does the handshake and
  ``hello``, then never reads again (a tiny receive buffer, so the server's
  frames back up fast). It may ask for answers it will not read (pings).
* :func:`slowloris`: an HTTP connection that sends nothing, or half a request.
* :func:`server_closed`: whether the server has closed (or reset) a socket.
* :class:`RelayMover`: a turn-relay room whose four seats move as fast as the
  server answers, counting moves.
* :func:`idle_spectator`: a spectator from a chosen local address that says
  ``hello`` and nothing more (one address holding many connections).

Everything but :func:`idle_spectator` runs on raw sockets and websockets'
sans-I/O client, so nothing reads behind the caller's back.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response
from websockets.uri import parse_uri

from clients.addresses import ws_url
from clients.client import LobbyClient
from clients.lean import LeanClient
from engines import benchmark
from protocol import PROTOCOL_VERSION
from protocol.codec import decode, encode

WORKLOAD, _RULES = benchmark()
"""The benchmark engine (``kind == "benchmark"``), found by kind."""
SEATS: int = WORKLOAD.max_players
client_move = _RULES.client_move


async def _connect(url: str, rcvbuf: int | None = None) -> socket.socket:
    where = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(
        sock, (where.hostname or "127.0.0.1", where.port or 80)
    )
    return sock


class NonReader:
    """A spectator of ``room_id`` that stops reading right after its handshake."""

    def __init__(self, server_url: str, room_id: str, rcvbuf: int = 4096) -> None:
        self.url = f"{ws_url(server_url)}/ws/rooms/{room_id}"
        self.rcvbuf = rcvbuf
        self.sock: socket.socket | None = None
        self._ws = ClientProtocol(parse_uri(self.url), max_size=None)

    async def connect(self) -> None:
        """Handshake (reading only the HTTP response), then ``hello``; no read after."""
        loop = asyncio.get_running_loop()
        self.sock = await _connect(self.url, self.rcvbuf)
        self._ws.send_request(self._ws.connect())
        await loop.sock_sendall(self.sock, b"".join(self._ws.data_to_send()))
        while not any(isinstance(e, Response) for e in self._ws.events_received()):
            data = await loop.sock_recv(self.sock, 1024)
            if not data:
                raise ConnectionError("the server closed the connection during the handshake")
            self._ws.receive_data(data)
        await self.send({"t": "hello", "protocol": PROTOCOL_VERSION, "token": None})

    async def send(self, message: dict[str, object]) -> None:
        """Send a frame to the server (nothing, once the server has cut the socket)."""
        assert self.sock is not None
        self._ws.send_binary(encode(message))
        data = b"".join(self._ws.data_to_send())
        with contextlib.suppress(OSError):
            await asyncio.get_running_loop().sock_sendall(self.sock, data)

    async def closed_by_server(self) -> str:
        """Read (now, at last) until the server's end: ``"reset"`` or ``"eof"``."""
        assert self.sock is not None
        return await server_closed(self.sock)

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()


async def server_closed(sock: socket.socket) -> str:
    """Drain ``sock`` until the server closes it: ``"reset"`` or ``"eof"``."""
    loop = asyncio.get_running_loop()
    try:
        while await loop.sock_recv(sock, 1 << 16):
            pass
    except ConnectionResetError:
        return "reset"
    return "eof"


async def slowloris(server_url: str, half: bool) -> socket.socket:
    """A connection that sends nothing (``half`` False) or an unfinished request."""
    sock = await _connect(server_url)
    if half:
        where = urlsplit(server_url)
        start = f"POST /api/rooms HTTP/1.1\r\nHost: {where.netloc}\r\nX-Wait: "
        await asyncio.get_running_loop().sock_sendall(sock, start.encode())
    return sock


class RelayMover:
    """A turn-relay room, its four seats moving as fast as the server lets them."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.room_id = ""
        self.made = 0
        self.players: list[LeanClient] = []

    async def open(self) -> str:
        """Create the room and take its seats; return its id (the game starts at once)."""
        async with LobbyClient(self.server_url) as lobby:
            room = await lobby.create_room(WORKLOAD.id, seats=SEATS)
            self.room_id = room["id"]
            seats = [await lobby.reserve(self.room_id, name=f"p{i}") for i in range(SEATS)]
        ws = ws_url(self.server_url)
        self.players = [LeanClient(ws, self.room_id, seat["token"]) for seat in seats]
        for player in self.players:
            await player.connect()
        return self.room_id

    async def run(self) -> None:
        """Move until cancelled or the game ends: each move is sent by the seat to act once
        it sees the move before (by the turn relay's ``moveCount``, as bench/turn-relay.md
        paces moves: a player leaving or coming back logs versions that are no move)."""
        first = self.players[0]
        await first.wait_until(lambda c: c.doc is not None and c.doc["status"] == "playing")
        count = first.move_count or 0
        while True:
            await first.wait_moves(count)
            to_act = first.doc["to_act"]
            if not to_act:  # the game is over
                return
            mover = self.players[to_act[0]]
            await mover.wait_moves(count)
            mover.send(
                {
                    "t": "intent",
                    "id": mover.new_intent_id(),
                    "action": client_move(mover.doc["game"]),
                }
            )
            count += 1
            self.made += 1

    def close(self) -> None:
        for player in self.players:
            player.close()


async def idle_spectator(url: str, local: str) -> tuple[ClientConnection, dict[str, Any]]:
    """A spectator of the room at WebSocket ``url``, connected from the local address
    ``local`` (any 127.x.y.z on Linux), that sends ``hello`` and nothing more: its
    connection and the server's first frame (``welcome``, or an ``error`` that a
    refused connection gets before its ``hello``)."""
    ws = await connect(url, max_size=None, local_addr=(local, 0))
    with contextlib.suppress(ConnectionClosed):  # refused: already closed
        await ws.send(encode({"t": "hello", "protocol": 2, "token": None, "since": None}))
    frame: dict[str, Any] = decode(await ws.recv(decode=False))
    return ws, frame
