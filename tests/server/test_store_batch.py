"""Group commit (server/store/batch.py): batches grow with the load, and each item
gets its own outcome; on real Redis, one script call fences each room on its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

import pytest

from server.store import NotOwner, StoreUnavailable
from server.store.batch import GroupCommit, Outcome
from server.store.redis import RedisStore
from support import record


class Writer:
    """A write that waits until the test lets it finish, recording each batch."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.gate = asyncio.Event()

    async def __call__(self, items: Sequence[int]) -> list[Outcome]:
        self.batches.append(list(items))
        await self.gate.wait()
        return [None if item % 2 == 0 else ValueError(f"odd {item}") for item in items]


async def test_items_arriving_together_are_written_together_each_with_its_outcome() -> None:
    writer = Writer()
    commit = GroupCommit(writer, most=100, flushers=1)
    first = asyncio.create_task(commit.submit(0))
    await asyncio.sleep(0)  # the flusher takes the first item alone
    rest = [asyncio.create_task(commit.submit(i)) for i in range(1, 11)]
    await asyncio.sleep(0)
    writer.gate.set()
    outcomes = await asyncio.gather(first, *rest, return_exceptions=True)
    assert writer.batches == [[0], list(range(1, 11))], "the second batch gathered meanwhile"
    assert [o is None for o in outcomes] == [i % 2 == 0 for i in range(11)]
    assert str(outcomes[3]) == "odd 3", "a failed item fails alone"
    await commit.close()


async def test_a_write_that_raises_fails_its_batch_and_the_next_batch_goes_on() -> None:
    calls = 0

    async def flaky(items: Sequence[int]) -> list[Outcome]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise StoreUnavailable("down")
        return [None] * len(items)

    commit = GroupCommit(flaky, flushers=1)
    with pytest.raises(StoreUnavailable):
        await commit.submit(1)
    await commit.submit(2)
    await commit.close()


async def test_items_submitted_soon_are_settled_each_and_a_failing_settle_fails_alone() -> None:
    writer = Writer()
    commit = GroupCommit(writer, most=100, flushers=1)
    told: list[tuple[int, str]] = []
    all_told = asyncio.Event()

    def settle(item: int) -> Callable[[Outcome], None]:
        def settled(outcome: Outcome) -> None:
            told.append((item, "ok" if outcome is None else str(outcome)))
            if item == 1:
                raise RuntimeError("a settle that fails")
            if len(told) == 4:
                all_told.set()

        return settled

    for item in range(4):
        commit.submit_soon(item, settle(item))
    writer.gate.set()
    await all_told.wait()
    assert writer.batches == [[0, 1, 2, 3]]
    assert told == [(0, "ok"), (1, "odd 1"), (2, "ok"), (3, "odd 3")], "item 1's settle raised"
    stuck = Writer()  # never lets its batch finish
    closing = GroupCommit(stuck, flushers=1)
    outcomes: list[Outcome] = []
    closing.submit_soon(0, outcomes.append)
    await asyncio.sleep(0)  # the flusher writes item 0 and waits
    closing.submit_soon(1, outcomes.append)
    await closing.close()
    assert [type(o) for o in outcomes] == [asyncio.CancelledError] * 2, "none left untold"
    await commit.close()


async def test_a_batch_waits_out_the_interval_but_a_lone_item_goes_at_once() -> None:
    """On a fake clock: the first item is written at once; the next, arriving 1 s
    later, waits the rest of the 10 s interval, and everything queued meanwhile joins
    its batch."""
    now = 100.0
    naps: list[float] = []
    napping, gathered = asyncio.Event(), asyncio.Event()

    async def nap(seconds: float) -> None:
        nonlocal now
        naps.append(seconds)
        napping.set()
        await gathered.wait()
        now += seconds

    writer = Writer()
    writer.gate.set()
    commit = GroupCommit(writer, interval=10.0, clock=lambda: now, sleep=nap)
    await commit.submit(0)
    assert naps == [] and writer.batches == [[0]], "nothing before it: no wait"
    now += 1.0
    rest = [asyncio.create_task(commit.submit(i)) for i in (2, 4, 6)]
    await napping.wait()
    assert naps == [9.0], "the rest of the interval"
    gathered.set()
    await asyncio.gather(*rest)
    assert writer.batches == [[0], [2, 4, 6]]
    await commit.close()


@pytest.fixture
async def store(redis_url: str, prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.connect(redis_url, prefix=prefix, pool=4)
    yield store
    await store.close()


async def test_many_rooms_append_at_once_in_few_round_trips_each_fenced(
    store: RedisStore,
) -> None:
    rooms = [f"r{i}" for i in range(300)]
    for room in rooms:
        await store.save_room(record(room))
    leases = [await store.acquire(room, "me") for room in rooms]
    stale = "me:0"  # a token no room holds

    async def append(i: int) -> None:
        lease = stale if i % 50 == 7 else leases[i]
        assert lease is not None
        await store.append(rooms[i], 1, {"k": "intent", "seat": 0, "id": i, "action": {}}, lease)

    outcomes = await asyncio.gather(*(append(i) for i in range(300)), return_exceptions=True)
    refused = [i for i, o in enumerate(outcomes) if isinstance(o, NotOwner)]
    assert refused == [i for i in range(300) if i % 50 == 7]
    assert all(o is None for i, o in enumerate(outcomes) if i not in refused)
    assert store.appends.items == 300 and store.appends.batches < 30
    for i in (0, 7, 299):
        log = await store.read_log(rooms[i])
        assert [v for v, _ in log] == ([] if i in refused else [1])
    again = await asyncio.gather(
        store.append(rooms[0], 1, {"k": "x"}, leases[0] or ""), return_exceptions=True
    )
    assert isinstance(again[0], NotOwner), "a version already written is refused"
