"""A lobby request forwarded to a room's owner that pauses (its Redis master failing
over, here the owner process frozen with SIGSTOP) is posted again under one key until
the owner answers, within ``forward_patience``: the seat is taken once, and the player
gets it, instead of a 503 that a retry would turn into a second seat."""

from __future__ import annotations

import asyncio
import os
import signal

import httpx

from clients.client import LobbyClient
from clients.spawn import SpawnedServer
from conftest import running
from server.settings import Settings


async def test_a_seat_asked_while_the_owner_is_paused_is_taken_once_when_it_resumes(
    redis_url: str, prefix: str
) -> None:
    owner = SpawnedServer(redis_url=redis_url, redis_prefix=prefix, node="a")
    await owner.start()
    try:
        async with LobbyClient(owner.url) as lobby:
            room_id = (await lobby.create_room("sintra", seats=2))["id"]
        follower = Settings(
            redis_url=redis_url,
            redis_prefix=prefix,
            node="b",
            forward_timeout=0.2,
            forward_patience=30.0,
        )
        async with running(follower) as server, httpx.AsyncClient(base_url=server.url) as http:
            os.kill(owner.pid, signal.SIGSTOP)
            asked = asyncio.create_task(
                http.post(f"/api/rooms/{room_id}/seats", json={"name": "ana"}, timeout=60)
            )
            # Five forward timeouts pass: the request is still waiting, not refused.
            done, _ = await asyncio.wait([asked], timeout=1.0)
            assert not done, asked.result().text
            os.kill(owner.pid, signal.SIGCONT)
            answer = await asked
            assert answer.status_code == 201, answer.text
            room = (await http.get(f"/api/rooms/{room_id}")).json()
            assert room["names"] == ["ana", None], "one seat taken, though posted many times"
    finally:
        os.kill(owner.pid, signal.SIGCONT)
        await owner.stop()
