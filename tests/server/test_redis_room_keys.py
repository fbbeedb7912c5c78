"""No room leaves a key in Redis for ever: against a real redis-server, every key of a
room that ended (played out or abandoned) expires, and a room the sweep removed has
no key left and is in no index."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.lobby import Lobby
from server.settings import Settings
from server.store.base import ALL
from server.store.redis import RedisStore
from server.timers import ManualTimers


@pytest.fixture
async def store(redis_url: str, prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.connect(redis_url, prefix=prefix, finished_ttl=300)
    yield store
    await store.close()


@pytest.fixture
async def lobby(store: RedisStore) -> AsyncIterator[tuple[Lobby, ManualTimers]]:
    timers = ManualTimers()
    settings = Settings(finished_ttl=300, waiting_ttl=600)
    lobby = Lobby(store, settings, clock=timers, timers=timers)
    yield lobby, timers
    await lobby.close()


async def ttls(store: RedisStore, room_id: str) -> dict[str, int]:
    """Each key of the room (found by SCAN), with its TTL in seconds (-1: none)."""
    found = {}
    async for key in store.redis.scan_iter(match=f"{store.key(room_id)}*"):
        found[key.decode()] = await store.redis.ttl(key)
    return found


async def indexed(store: RedisStore, room_id: str) -> list[str]:
    """The indexes that still hold the room."""
    names = []
    async for key in store.redis.scan_iter(match=f"{store.prefix}:index:*"):
        members = await store.redis.zrange(key, 0, -1)
        if any(member.decode().endswith(f":{room_id}") for member in members):
            names.append(key.decode())
    return names


async def abandoned_room(lobby: Lobby, timers: ManualTimers) -> str:
    """A game of two bots and a player who never comes, left until it is abandoned."""
    body = {"engine": "sintra", "seats": 3, "options": {"abandon_after": 10}}
    room_id = (await lobby.create({**body, "bots": {"seats": [1, 2]}}))["id"]
    await lobby.reserve(room_id, {"name": "ana"})
    room = lobby.rooms[room_id]
    await room.settled()  # the game started: its wake-up is set
    timers.advance(11)
    await room.settled()
    assert room.record.status == "finished" and room.record.result is not None
    assert room.record.result.get("abandoned"), room.record.result
    return room_id


async def test_every_key_of_an_abandoned_room_expires(
    store: RedisStore, lobby: tuple[Lobby, ManualTimers]
) -> None:
    room_id = await abandoned_room(*lobby)
    keys = await ttls(store, room_id)
    parts = {key.removeprefix(store.key(room_id)) for key in keys}
    assert {"", ":log", ":tokens", ":epoch", ":lease"} <= parts, keys
    assert all(ttl > 0 for ttl in keys.values()), f"keys that never expire: {keys}"


async def test_a_removed_room_leaves_no_key_and_no_index_entry(
    store: RedisStore, lobby: tuple[Lobby, ManualTimers]
) -> None:
    the_lobby, timers = lobby
    ended = await abandoned_room(the_lobby, timers)
    waiting = (await the_lobby.create({"engine": "sintra", "seats": 3}))["id"]
    await the_lobby.reserve(waiting, {"name": "bo"})
    empty = (await the_lobby.create({"engine": "sintra", "seats": 3}))["id"]
    timers.advance(301)  # the ended room is due, not the waiting ones
    assert await the_lobby.sweep() == [ended]
    timers.advance(300)  # now the waiting one too (600 s), and the one just created
    assert sorted(await the_lobby.sweep()) == sorted([waiting, empty])
    for room_id in (ended, waiting, empty):
        assert await ttls(store, room_id) == {}, room_id
        assert await indexed(store, room_id) == [], room_id
        assert room_id not in the_lobby.rooms
    assert (await store.page(ALL, 10))[0] == []
