"""Calls over many rooms split into calls of at most ``writers.BATCH`` rooms each (here
2, so that five rooms take three calls): appends, lease renewals and lease lookups
still answer each room at its own place, against a real redis-server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from server.store import NotOwner, writers
from server.store.redis import RedisStore
from support import record

ROOMS = [f"r{i}" for i in range(5)]


@pytest.fixture
def calls() -> list[int]:
    """The number of script calls of each ``Writers.run``."""
    return []


@pytest.fixture
async def store(
    redis_url: str, prefix: str, monkeypatch: pytest.MonkeyPatch, calls: list[int]
) -> AsyncIterator[RedisStore]:
    monkeypatch.setattr(writers, "BATCH", 2)
    store = RedisStore.connect(redis_url, prefix=prefix, lease_ttl=60)
    run = store.writers.run

    async def counted(source: str, each: Sequence[Any], **options: Any) -> list[Any]:
        calls.append(len(each))
        return await run(source, each, **options)

    monkeypatch.setattr(store.writers, "run", counted)
    yield store
    await store.close()


async def leases(store: RedisStore) -> list[str]:
    held = []
    for room_id in ROOMS:
        await store.save_room(record(room_id))
        lease = await store.acquire(room_id, "node-1")
        assert lease is not None
        held.append(lease)
    return held


async def test_a_batch_of_appends_over_several_calls_answers_each_room(
    store: RedisStore, calls: list[int]
) -> None:
    held = await leases(store)
    calls.clear()
    held[3] = "node-9:1"  # a lease this process lost: that append alone fails
    outcomes = await asyncio.gather(
        *(
            store.append(room_id, 1, {"k": "seat", "seat": 0}, lease, ("hash", 0))
            for room_id, lease in zip(ROOMS, held, strict=True)
        ),
        return_exceptions=True,
    )
    assert store.appends.batches == 1 and calls == [3], "one batch of five, in three calls"
    assert [type(o) for o in outcomes] == [type(None)] * 3 + [NotOwner, type(None)]
    for room_id in ROOMS:
        logged = await store.read_log(room_id)
        assert logged == ([] if room_id == "r3" else [(1, {"k": "seat", "seat": 0})])
        assert await store.seat_of(room_id, "hash") == (None if room_id == "r3" else 0)


async def test_renewals_and_lookups_over_several_calls_answer_each_room(
    store: RedisStore, calls: list[int]
) -> None:
    held = await leases(store)
    assert await store.holders(ROOMS) == held
    await store.redis.delete(store.key("r4", "lease"))  # as when it expired
    calls.clear()
    assert await store.renew(list(zip(ROOMS, held, strict=True))) == ["r4"]
    assert calls == [3]
    assert await store.holders(ROOMS) == [*held[:4], None]
