"""Hundreds of rooms at once on the Redis store, as docker-compose.yml runs it.

One ``tablewire serve`` over a throwaway redis-server with ``appendonly yes`` and
``appendfsync always``, and a connection pool far smaller than the number of rooms
(``redis_pool`` 8): 300 turn-relay rooms of four seats play at once through real
WebSockets. Every room finishes, no move is refused, and no lease is lost. Before
group commit and the waiting pool, rooms stalled on "Too many connections" and
leases were lost under this load. Not timed: the figures are benchmarks/redis_store.py's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from clients import bots
from clients.spawn import SpawnedServer
from conftest import redis_server

pytestmark = pytest.mark.load

ROOMS = 300


@pytest.fixture
async def served() -> AsyncIterator[SpawnedServer]:
    redis = redis_server("--save", "", "--appendonly", "yes", "--appendfsync", "always")
    redis.start()
    server = SpawnedServer(
        redis_url=redis.url,
        redis_pool=8,
        load_test_clients="127.0.0.1",
        max_benchmark_rooms=ROOMS,
    )
    try:
        await server.start()
        yield server
    finally:
        await server.stop()
        redis.cleanup()


async def test_300_rooms_play_at_once_over_a_small_pool_and_every_one_finishes(
    served: SpawnedServer,
) -> None:
    summary = await bots.run(
        served.url,
        "turn-relay",
        rooms=ROOMS,
        players=4,
        options={"moves": 12, "bot_delay": 0},
        time_limit=240,
    )
    assert (summary.games_finished, summary.errors, summary.rejects) == (ROOMS, 0, 0), (
        summary.as_dict()
    )
    lost = [line for line in served.log if "lease lost" in line or "Too many" in line]
    assert lost == []
