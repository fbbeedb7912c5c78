"""Room operations a replica forwards to the room's owner (bots taking seats, a rematch
link, a seat request), served again by the next owner after a handover, on a real
Redis store."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, replace
from typing import Any

import pytest

from engines.sintra import ENGINE as sintra
from server.errors import ApiError
from server.owner_side import OwnerSide
from server.room import Room, hash_token
from server.room_parts import Reservation
from server.settings import Settings
from server.store import RoomRecord
from server.store.redis import RedisStore


@pytest.fixture
async def store(redis_url: str, prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.connect(redis_url, prefix=prefix, lease_ttl=60, token_ttl=60)
    yield store
    await store.close()


async def owned_by(store: RedisStore, record: RoomRecord, node: str) -> Room:
    """The room as ``node`` loads it from the store and takes it over."""
    room = Room(replace(record), sintra, store, Settings(), time.time)
    await room.restore()
    lease = await store.acquire(record.id, node)
    assert lease is not None
    await room.promote(lease)
    room.start()
    return room


async def served(room: Room, message: dict[str, Any]) -> dict[str, Any]:
    """What the owner side of ``room``'s process answers to ``message``."""
    answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    side = OwnerSide({room.id: room}, lambda channel, answer: answered.set_result(answer), str)
    side.serve(room.id, message)
    async with asyncio.timeout(5):
        return await answered


class Handover:
    """The forwarder of a replica (node a) whose call the owner (node b) serves, and
    whose answer never reaches a: b loses the room, and a sends the call again to the
    next owner (node c), which has no memory of what b served (:meth:`RedisHub._request`
    posts what is unanswered again once a room changes hands)."""

    def __init__(self, store: RedisStore, record: RoomRecord) -> None:
        self.store, self.record = store, record
        self.rooms: list[Room] = []

    async def forward_call(self, room: Room, op: str, args: dict[str, Any]) -> Any:
        answer = await self.forward({"k": "call", "op": op, "args": args})
        return answer["value"]

    async def forward_reserve(self, room: Room, ask: Reservation) -> tuple[int, str]:
        answer = await self.forward({"k": "reserve", **asdict(ask)})
        return answer["seat"], answer["token"]

    async def forward(self, request: dict[str, Any]) -> dict[str, Any]:
        message = {**request, "node": "a", "req": "a:run:1"}
        first = await owned_by(self.store, self.record, "b")
        self.rooms.append(first)
        assert "error" not in await served(first, message), "served by b; the answer is lost"
        assert first.lease is not None
        await self.store.release(self.record.id, first.lease)
        first.demote()
        second = await owned_by(self.store, self.record, "c")
        self.rooms.append(second)
        answer = await served(second, message)
        if "error" in answer:
            raise ApiError(*answer["error"])
        return answer

    def following(self, room: Room) -> None:
        pass


@pytest.mark.parametrize("seats", [[1], None])
async def test_bots_seated_once_when_the_next_owner_serves_the_call_again(
    store: RedisStore, seats: list[int] | None
) -> None:
    """A replica asks the owner to seat bots (a rematch of a game with bots, a room
    created with bots, `POST /bots` without a key); the owner seats them, and the room
    changes hands before its answer arrives. The call sent again to the new owner gets
    the seats the first one took, never ``seat_taken`` or ``room_full`` for bots that
    sit there already, and no more bots."""
    record = RoomRecord("r", "sintra", 3, {}, False, 1, 0, 0, names=["ana", None, None])
    record.bots, record.connected, record.away_since = [None] * 3, [False] * 3, [None] * 3
    await store.save_room(record)
    handover = Handover(store, record)
    replica = Room(replace(record), sintra, store, Settings(), time.time, forwarder=handover)  # type: ignore[arg-type]
    try:
        taken = await replica.seat_bots("random", seats)
        assert taken == ([1] if seats else [1, 2])
        seated = [e["seat"] for _, e in await store.read_log("r") if e["k"] == "seat"]
        assert seated == taken, "each bot seated once"
    finally:
        await asyncio.gather(*(room.close() for room in handover.rooms))


@pytest.mark.parametrize(("name", "claim"), [("bo", False), (None, False), ("bo", True)])
async def test_a_seat_taken_once_when_the_next_owner_serves_the_request_again(
    store: RedisStore, name: str | None, claim: bool
) -> None:
    """A replica forwards a seat request without an ``Idempotency-Key`` (a newcomer's,
    or a former player's claim of the seat a rematch holds); the owner seats them, and
    the room changes hands before its answer arrives. The request sent again to the
    new owner gets the seat the first one took, with a token that holds it: never a
    second seat (an orphan that would fill the room), nor ``name_taken`` for the name
    the first took, nor ``seat_taken`` for the claim."""
    record = RoomRecord("r", "sintra", 3, {}, False, 1, 0, 0, names=["ana", None, None])
    record.bots, record.connected, record.away_since = [None] * 3, [False] * 3, [None] * 3
    if claim:
        record.held, record.held_until = [False, True, True], time.time() + 60
    await store.save_room(record)
    handover = Handover(store, record)
    replica = Room(replace(record), sintra, store, Settings(), time.time, forwarder=handover)  # type: ignore[arg-type]
    try:
        seat, token = await replica.reserve(name, 1 if claim else None, claim=claim)
        assert seat == 1
        seated = [(e["seat"], e["name"]) for _, e in await store.read_log("r") if e["k"] == "seat"]
        assert seated == [(1, name or "player 2")], "one seat taken"
        assert await store.seat_of("r", hash_token(token)) == 1, "the token holds the seat"
    finally:
        await asyncio.gather(*(room.close() for room in handover.rooms))
