"""The Redis-backed service through an outage and a new room: what the hub logs while
Redis is away, and how soon a room it made itself tells a player has left."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

import httpx
import pytest

from clients.client import RoomClient
from conftest import redis_server, running
from server import hub as hub_module
from server.hub import RedisHub
from server.room import Room
from server.settings import Settings
from server.store.channels import Subscriber
from server.store.redis import RedisStore


async def test_a_redis_outage_is_one_warning_and_its_end_one_line(
    prefix: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The listener retries every RETRY while Redis is down: the outage is one warning,
    not one a retry (20 in 10 s), and Redis coming back one info line."""
    redis = redis_server()  # not started yet: the hub starts without Redis
    store = RedisStore(redis.url, prefix=prefix, timeout=0.5)
    monkeypatch.setattr(hub_module, "RETRY", 0.01)
    tries, retried, back = 0, asyncio.Event(), asyncio.Event()
    said: list[str] = []

    class Counted(Subscriber):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            nonlocal tries
            tries += 1
            if tries == 5:
                retried.set()

    class Heard(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("pub/sub"):
                said.append(record.getMessage())
                if record.getMessage() == "pub/sub back":
                    back.set()

    async def claim(room: Room) -> bool:
        return False

    monkeypatch.setattr(hub_module, "Subscriber", Counted)
    caplog.set_level(logging.INFO, logger="tablewire.hub")
    heard = Heard()
    logging.getLogger("tablewire.hub").addHandler(heard)
    hub = RedisHub(store, Settings(), "node-1", {}, claim)
    await hub.start()
    try:
        await retried.wait()  # four attempts failed
        redis.start()
        async with asyncio.timeout(30):
            await back.wait()
        assert said == ["pub/sub lost", "pub/sub back"]
    finally:
        logging.getLogger("tablewire.hub").removeHandler(heard)
        await hub.close()
        await store.close()
        redis.cleanup()


async def test_a_player_who_leaves_a_room_made_here_shows_away_at_once(
    settings: Settings, redis_url: str, prefix: str
) -> None:
    """An owner that takes a room over waits a few lease times before it logs a player
    away (another process's players report within them). A room made here had no
    player anywhere before: there is nothing to wait for (here the wait would be hours)."""
    settings = replace(settings, redis_url=redis_url, redis_prefix=prefix, lease_ttl=3600)
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        room = (await http.post("/api/rooms", json={"engine": "sintra", "seats": 2})).json()
        seats = [
            (await http.post(f"/api/rooms/{room['id']}/seats", json={"name": name})).json()
            for name in ("ana", "bo")
        ]
        async with (
            RoomClient(server.ws, room["id"], seats[0]["token"]) as ana,
            RoomClient(server.ws, room["id"], seats[1]["token"]) as bo,
        ):
            await ana.wait_for(lambda doc: doc["presence"][1]["connected"])
            await bo.close()
            doc = await ana.wait_for(lambda doc: not doc["presence"][1]["connected"])
            assert doc["presence"][1]["away_since"] is not None


async def test_ready_while_redis_answers_and_503_while_it_does_not(
    settings: Settings, prefix: str
) -> None:
    """``/readyz`` asks the store; ``/healthz`` (liveness) never does. Redis stopped (a
    refusal), back, hung (SIGSTOP: a timeout), back."""
    redis = redis_server()
    redis.start()
    settings = replace(settings, redis_url=redis.url, redis_prefix=prefix)

    async def not_ready(http: httpx.AsyncClient) -> None:
        ready = await http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["ok"] is False
        assert ready.json()["store"].startswith("unavailable: redis: ")
        assert ready.json()["store"] != "unavailable: redis: ", "it says why"
        assert ready.headers["retry-after"] == "1"
        health = await http.get("/healthz")
        assert health.status_code == 200 and health.json()["ok"] is True

    try:
        async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
            ready = await http.get("/readyz")
            assert ready.status_code == 200
            assert ready.json()["ok"] is True and ready.json()["store"] == "ok"
            redis.stop()
            await not_ready(http)
            redis.start()
            assert (await http.get("/readyz")).status_code == 200
            redis.pause()
            await not_ready(http)
            redis.resume()
            assert (await http.get("/readyz")).status_code == 200
    finally:
        redis.cleanup()


async def test_the_memory_store_is_always_ready(settings: Settings) -> None:
    async with running(settings) as server, httpx.AsyncClient(base_url=server.url) as http:
        ready = await http.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["ok"] is True and ready.json()["store"] == "ok"
