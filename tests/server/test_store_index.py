"""The stores' lobby indexes, on the memory store and a real Redis: bounded pages,
newest first, with cursors; rooms move between indexes as their status changes; a
record written by an older process loads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import asdict, replace

import msgpack
import pytest

from server import chat
from server.store import MemoryStore, RoomRecord, Store
from server.store.base import ALL, CURSOR, public_index
from server.store.redis import RedisStore


@pytest.fixture
async def store(store_kind: str, request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if store_kind == "memory":
        yield MemoryStore()
        return
    url, prefix = request.getfixturevalue("redis_url"), request.getfixturevalue("prefix")
    redis = RedisStore.connect(url, prefix=prefix)
    yield redis
    await redis.close()


def record(room_id: str, created: float, **changes: object) -> RoomRecord:
    base = RoomRecord(
        id=room_id,
        engine="sintra",
        seats=2,
        options={},
        private=False,
        seed=7,
        created=created,
        updated=created,
        names=[None, None],
    )
    return replace(base, **changes)  # type: ignore[arg-type]


async def ids(store: Store, index: str, limit: int, after: str | None = None) -> list[str]:
    return [r.id for r in (await store.page(index, limit, after))[0]]


async def test_pages_are_newest_first_and_the_cursor_leads_to_the_next(store: Store) -> None:
    for i in range(25):
        await store.save_room(record(f"r{i:02}", 1000.0 + i))
    seen: list[str] = []
    after = None
    pages = 0
    while True:
        rooms, after = await store.page(ALL, 10, after)
        seen += [r.id for r in rooms]
        pages += 1
        if after is None:
            break
        assert CURSOR.fullmatch(after)
    assert pages == 3
    assert seen == [f"r{i:02}" for i in reversed(range(25))]
    exact, last = await store.page(ALL, 25)
    assert len(exact) == 25 and last is None, "no empty page after a full last one"


async def test_rooms_created_in_the_same_instant_are_each_listed_once(store: Store) -> None:
    for name in ("a", "b", "c", "d", "e"):
        await store.save_room(record(name, 5.0))
    first, after = await store.page(ALL, 2)
    second, after = await store.page(ALL, 2, after)
    third, after = await store.page(ALL, 2, after)
    assert [r.id for r in first + second + third] == ["e", "d", "c", "b", "a"]
    assert after is None


async def test_a_room_moves_between_status_indexes_and_private_rooms_are_not_public(
    store: Store,
) -> None:
    await store.save_room(record("open", 1.0))
    await store.save_room(record("hidden", 2.0, private=True))
    await store.save_room(record("chart", 3.0, engine="chartered"))
    assert await ids(store, public_index(None, None), 10) == ["chart", "open"]
    assert await ids(store, public_index("sintra", "waiting"), 10) == ["open"]
    assert await ids(store, ALL, 10) == ["chart", "hidden", "open"]
    await store.save_room(record("open", 1.0, status="playing"))
    assert await ids(store, public_index("sintra", "waiting"), 10) == []
    assert await ids(store, public_index(None, "playing"), 10) == ["open"]
    assert await ids(store, public_index("sintra", None), 10) == ["open"]
    await store.delete_room("open")
    for index in (ALL, public_index(None, None), public_index("sintra", "playing")):
        assert "open" not in await ids(store, index, 10)


async def test_the_memory_store_keeps_the_log_after_the_snapshot_and_a_bounded_tail() -> None:
    store = MemoryStore(memory_log=3)
    for version in range(1, 11):
        await store.append("r", version, {"k": "intent", "n": version}, "local")
    await store.save_snapshot("r", 8, {"s": 8})
    assert [v for v, _ in await store.read_log("r")] == [6, 7, 8, 9, 10]
    assert [v for v, _ in await store.read_log("r", after=8)] == [9, 10]
    await store.append("r", 11, {"k": "intent", "n": 11}, "local")
    assert (await store.read_log("r", after=10))[0] == (11, {"k": "intent", "n": 11})


async def test_a_page_of_ids_pages_as_records_do_and_records_load_at_once(store: Store) -> None:
    for i in range(5):
        await store.save_room(record(f"r{i}", 10.0 + i))
    first, after = await store.page_ids(ALL, 3)
    second, last = await store.page_ids(ALL, 3, after)
    assert (first, second, last) == (["r4", "r3", "r2"], ["r1", "r0"], None)
    assert after == (await store.page(ALL, 3))[1], "the same cursor as a page of records"
    await store.delete_room("r3")
    loaded = await store.load_rooms(["r4", "r3", "nobody"])
    assert [r.id if r else None for r in loaded] == ["r4", None, None]
    assert await store.load_rooms([]) == []


async def test_benchmark_rooms_are_listed_only_under_their_own_engine(store: Store) -> None:
    """turn-relay is the load generators' workload, no game: its public rooms (a load
    test may open thousands) stay out of the listing of every game (`GET /api/rooms`,
    `tablewire rooms`, the web lobby) and are listed when asked for by engine."""
    await store.save_room(record("game", 1000.0))
    await store.save_room(record("load", 1001.0, engine="turn-relay", seats=4))
    for status in ("waiting", None):
        assert await ids(store, public_index(None, status), 10) == ["game"]
        assert await ids(store, public_index("turn-relay", status), 10) == ["load"]
    await store.save_room(record("load", 1001.0, engine="turn-relay", status="playing"))
    assert await ids(store, public_index(None, "playing"), 10) == []
    assert await ids(store, public_index("turn-relay", "playing"), 10) == ["load"]
    assert await ids(store, ALL, 10) == ["load", "game"], "the sweep still sees it"


async def test_a_rematch_record_of_an_older_process_loads_keeping_no_names(
    redis_url: str, prefix: str
) -> None:
    """A rematch's record written before ``held_names`` loads with none: a newcomer
    may go by a former player's name there, as before."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    try:
        rematch = record("r", 1.0, held=[True, True], held_until=2.0, held_names=["ana", "bo"])
        await store.save_room(rematch)
        older = asdict(rematch)
        del older["held_names"]
        await store.redis.set(store.key("r"), msgpack.packb(older))
        loaded = await store.load_room("r")
        assert loaded is not None and loaded.held_names == []
        assert not chat.held_for(loaded.names, loaded.held_names, "bo")
    finally:
        await store.close()


async def test_a_record_of_a_newer_process_loads_without_the_fields_it_added(
    redis_url: str, prefix: str
) -> None:
    """In a rolling deploy an older process reads records a newer one wrote: a field it
    does not know is left out (the room still loads, lists and plays), not a crash of
    every request that touches the room."""
    store = RedisStore.connect(redis_url, prefix=prefix)
    try:
        room = record("n", 1.0)
        await store.save_room(room)
        newer = {**asdict(room), "a_field_of_a_later_version": [1, 2]}
        await store.redis.set(store.key("n"), msgpack.packb(newer))
        assert await store.load_room("n") == room
        assert await store.load_rooms(["n"]) == [room]
    finally:
        await store.close()
