"""Limits say when to come back, and a client that polls for its moves is never stuck.

Every ``rate_limited`` refusal (HTTP 429, an ``error`` or ``reject`` frame) carries the
delay after which the same request is served: ``retry_after`` in seconds, and over HTTP
a ``Retry-After`` header. A client written from the protocol 1 document that asks
``legal`` after every patch finishes its games on a server with the default limits.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from clients.client import LobbyClient
from clients.spawn import SpawnedServer
from protocol.codec import decode, encode
from server.app import create_app
from server.settings import Settings


@pytest.fixture
async def default_server() -> AsyncIterator[SpawnedServer]:
    """``tablewire serve`` with every limit at its default."""
    server = await SpawnedServer().start()
    yield server
    await server.stop()


def _waits(answer: httpx.Response) -> float:
    """The refusal's delay, checked to agree between the body and the header."""
    assert answer.status_code == 429
    error = answer.json()["error"]
    assert error["code"] == "rate_limited"
    delay = error["retry_after"]
    assert delay > 0
    assert answer.headers["retry-after"] == str(math.ceil(delay))
    return float(delay)


async def test_a_429_for_requests_and_for_rooms_says_when_to_come_back() -> None:
    app = create_app(Settings(http_rate=0.5, http_burst=1, room_rate=0.25, room_burst=1))
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        assert (await client.get("/api/games")).status_code == 200
        assert 0 < _waits(await client.get("/api/games")) <= 2.0
    app = create_app(Settings(room_rate=0.25, room_burst=1))
    transport = httpx.ASGITransport(app=app, client=("203.0.113.9", 1234))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        assert (await client.post("/api/rooms", json={"engine": "sintra"})).status_code == 201
        assert 0 < _waits(await client.post("/api/rooms", json={"engine": "sintra"})) <= 4.0


class PollingSeat:
    """A seat as a client author writes it from protocol 1's document alone: after every
    snapshot or patch it asks ``legal``; when the answer holds actions for the version it
    is at, it plays one of them (and asks again if that is refused, or sends it again
    after ``retry_after`` if it was over the rate). Any ``error`` frame is kept in
    :attr:`errors`: this client cannot act on one."""

    def __init__(self, ws_base: str, room_id: str, token: str, seed: int) -> None:
        self.url = f"{ws_base}/ws/rooms/{room_id}"
        self.token = token
        self.random = random.Random(seed)
        self.ids = itertools.count(1)
        self.errors: list[dict[str, Any]] = []
        self.asked = 0
        self.waited = 0
        self.result: dict[str, Any] | None = None

    async def play(self) -> None:
        async with connect(self.url, max_size=None) as ws:
            await ws.send(encode({"t": "hello", "protocol": 1, "token": self.token}))
            version = -1
            while self.result is None:
                frame = decode(await ws.recv(decode=False))
                kind = frame["t"]
                if kind in ("snapshot", "patch"):
                    version = frame["v"] if kind == "snapshot" else frame["to"]
                    self.asked += 1
                    await ws.send(encode({"t": "legal"}))
                elif kind == "legal" and frame["actions"] and frame["v"] == version:
                    action = self.random.choice(frame["actions"])
                    intent = {"t": "intent", "id": next(self.ids), "action": action}
                    await ws.send(encode(intent))
                elif kind == "result":
                    self.result = frame["result"]
                elif kind == "reject" and frame["code"] == "rate_limited":
                    self.waited += 1  # as the spec says: the same intent after retry_after
                    await asyncio.sleep(frame["retry_after"])
                    await ws.send(encode(intent))
                elif kind == "reject":
                    await ws.send(encode({"t": "legal"}))  # the game moved on: ask again
                elif kind == "error":
                    self.errors.append(frame)


@pytest.mark.parametrize(("engine", "seats"), [("chartered", 3), ("crystal-palace", 3)])
async def test_a_client_asking_legal_after_every_patch_finishes_on_default_limits(
    default_server: SpawnedServer, engine: str, seats: int
) -> None:
    """Three games at once from one address, every seat asking after every patch: each
    game ends and no seat hears an error (the first ``legal`` asks at each version are
    free of the rate limit)."""
    players: list[PollingSeat] = []
    async with LobbyClient(default_server.url) as lobby:
        for game in range(3):
            room = await lobby.create_room(engine, seats=seats)
            for seat in range(seats):
                token = (await lobby.reserve(room["id"], name=f"p{seat}"))["token"]
                players.append(PollingSeat(default_server.ws, room["id"], token, game * 10 + seat))
    await asyncio.wait_for(asyncio.gather(*(p.play() for p in players)), timeout=120)
    assert [p.errors for p in players] == [[] for _ in players]
    assert all(p.result is not None for p in players)
    assert sum(p.asked for p in players) > 3 * 50, "more asks than a burst"
