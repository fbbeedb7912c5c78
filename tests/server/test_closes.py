"""Every end of a WebSocket connection is known: counted in ``tablewire_closes_total``
by reason, logged (``closed``) when the server ends it, and, when the server gives up
on it, reset, so that the kernel does not keep its unsent data (docs/protocol.md §2,
docs/operations.md).

Against a spawned ``tablewire serve`` with a keepalive of a second; no test asserts on
time: the waits poll the server's metrics, its log and ``/proc/net/tcp`` (what the
server's kernel holds), none of which a test can await.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from wire import GUARD, UNLIMITED_FRAMES, until

from clients.client import LobbyClient
from clients.rude import NonReader
from clients.spawn import SpawnedServer
from protocol.codec import decode, encode
from server.metrics import Ending
from server.serve import WS_MAX_SIZE

QUICK_KEEPALIVE = {
    "ws_ping_interval": 1,
    "ws_ping_timeout": 1,
    "close_timeout": 0.5,
    "send_timeout": 60,  # a quiet non-reader is the keepalive's, not too_slow's
    **UNLIMITED_FRAMES,
}


def closes(reason: Ending) -> str:
    return f'tablewire_closes_total{{reason="{reason}"}}'


@pytest.fixture
async def spawned() -> AsyncIterator[SpawnedServer]:
    server = await SpawnedServer(**QUICK_KEEPALIVE).start()
    yield server
    await server.stop()


async def waiting_room(url: str) -> str:
    """A room waiting for its players: it sends its spectators nothing after the snapshot."""
    async with LobbyClient(url) as lobby:
        room: dict[str, Any] = await lobby.create_room("sintra", seats=2)
    return str(room["id"])


def server_side(server_port: int, peer_port: int) -> list[tuple[int, int]]:
    """The server's sockets of the connection from ``peer_port`` on 127.0.0.1, as the
    kernel lists them: (TCP state, bytes in the send queue) each."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, state, queues = line.split()[1:5]
        if int(local.split(":")[1], 16) == server_port and (
            int(remote.split(":")[1], 16) == peer_port
        ):
            found.append((int(state, 16), int(queues.split(":")[0], 16)))
    return found


async def polled(check: Callable[[], bool]) -> None:
    """Until ``check()`` holds (what the server's kernel or log shows is not awaitable)."""
    async with asyncio.timeout(GUARD):
        while not check():  # noqa: ASYNC110
            await asyncio.sleep(0.05)


def closed_lines(server: SpawnedServer) -> list[dict[str, Any]]:
    """The ``closed`` lines of the server's log so far."""
    lines = []
    for text in server.log:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("event") == "closed":
            lines.append(line)
    return lines


def closed_for(server: SpawnedServer, reason: Ending) -> list[dict[str, Any]]:
    return [line for line in closed_lines(server) if line["reason"] == reason]


async def test_a_spectator_that_never_reads_is_closed_by_the_keepalive_counted_logged_and_reset(
    spawned: SpawnedServer,
) -> None:
    room_id = await waiting_room(spawned.url)
    reader = NonReader(spawned.url, room_id)
    try:
        await reader.connect()
        for _ in range(4):  # answers it will not read: they wait in the server's kernel
            await reader.send({"t": "ping", "data": "x" * 10000})
        assert reader.sock is not None
        peer = reader.sock.getsockname()[1]
        await polled(lambda: any(queued for _, queued in server_side(spawned.port, peer)))
        samples = await until(spawned.url, lambda s: s[closes(Ending.KEEPALIVE_TIMEOUT)] >= 1)
        assert samples[closes(Ending.TOO_SLOW)] == 0, "the keepalive's, not too_slow's"
        # Reset, not closed: the kernel keeps no socket of it with data to deliver.
        await polled(lambda: not server_side(spawned.port, peer))
        assert await reader.closed_by_server() == "reset"
        await polled(lambda: bool(closed_for(spawned, Ending.KEEPALIVE_TIMEOUT)))
        (line,) = closed_for(spawned, Ending.KEEPALIVE_TIMEOUT)
        assert line["level"] == "info"
        assert (line["room"], line["seat"], line["code"]) == (room_id, None, 1011)
        await until(spawned.url, lambda s: s["tablewire_connections"] == 0)
    finally:
        reader.close()


async def test_too_slow_client_closed_protocol_error_and_shutdown_are_counted_and_logged(
    spawned: SpawnedServer,
) -> None:
    room_id = await waiting_room(spawned.url)
    url = f"{spawned.ws}/ws/rooms/{room_id}"
    slow = NonReader(spawned.url, room_id)
    try:
        await slow.connect()
        for _ in range(20):  # 600 kB of answers: past send_buffer at once
            await slow.send({"t": "ping", "data": "x" * 30000})
        await until(spawned.url, lambda s: s[closes(Ending.TOO_SLOW)] == 1)
        assert await slow.closed_by_server() in ("reset", "eof")
    finally:
        slow.close()

    async with connect(url) as leaving:  # answers the keepalive: only it closes
        await leaving.send(encode({"t": "hello", "protocol": 2, "token": None}))
        assert decode(await leaving.recv(decode=False))["t"] == "welcome"
    samples = await until(spawned.url, lambda s: s[closes(Ending.CLIENT_CLOSED)] == 1)
    assert samples[closes(Ending.KEEPALIVE_TIMEOUT)] == 0

    async with connect(url, max_size=None) as oversized:  # refused by the WebSocket layer
        await oversized.send(encode({"t": "hello", "protocol": 2, "token": None}))
        assert decode(await oversized.recv(decode=False))["t"] == "welcome"
        await oversized.send(b"x" * (WS_MAX_SIZE + 1))
        with pytest.raises(ConnectionClosed) as refused:
            while True:
                await oversized.recv()
    assert refused.value.rcvd is not None and refused.value.rcvd.code == 1009
    assert "exceeds limit" in refused.value.rcvd.reason  # the WebSocket layer's words
    await until(spawned.url, lambda s: s[closes(Ending.PROTOCOL_ERROR)] == 1)

    staying = await connect(url)
    await staying.send(encode({"t": "hello", "protocol": 2, "token": None}))
    assert decode(await staying.recv(decode=False))["t"] == "welcome"
    await spawned.stop()
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await staying.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert closed.value.rcvd.reason == "", "no words: the close code says it (§2)"

    (too_slow,) = closed_for(spawned, Ending.TOO_SLOW)
    assert (too_slow["room"], too_slow["code"], too_slow["error"]) == (room_id, 1008, "too_slow")
    (protocol_error,) = closed_for(spawned, Ending.PROTOCOL_ERROR)
    assert (protocol_error["code"], protocol_error["error"]) == (1009, None)
    (shutdown,) = closed_for(spawned, Ending.SHUTDOWN)
    assert (shutdown["room"], shutdown["code"]) == (room_id, 1012)
    assert not closed_for(spawned, Ending.CLIENT_CLOSED), "a client's own close: debug only"
