"""Test doubles that speak to a real server over the network: a bare msgpack WebSocket
(:class:`Raw`), rooms made and played out through the lobby, and waits on /metrics."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients import bots
from clients.client import LobbyClient, RoomClient
from conftest import Running
from engines.bots import RandomBot
from protocol.codec import decode, encode


class Raw:
    """A bare WebSocket speaking msgpack frames, for tests that check every frame."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    @classmethod
    async def open(cls, server: Running, room_id: str) -> Raw:
        return cls(await connect(f"{server.ws}/ws/rooms/{room_id}", max_size=None))

    @classmethod
    @asynccontextmanager
    async def joined(
        cls, server: Running, room_id: str, token: str | None = None
    ) -> AsyncIterator[Raw]:
        """A connection to the room (a seat's, or a spectator's), its welcome and snapshot
        read; closed at the end."""
        raw = await cls.open(server, room_id)
        try:
            await raw.join(token)
            assert (await raw.recv())["t"] == "snapshot"
            yield raw
        finally:
            await raw.ws.close()

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(encode(message))

    async def recv(self) -> Any:
        """The next frame as it came: a map (or, under protocol 2, an array)."""
        return decode(await self.ws.recv(decode=False), max_size=1 << 30, arrays=True)

    async def recv_until(self, kind: str) -> dict[str, Any]:
        while (frame := await self.recv())["t"] != kind:
            pass
        return frame

    async def join(
        self, token: str | None = None, since: int | None = None, protocol: int = 1
    ) -> dict[str, Any]:
        await self.send({"t": "hello", "protocol": protocol, "token": token, "since": since})
        welcome = await self.recv()
        assert welcome["t"] == "welcome", welcome
        return welcome

    async def closed_with(self) -> dict[str, Any]:
        """The fatal error frame, then the close."""
        frame = await self.recv()
        assert frame["t"] == "error" and frame["fatal"], frame
        with pytest.raises(ConnectionClosed):
            await self.recv()
        return frame


INVITES: dict[str, str] = {}
"""The invitation of each private room :func:`new_room` made (bots take its seats)."""


async def new_room(server: Running, seats: int = 2, seed: int = 1, fill: int | None = None):
    """Create a room and reserve ``fill`` seats (all by default); return it and the tokens."""
    async with LobbyClient(server.url) as lobby:
        room = await lobby.create_room("sintra", seats=seats, seed=seed)
        INVITES[room["id"]] = room["invite"]
        tokens = [
            (await lobby.reserve(room["id"], name=f"p{i}"))["token"]
            for i in range(seats if fill is None else fill)
        ]
    return room["id"], tokens


async def played_out(server: Running, seed: int) -> tuple[str, list[str]]:
    """A two-seat room played to its end: seat 0 by a bot client here (its token first
    in the tokens), seat 1 by ``tablewire bots`` filling the room."""
    room_id, tokens = await new_room(server, seed=seed, fill=1)
    async with RoomClient(server.ws, room_id, tokens[0]) as me:
        filler = asyncio.create_task(
            bots.run(server.url, "sintra", 0, 2, room_id=room_id, invite=INVITES[room_id])
        )
        await bots.play_seat(me, RandomBot(1), bots.Summary("sintra"))
    assert (await filler).ok
    return room_id, tokens


GUARD = 60.0
"""Seconds any one wait may take before the test fails (not a measured bound)."""


UNLIMITED_FRAMES = {"address_factor": 0, "intent_rate": 0, "query_rate": 0, "ping_rate": 0}


async def scrape(url: str) -> dict[str, float]:
    """``GET /metrics``: every sample as ``name{label="value",...}`` → value."""
    async with httpx.AsyncClient() as client:
        text = (await client.get(f"{url}/metrics")).text
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


async def until(url: str, check: Any) -> dict[str, float]:
    """Scrape until ``check(samples)`` holds (the server's state is not awaitable from here)."""
    async with asyncio.timeout(GUARD):
        while not check(samples := await scrape(url)):  # noqa: ASYNC110
            await asyncio.sleep(0.1)
    return samples
