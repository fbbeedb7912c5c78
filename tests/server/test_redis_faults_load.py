"""A process killed under load loses no acknowledged move.

Two ``tablewire serve`` processes share a redis-server run as docker-compose.yml
runs it (``appendonly yes``, ``appendfsync always``); 200 four-seat turn-relay rooms,
created on ``a`` (so ``a`` owns them), are played by bots whose clients start on
``a`` or ``b`` and fail over to the other. Mid-game, while group commit batches
the appends of many rooms, ``a`` is killed (SIGKILL). Every game finishes on ``b``,
and every ``ack`` any client got names the entry of its seat and intent id in the
room's log: an acknowledged move is never lost, whichever batch it was in.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator

import pytest
from test_redis_cluster import LEASE_TTL, assert_every_ack_is_logged, spread

from clients.bots import Summary, play_seat
from clients.client import LobbyClient, RoomClient
from clients.spawn import SpawnedServer
from conftest import redis_server
from engines.bots import RandomBot
from server.store.redis import RedisStore

pytestmark = pytest.mark.load

ROOMS = 200


@pytest.fixture
async def pair() -> AsyncIterator[tuple[SpawnedServer, SpawnedServer, str]]:
    redis = redis_server("--save", "", "--appendonly", "yes", "--appendfsync", "always")
    redis.start()
    servers = [
        SpawnedServer(
            redis_url=redis.url,
            node=node,
            lease_ttl=LEASE_TTL,
            forward_timeout=1.0,
            load_test_clients="127.0.0.1",
            max_benchmark_rooms=ROOMS,
        )
        for node in ("a", "b")
    ]
    try:
        await asyncio.gather(*(s.start() for s in servers))
        yield servers[0], servers[1], redis.url
    finally:
        await asyncio.gather(*(s.stop() for s in servers))
        redis.cleanup()


async def test_a_process_killed_mid_batch_under_200_rooms_loses_no_acknowledged_move(
    pair: tuple[SpawnedServer, SpawnedServer, str],
) -> None:
    a, b, redis_url = pair
    tables: list[tuple[str, list[RoomClient]]] = []
    async with LobbyClient(a.url) as lobby:
        for _ in range(ROOMS):
            room = await lobby.create_room("turn-relay", options={"moves": 100})
            tokens = [(await lobby.reserve(room["id"]))["token"] for _ in range(4)]
            tables.append((room["id"], spread([a, b], room["id"], list(tokens))))
    players = [client for _, clients in tables for client in clients]
    for client in players:
        await client.connect()
    summary = Summary("turn-relay")
    games = asyncio.gather(*(play_seat(c, RandomBot(i), summary) for i, c in enumerate(players)))
    async with asyncio.timeout(120):
        await tables[0][1][0].wait_version(40)
    await a.stop(signal.SIGKILL)
    async with asyncio.timeout(240):
        await games
    store = RedisStore(redis_url)
    try:
        for room_id, clients in tables:
            assert_every_ack_is_logged(clients, await store.read_log(room_id))
            record = await store.load_room(room_id)
            assert record is not None and record.status == "finished", room_id
    finally:
        await store.close()
    assert summary.reconnects > 0, "the clients of a went over to b"
