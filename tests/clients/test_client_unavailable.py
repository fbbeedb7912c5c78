"""A player's intent, or a lobby request, refused because the room's Redis is down is
sent again by the Python client (an intent with the same id), and lands once Redis is
back (a real redis-server, stopped and started again on its port, its append-only file
kept); a Redis that never comes back ends the wait with the refusal."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from wire import new_room

from clients.client import LobbyClient, LobbyError, RoomClient
from clients.retry import Patience, Wait
from clients.spawn import SpawnedRedis
from conftest import Running, redis_server, running
from server.errors import UNAVAILABLE_RETRY
from server.room import hash_token
from server.settings import Settings
from support import error_code


class Outage:
    """The test's own redis-server and a server on it; :meth:`back_on_first_wait` is an
    ``on_wait`` that starts Redis again once a client has been told to wait."""

    def __init__(self, redis: SpawnedRedis, server: Running) -> None:
        self.redis, self.server = redis, server
        self.waits: list[Wait] = []

    def back_on_first_wait(self) -> Callable[[Wait], None]:
        def back(wait: Wait) -> None:
            self.waits.append(wait)
            if len(self.waits) == 1:
                self.redis.start()

        return back


@pytest.fixture
async def outage(prefix: str) -> AsyncIterator[Outage]:
    redis = redis_server("--save", "", "--appendonly", "yes")
    redis.start()
    try:
        async with running(Settings(redis_url=redis.url, redis_prefix=prefix)) as server:
            yield Outage(redis, server)
    finally:
        redis.cleanup()


async def test_an_intent_refused_while_redis_is_down_lands_once_it_is_back(outage: Outage) -> None:
    room_id, tokens = await new_room(outage.server, seats=2)
    back = outage.back_on_first_wait()
    clients = [RoomClient(outage.server.ws, room_id, t, on_wait=back) for t in tokens]
    for client in clients:
        await client.connect()
    try:
        mover, action = await _to_act(clients)
        before = mover.version
        assert before is not None
        outage.redis.stop()
        reply = await mover.intent(action)
        assert reply["t"] == "ack", reply
        assert reply["v"] == before + 1, "applied once, not once a try"
        assert [(w.what, w.code, w.seconds) for w in outage.waits[:1]] == [
            ("intent", "store_unavailable", UNAVAILABLE_RETRY)
        ], "the wait the reject says"
        assert mover.waits["store_unavailable"] == len(outage.waits)
        for client in clients:  # every seat sees the move
            await client.wait_version(before + 1)
    finally:
        for client in clients:
            await client.close()


async def test_a_room_created_while_redis_is_down_is_created_once_it_is_back(
    outage: Outage,
) -> None:
    async with LobbyClient(outage.server.url, on_wait=outage.back_on_first_wait()) as lobby:
        outage.redis.stop()
        room = await lobby.create_room("sintra", seats=2)
        assert [(w.code, w.seconds) for w in outage.waits[:1]] == [
            ("store_unavailable", UNAVAILABLE_RETRY)
        ]
        assert [r["id"] for r in await lobby.rooms()] == [room["id"]], "created once"


async def test_a_seat_asked_while_redis_is_down_is_taken_once_it_is_back(
    outage: Outage,
) -> None:
    """The client's seat request carries an Idempotency-Key: told to wait, it is sent
    again with the same key and takes one seat. Without a key the refusal asks for no
    retry: the write may have landed unconfirmed, and a repeat would take a second seat."""
    async with LobbyClient(outage.server.url, on_wait=outage.back_on_first_wait()) as lobby:
        room = await lobby.create_room("sintra", seats=3)
        outage.redis.stop()
        async with httpx.AsyncClient(base_url=outage.server.url) as http:
            bare = await http.post(f"/api/rooms/{room['id']}/seats", json={})
        assert (bare.status_code, error_code(bare)) == (503, "store_unavailable")
        assert "retry_after" not in bare.json()["error"] and "retry-after" not in bare.headers
        seat = await lobby.reserve(room["id"], name="ana")
        assert [(w.code, w.seconds) for w in outage.waits[:1]] == [
            ("store_unavailable", UNAVAILABLE_RETRY)
        ]
        assert lobby.waits == {"store_unavailable": len(outage.waits)}, "counted"
        taken = await lobby.room(room["id"])
    assert (seat["seat"], taken["taken"], taken["names"]) == (0, 1, ["ana", None, None])


async def test_a_seat_no_replica_confirmed_is_answered_again_not_taken_twice(
    prefix: str,
) -> None:
    """With ``redis_durability=replica`` and no replica, the seat's entry lands on the
    master but the request is refused: what a failover leaves when the master dies
    just after the write. The client's repeat, with the same key, gets that seat and a
    token that holds it, and the room keeps one seat taken."""
    redis = redis_server("--save", "", "--appendonly", "yes")
    redis.start()
    settings = Settings(
        redis_url=redis.url,
        redis_prefix=prefix,
        redis_durability="replica",
        lease_ttl=1.0,
        forward_timeout=1.0,
    )
    waits: list[Wait] = []
    try:
        async with (
            running(settings) as server,
            LobbyClient(server.url, on_wait=waits.append) as lobby,
        ):
            room = await lobby.create_room("sintra", seats=3)
            seat = await lobby.reserve(room["id"], name="ana")
            assert waits and waits[0].code == "store_unavailable", "the first answer was lost"
            taken = await lobby.room(room["id"])
            assert (seat["seat"], taken["taken"]) == (0, 1), "one seat, not one a try"
            holder = await server.lobby.store.seat_of(room["id"], hash_token(seat["token"]))
            assert holder == 0, "the token answered holds the seat"
    finally:
        redis.cleanup()


async def test_a_redis_that_never_comes_back_ends_the_waits_with_the_refusal(
    outage: Outage,
) -> None:
    """Patience is bounded: past it, the intent's reject and the lobby's 503 come back."""
    patience = Patience(attempts=3)
    room_id, tokens = await new_room(outage.server, seats=2)
    clients = [RoomClient(outage.server.ws, room_id, t, patience=patience) for t in tokens]
    for client in clients:
        await client.connect()
    try:
        mover, action = await _to_act(clients)
        outage.redis.stop()
        reply = await mover.intent(action)
        assert (reply["t"], reply["code"]) == ("reject", "store_unavailable"), reply
        assert reply["retry_after"] == UNAVAILABLE_RETRY, "the reject says when to retry"
        assert mover.waits == {"store_unavailable": 2}, "three tries: two waits between"
    finally:
        for client in clients:
            await client.close()
    async with LobbyClient(outage.server.url, patience=patience) as lobby:
        with pytest.raises(LobbyError) as refused:
            await lobby.create_room("sintra", seats=2)
    assert refused.value.code == "store_unavailable"
    assert "(still refused after 2 waits, 1 s)" in refused.value.message


async def _to_act(clients: list[RoomClient]) -> tuple[RoomClient, dict[str, Any]]:
    """The client whose seat may act now, and one of its legal actions."""
    for client in clients:
        if actions := await client.legal():
            return client, actions[0]
    raise AssertionError("no seat may act")
