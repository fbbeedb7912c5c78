"""Frames refused as bad are rate limited like the frames that are served
(docs/protocol.md §2, docs/operations.md "How the limits act"): each costs the server a
decode and an answer, so a client sending them in a loop is refused, then closed."""

from __future__ import annotations

import asyncio

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from wire import GUARD

from clients.client import LobbyClient
from conftest import running
from protocol.codec import decode, encode
from server.settings import Settings


async def test_refused_frames_are_rate_limited_then_the_connection_closed() -> None:
    """A frame refused as bad (not msgpack, an unknown type, a bad field) is answered
    with its error, at most ``refused_burst`` at once; then ``rate_limited`` (a
    ``reject`` for an intent with an id), a strike like any, until the close."""
    paced = Settings(refused_rate=0.001, refused_burst=2, rate_strikes=4, address_factor=0)
    async with running(paced) as server, asyncio.timeout(GUARD):
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
        async with connect(f"{server.ws}/ws/rooms/{room['id']}", max_size=None) as ws:
            await ws.send(encode({"t": "hello", "protocol": 1, "token": None}))
            assert decode(await ws.recv(decode=False))["t"] == "welcome"
            assert decode(await ws.recv(decode=False))["t"] == "snapshot"
            await ws.send(b"\xc1")
            await ws.send(encode({"t": "nothing"}))
            answers = [decode(await ws.recv(decode=False)) for _ in range(2)]
            assert [(a["code"], a["fatal"]) for a in answers] == [
                ("malformed_frame", False),
                ("unknown_type", False),
            ]
            await ws.send(b"\xc1")
            over = decode(await ws.recv(decode=False))
            assert (over["t"], over["code"], over["fatal"]) == ("error", "rate_limited", False)
            assert over["retry_after"] > 0
            await ws.send(encode({"t": "intent", "id": 5, "action": []}))
            over = decode(await ws.recv(decode=False))
            assert (over["t"], over["id"], over["code"]) == ("reject", 5, "rate_limited")
            frames = []
            with pytest.raises(ConnectionClosed):
                while True:
                    await ws.send(b"\xc1")
                    frames.append(decode(await ws.recv(decode=False)))
            assert frames[-1]["code"] == "rate_limited" and frames[-1]["fatal"]


@pytest.mark.parametrize("flood", ["fragments", "pings"])
async def test_frames_that_are_no_whole_message_are_bounded_then_the_connection_closed(
    flood: str,
) -> None:
    """Continuation frames and pings cost the server a parse each (a ping a pong too)
    and are no message the rate limits count: a client that sends them faster than
    ``ws_frame_rate`` after ``ws_frame_burst`` (a message in a thousand one-byte
    fragments, a ping flood) is closed, 1008; a message in a few fragments is served."""
    paced = Settings(ws_frame_rate=0.001, ws_frame_burst=8, address_factor=0)
    async with running(paced) as server, asyncio.timeout(GUARD):
        async with LobbyClient(server.url) as lobby:
            room = await lobby.create_room("sintra", seats=2)
        async with connect(f"{server.ws}/ws/rooms/{room['id']}", max_size=None) as ws:
            await ws.send(encode({"t": "hello", "protocol": 1, "token": None}))
            assert decode(await ws.recv(decode=False))["t"] == "welcome"
            assert decode(await ws.recv(decode=False))["t"] == "snapshot"
            ping = encode({"t": "ping", "data": 1})
            await ws.send([ping[:3], ping[3:6], ping[6:]])
            assert decode(await ws.recv(decode=False))["t"] == "pong"
            with pytest.raises(ConnectionClosed) as closed:
                if flood == "fragments":
                    await ws.send([ping[i : i + 1] for i in range(len(ping))] * 100)
                else:
                    for _ in range(100):
                        await ws.ping()
                while True:
                    await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
