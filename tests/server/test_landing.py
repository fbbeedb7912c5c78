"""A move decided in its sender's turn of the loop and committed when the store settles
its append (server/room.py ``submit``, server/room_commands.py ``apply_soon``): at once
on the memory store, in the group commit's callback on Redis. Until it lands, what comes
next waits, so every intent is decided against the state the one before made."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from doubles import Mover

from protocol.messages import Intent
from server.lobby import Lobby
from server.settings import Settings
from server.store import Store
from server.store.memory import MemoryStore
from server.store.redis import RedisStore


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, prefix: str) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    redis = RedisStore.connect(request.getfixturevalue("redis_url"), prefix=prefix)
    yield redis
    await redis.close()


def sent(mover: Mover, room: Any, action: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
    """``action`` submitted for ``mover``'s seat, not awaited: the future of its answer."""
    mover.answer = asyncio.get_running_loop().create_future()
    room.submit(mover, Intent(next(mover.ids), action))
    return mover.answer


async def test_moves_sent_in_one_step_are_each_decided_after_the_one_before_lands(
    store: Store,
) -> None:
    lobby = Lobby(store, Settings())
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4}))["id"]
    room = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    engine, state, version = room.engine, room.state, room.version
    assert state is not None
    first = min(engine.to_act(state))
    action = engine.legal_actions(state, first)[0]
    after, _ = engine.apply(state, first, action)
    second = min(engine.to_act(after))
    assert second != first, "turn-relay passes the turn"
    again = Mover(first)  # the first seat's next intent (id 2): no longer its turn
    again.ids = itertools.count(2)
    await room.settled()  # the actor idle: the first move takes the fast path
    # The second seat's move is legal only once the first has landed.
    async with asyncio.timeout(10):
        answers = await asyncio.gather(
            sent(Mover(first), room, action),
            sent(Mover(second), room, engine.legal_actions(after, second)[0]),
            sent(again, room, action),
        )
    assert [a["t"] for a in answers] == ["ack", "ack", "reject"], answers
    assert [a.get("v") for a in answers[:2]] == [version + 1, version + 2]
    assert answers[2]["code"] == "not_your_turn"
    await room.settled()
    assert room.version == version + 2
    logged = await store.read_log(room_id)
    assert [v for v, _ in logged][-2:] == [version + 1, version + 2]
    assert [e["seat"] for _, e in logged[-2:]] == [first, second]
    await lobby.close()


async def test_a_move_whose_store_closes_before_its_batch_is_refused_and_changes_nothing(
    redis_url: str, prefix: str
) -> None:
    store = RedisStore.connect(redis_url, prefix=prefix)
    lobby = Lobby(store, Settings())
    room_id = (await lobby.create({"engine": "turn-relay", "seats": 4}))["id"]
    room = lobby.rooms[room_id]
    for _ in range(4):
        await lobby.reserve(room_id, {})
    assert room.state is not None
    version, state, logged = room.version, room.state, await store.read_log(room_id)
    seat = min(room.engine.to_act(state))
    await room.settled()
    answer = sent(Mover(seat), room, room.engine.legal_actions(state, seat)[0])
    await store.appends.close()  # a shutdown: the append queued is never written
    async with asyncio.timeout(10):
        await answer
    assert answer.result()["code"] == "store_unavailable", answer.result()
    assert room.version == version and room.state is state
    assert await store.read_log(room_id) == logged
    await room.settled()  # the actor is not left waiting for the move that failed
    await lobby.close()
    await store.close()
