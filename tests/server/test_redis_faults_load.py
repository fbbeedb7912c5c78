"""Faults under load lose no acknowledged move.

Two ``tablewire serve`` processes share a redis-server run as docker-compose.yml
runs it (``appendonly yes``, ``appendfsync always``); 200 four-seat turn-relay rooms,
created on ``a`` (so ``a`` owns them), are played by bots whose clients start on
``a`` or ``b`` and fail over to the other. Mid-game, while group commit batches
the appends of many rooms, one fault strikes:

* ``a`` is killed (SIGKILL): every game finishes on ``b``;
* Redis is stopped for 10 s (SIGSTOP, then SIGCONT): moves are refused with
  ``store_unavailable`` meanwhile, clients retry, every game finishes;
* Redis is killed (SIGKILL) and started again from its append-only file on the
  same port and directory: every game finishes.

Every ``ack`` any client got names the entry of its seat and intent id in the
room's log: an acknowledged move is never lost, whichever batch it was in (an
append is acknowledged only once the batch's script call returned, so under
``appendfsync always`` it was on disk before Redis died).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from processes import LEASE_TTL, assert_games_finished_with_every_ack, relay_games

from clients.bots import Summary
from clients.spawn import SpawnedRedis, SpawnedServer
from conftest import redis_server

pytestmark = pytest.mark.load

ROOMS = 200
PAUSE = 10.0
"""Seconds Redis is held stopped (the fault itself, not a wait)."""
DOWN = 3.0
"""Seconds a killed Redis stays down before it is started again: longer than a lease
(``LEASE_TTL``), so every lease lapses and is taken again while the processes
reconnect."""


@pytest.fixture
async def pair() -> AsyncIterator[tuple[SpawnedServer, SpawnedServer, SpawnedRedis]]:
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
        yield servers[0], servers[1], redis
    finally:
        await asyncio.gather(*(s.stop() for s in servers))
        redis.cleanup()


async def play_through(
    a: SpawnedServer, b: SpawnedServer, redis: SpawnedRedis, fault: Callable[[], Awaitable[None]]
) -> Summary:
    """Create the rooms on ``a``, start every game, strike with ``fault`` mid-game; then
    every game finishes and every ack is in its room's log. The bots' summary."""
    tables, summary, plays = await relay_games([a, b], ROOMS)
    games = asyncio.gather(*plays)
    async with asyncio.timeout(120):
        await tables[0][1][0].wait_version(40)
    await fault()
    async with asyncio.timeout(240):
        await games
    await assert_games_finished_with_every_ack(redis.url, tables)
    return summary


async def test_a_process_killed_mid_batch_under_200_rooms_loses_no_acknowledged_move(
    pair: tuple[SpawnedServer, SpawnedServer, SpawnedRedis],
) -> None:
    a, b, redis = pair
    summary = await play_through(a, b, redis, lambda: a.stop(signal.SIGKILL))
    assert summary.reconnects > 0, "the clients of a went over to b"


async def test_redis_stopped_for_10_s_under_200_rooms_loses_no_acknowledged_move(
    pair: tuple[SpawnedServer, SpawnedServer, SpawnedRedis],
) -> None:
    a, b, redis = pair

    async def hang() -> None:
        redis.pause()
        try:
            await asyncio.sleep(PAUSE)  # the fault: Redis answers nothing meanwhile
        finally:
            redis.resume()

    summary = await play_through(a, b, redis, hang)
    # Rejects, or refusals the clients waited out and sent again.
    refused = summary.refused()
    assert refused["store_unavailable"] + refused["owner_unavailable"] > 0, refused


async def test_redis_killed_and_restarted_from_its_aof_under_200_rooms_loses_no_acknowledged_move(
    pair: tuple[SpawnedServer, SpawnedServer, SpawnedRedis],
) -> None:
    a, b, redis = pair

    async def crash() -> None:
        redis.stop(signal.SIGKILL)
        await asyncio.sleep(DOWN)  # the fault: Redis is gone meanwhile
        await asyncio.to_thread(redis.start)  # same port and directory: it reads its AOF

    summary = await play_through(a, b, redis, crash)
    # Rejects, or refusals the clients waited out and sent again.
    refused = summary.refused()
    assert refused["store_unavailable"] + refused["owner_unavailable"] > 0, refused
