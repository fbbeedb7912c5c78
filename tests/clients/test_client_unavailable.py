"""A player's intent, or a lobby request, refused because the room's Redis is down is
sent again by the Python client (an intent with the same id), and lands once Redis is
back (a real redis-server, stopped and started again on its port, its append-only file
kept)."""

from __future__ import annotations

from typing import Any

import pytest
from wire import new_room

from clients.client import LobbyClient, LobbyError, RoomClient
from clients.retry import UNAVAILABLE_WAIT, Wait
from conftest import redis_server, running
from server.settings import Settings


async def test_an_intent_refused_while_redis_is_down_lands_once_it_is_back(prefix: str) -> None:
    redis = redis_server("--save", "", "--appendonly", "yes")
    redis.start()
    waits: list[Wait] = []

    def back(wait: Wait) -> None:  # Redis comes back once the client has been told to wait
        waits.append(wait)
        if len(waits) == 1:
            redis.start()

    try:
        settings = Settings(redis_url=redis.url, redis_prefix=prefix)
        async with running(settings) as server:
            room_id, tokens = await new_room(server, seats=2)
            clients = [RoomClient(server.ws, room_id, t, on_wait=back) for t in tokens]
            for client in clients:
                await client.connect()
            try:
                mover, action = await _to_act(clients)
                before = mover.version
                assert before is not None
                redis.stop()
                reply = await mover.intent(action)
                assert reply["t"] == "ack", reply
                assert reply["v"] == before + 1, "applied once, not once a try"
                assert [(w.what, w.code, w.seconds) for w in waits[:1]] == [
                    ("intent", "store_unavailable", UNAVAILABLE_WAIT)
                ]
                assert mover.waits["store_unavailable"] == len(waits)
                for client in clients:  # every seat sees the move
                    await client.wait_version(before + 1)
            finally:
                for client in clients:
                    await client.close()
    finally:
        redis.cleanup()


async def test_a_room_created_while_redis_is_down_is_created_once_it_is_back(prefix: str) -> None:
    redis = redis_server("--save", "", "--appendonly", "yes")
    redis.start()
    waits: list[Wait] = []

    def back(wait: Wait) -> None:
        waits.append(wait)
        if len(waits) == 1:
            redis.start()

    try:
        settings = Settings(redis_url=redis.url, redis_prefix=prefix)
        async with running(settings) as server, LobbyClient(server.url, on_wait=back) as lobby:
            redis.stop()
            room = await lobby.create_room("sintra", seats=2)
            assert [(w.code, w.seconds) for w in waits[:1]] == [("store_unavailable", 0.5)]
            assert [r["id"] for r in await lobby.rooms()] == [room["id"]], "created once"
    finally:
        redis.cleanup()


async def test_a_seat_asked_while_redis_is_down_is_refused_and_not_sent_again(
    prefix: str,
) -> None:
    """A seat's write may land though Redis does not confirm it: sent again, it could take
    a second seat, so the refusal asks for no retry and the client makes none."""
    redis = redis_server("--save", "", "--appendonly", "yes")
    redis.start()
    waits: list[Wait] = []
    try:
        settings = Settings(redis_url=redis.url, redis_prefix=prefix)
        async with (
            running(settings) as server,
            LobbyClient(server.url, on_wait=waits.append) as lobby,
        ):
            room = await lobby.create_room("sintra", seats=2)
            redis.stop()
            with pytest.raises(LobbyError) as refused:
                await lobby.reserve(room["id"], name="ana")
            assert (refused.value.status, refused.value.code, waits) == (
                503,
                "store_unavailable",
                [],
            )
    finally:
        redis.cleanup()


async def _to_act(clients: list[RoomClient]) -> tuple[RoomClient, dict[str, Any]]:
    """The client whose seat may act now, and one of its legal actions."""
    for client in clients:
        if actions := await client.legal():
            return client, actions[0]
    raise AssertionError("no seat may act")
