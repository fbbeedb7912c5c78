"""Strikes (docs/protocol.md §2): refusals in a row over the rate limits, one count per
connection shared by every rate-limited kind, set back to 0 by any rate-limited request
that is served; the ``rate_strikes``-th refusal in a row closes the connection."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.client import LobbyClient
from conftest import Running
from protocol.codec import decode, encode
from server.settings import Settings


@pytest.fixture
def settings() -> Settings:
    return Settings(
        ping_rate=0.001,
        ping_burst=1,
        chat_rate=0.001,
        chat_burst=1,
        address_factor=0,
        rate_strikes=3,
    )


@pytest.fixture
def store_kind() -> str:
    return "memory"


async def _seated(server: Running) -> ClientConnection:
    """A player of a waiting two-seat room, joined, its snapshot read."""
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=2)
        token = (await lobby.reserve(room["id"], name="ana"))["token"]
    ws = await connect(f"{server.ws}/ws/rooms/{room['id']}", max_size=None)
    await ws.send(encode({"t": "hello", "protocol": 2, "token": token}))
    assert decode(await ws.recv(decode=False))["t"] == "welcome"
    assert decode(await ws.recv(decode=False))["t"] == "snapshot"
    return ws


async def _answers(
    ws: ClientConnection, count: int, also: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The next ``count`` answers (patches aside; chat lines too, unless ``also``)."""
    frames: list[dict[str, Any]] = []
    while len(frames) < count:
        frame = decode(await ws.recv(decode=False))
        if isinstance(frame, dict) and frame["t"] in ("pong", "error", "legal", *also):
            frames.append(frame)
    return frames


def _told(frames: list[dict[str, Any]]) -> list[tuple[str, str | None, bool | None]]:
    return [(f["t"], f.get("code"), f.get("fatal")) for f in frames]


async def test_a_free_legal_that_is_served_sets_the_count_back_to_0(server: Running) -> None:
    ws = await _seated(server)
    for frame in [
        {"t": "ping", "data": 0},  # served: the burst
        {"t": "ping", "data": 1},  # refused: 1 in a row
        {"t": "ping", "data": 2},  # refused: 2
        {"t": "legal"},  # served (free at this version): back to 0
        {"t": "ping", "data": 3},  # refused: 1
        {"t": "ping", "data": 4},  # refused: 2
    ]:
        await ws.send(encode(frame))
    refused = ("error", "rate_limited", False)
    assert _told(await _answers(ws, 6)) == [
        ("pong", None, None),
        refused,
        refused,
        ("legal", None, None),
        refused,
        refused,
    ]
    await ws.send(encode({"t": "ping", "data": 5}))  # refused: the third in a row
    assert _told(await _answers(ws, 1)) == [("error", "rate_limited", True)]
    with pytest.raises(ConnectionClosed) as closed:
        await ws.recv()
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "")  # the frame says why


async def test_chat_lines_count_and_end_a_run_like_every_rate_limited_kind(
    server: Running,
) -> None:
    ws = await _seated(server)
    for frame in [
        {"t": "ping", "data": 0},  # served: the burst
        {"t": "ping", "data": 1},  # refused: 1 in a row
        {"t": "ping", "data": 2},  # refused: 2
        {"t": "say", "text": "a"},  # served: back to 0
        {"t": "say", "text": "b"},  # refused: 1
        {"t": "ping", "data": 3},  # refused: 2
        {"t": "say", "text": "c"},  # refused: the third in a row
    ]:
        await ws.send(encode(frame))
    refused = ("error", "rate_limited", False)
    told = _told(await _answers(ws, 7, also=("chat",)))
    assert told == [
        ("pong", None, None),
        refused,
        refused,
        ("chat", None, None),
        refused,
        refused,
        ("error", "rate_limited", True),
    ]
    await ws.close()
